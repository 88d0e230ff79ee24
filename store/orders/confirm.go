package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// PaymentConfirmation is a payment provider's word that an order was paid:
// one event of the provider's, named by its id.
type PaymentConfirmation struct {
	Provider    string // "stripe"
	EventID     string // the provider's event id: each is handled once
	OrderID     int64
	AmountCents int64 // what the provider took
	// Currency is the payment's ISO 4217 code (any case): a payment in
	// another currency than the order's never matches its total. ""
	// leaves it unchecked (a provider that pays only in the order's).
	Currency string
	Ref      string // the provider's id of the payment, kept for refunds
	// Method is the payment method that took it (and gives it back if the
	// order cannot keep it).
	Method string
	// Session is the provider's payment page it was made on ("" when
	// not known): a difference an edit asked for is paid on the page
	// that asked for it (ConfirmBalance).
	Session string
}

// Outcomes of ConfirmPayment.
const (
	PaymentApplied   = "paid"      // the order moved to paid
	PaymentDuplicate = "duplicate" // the event was handled before: nothing changed
	PaymentMismatch  = "mismatch"  // the amount (or currency) is not the order's total: the order stays unpaid
	PaymentTooLate   = "too_late"  // the order no longer awaits payment (cancelled, or paid by another event)
	PaymentNoOrder   = "no_order"  // no such order
)

// ActorPayment marks the timeline entries of payment providers and the
// payment hold.
const ActorPayment = "payment"

// ConfirmPayment applies a provider's confirmation in one transaction:
// the event is recorded (a replayed one finds its record and changes
// nothing), and the order moves from awaiting_payment to paid only when
// the amount, in the order's currency, equals its total; the move is a
// conditional update on the status, so it and any cancel cannot both
// apply. A payment the order cannot keep, for another amount or arriving
// after the order stopped awaiting it (cancelled, or paid by another
// payment), is owed back in full in the same transaction, once per
// payment: no order is cancelled and charged, and no payment is kept for
// an order unpaid. Every outcome but a duplicate is recorded with the
// event. After the commit, the refund is asked of the provider (within
// ctx's deadline; what is not given back stays owed for the refunds
// worker), and after a commit that paid the order the OnStatus listeners
// hear of it.
func (s *Service) ConfirmPayment(ctx context.Context, c PaymentConfirmation) (string, error) {
	outcome, userID, refund, err := s.confirmPaymentTx(ctx, c)
	if err != nil {
		return "", err
	}
	if refund.ID != 0 {
		s.log.Warn("payment the order cannot keep: owed back in full", "order", c.OrderID, "outcome", outcome,
			"payment", c.Ref, "cents", c.AmountCents, "refund", refund.ID)
		s.refundNow(ctx, refund)
	}
	if outcome == PaymentApplied {
		s.statusChanged(context.WithoutCancel(ctx), userID, c.OrderID, OrderPaid)
	}
	return outcome, nil
}

func (s *Service) confirmPaymentTx(ctx context.Context, c PaymentConfirmation) (outcome string, userID int64, refund Refund, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", 0, Refund{}, fmt.Errorf("confirm payment: %w", err)
	}
	defer tx.Rollback()
	now := s.clock.Now().Unix()
	res, err := tx.ExecContext(ctx, `INSERT INTO payment_events (provider, event_id, order_id, outcome, at) VALUES ($1, $2, $3, '', $4)
		ON CONFLICT (provider, event_id) DO NOTHING`, c.Provider, c.EventID, c.OrderID, now)
	if err != nil {
		return "", 0, Refund{}, fmt.Errorf("confirm payment: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return "", 0, Refund{}, fmt.Errorf("confirm payment: %w", err)
	} else if n == 0 {
		return PaymentDuplicate, 0, Refund{}, nil
	}
	outcome, userID, own, err := s.payOrderTx(ctx, tx, c, now)
	if err != nil {
		return "", 0, Refund{}, err
	}
	if (outcome == PaymentMismatch || outcome == PaymentTooLate) && c.Ref != "" && c.Ref != own && c.AmountCents > 0 {
		reason := ReasonLatePayment
		if outcome == PaymentMismatch {
			reason = ReasonMismatch
		}
		refund = Refund{OrderID: c.OrderID, Cents: c.AmountCents, Reason: reason, PaymentRef: c.Ref, Method: c.Method, Actor: ActorPayment}
		if err := s.insertRefundTx(ctx, tx, &refund); err != nil {
			return "", 0, Refund{}, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE payment_events SET outcome = $1 WHERE provider = $2 AND event_id = $3`,
		outcome, c.Provider, c.EventID); err != nil {
		return "", 0, Refund{}, fmt.Errorf("confirm payment: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return "", 0, Refund{}, fmt.Errorf("confirm payment: commit: %w", err)
	}
	return outcome, userID, refund, nil
}

// payOrderTx moves the order to paid if the confirmation fits it, and
// returns the order's own payment (the one it was paid by, if any).
func (s *Service) payOrderTx(ctx context.Context, tx *sql.Tx, c PaymentConfirmation, now int64) (string, int64, string, error) {
	var userID, total int64
	var status, own, currency string
	err := tx.QueryRowContext(ctx, `SELECT user_id, status, total_cents, payment_ref, currency FROM orders WHERE id = $1`, c.OrderID).
		Scan(&userID, &status, &total, &own, &currency)
	if errors.Is(err, sql.ErrNoRows) {
		return PaymentNoOrder, 0, "", nil
	}
	if err != nil {
		return "", 0, "", fmt.Errorf("confirm payment of order %d: %w", c.OrderID, err)
	}
	otherCurrency := c.Currency != "" && !strings.EqualFold(c.Currency, currency)
	if c.AmountCents != total || otherCurrency {
		s.log.Warn("payment amount does not match the order's total: left unpaid", "order", c.OrderID,
			"paid_cents", c.AmountCents, "paid_currency", c.Currency, "currency", currency, "total_cents", total, "provider", c.Provider, "event", c.EventID)
		return PaymentMismatch, userID, own, nil
	}
	if status != OrderAwaitingPayment {
		return PaymentTooLate, userID, own, nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE orders SET status = $1, paid_cents = $2, payment_ref = $3
		WHERE id = $4 AND status = $5`, OrderPaid, c.AmountCents, c.Ref, c.OrderID, OrderAwaitingPayment)
	if err != nil {
		return "", 0, "", fmt.Errorf("confirm payment of order %d: %w", c.OrderID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return "", 0, "", fmt.Errorf("confirm payment of order %d: %w", c.OrderID, err)
	} else if n == 0 {
		// Another move committed first: a cancel, or another event of the
		// same payment (which is then the order's own, not one to give
		// back): read what it left.
		if err := tx.QueryRowContext(ctx, `SELECT payment_ref FROM orders WHERE id = $1`, c.OrderID).Scan(&own); err != nil {
			return "", 0, "", fmt.Errorf("confirm payment of order %d: %w", c.OrderID, err)
		}
		return PaymentTooLate, userID, own, nil
	}
	if err := insertOrderEvent(ctx, tx, c.OrderID, OrderPaid, ActorPayment, now); err != nil {
		return "", 0, "", err
	}
	// The in-transaction status hooks (the shopper's email) see the payment
	// as they see any other move.
	if err := s.afterMoveTx(ctx, tx, StatusChange{OrderID: c.OrderID, UserID: userID, From: OrderAwaitingPayment, To: OrderPaid}); err != nil {
		return "", 0, "", err
	}
	return PaymentApplied, userID, c.Ref, nil
}
