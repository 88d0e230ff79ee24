package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// PaymentConfirmation is a payment provider's word that an order was paid:
// one event of the provider's, named by its id.
type PaymentConfirmation struct {
	Provider    string // "stripe"
	EventID     string // the provider's event id: each is handled once
	OrderID     int64
	AmountCents int64  // what the provider took
	Ref         string // the provider's id of the payment, kept for refunds
}

// Outcomes of ConfirmPayment.
const (
	PaymentApplied   = "paid"      // the order moved to paid
	PaymentDuplicate = "duplicate" // the event was handled before: nothing changed
	PaymentMismatch  = "mismatch"  // the amount is not the order's total: the order stays unpaid
	PaymentTooLate   = "too_late"  // the order no longer awaits payment (cancelled, or paid by another event)
	PaymentNoOrder   = "no_order"  // no such order
)

// ActorPayment marks the timeline entries of payment providers and the
// payment hold.
const ActorPayment = "payment"

// ConfirmPayment applies a provider's confirmation in one transaction:
// the event is recorded (a replayed one finds its record and changes
// nothing), and the order moves from awaiting_payment to paid only when
// the amount equals its total; the move is a conditional update on the
// status, so it and the payment hold's cancel cannot both apply. Every
// outcome but a duplicate is recorded with the event. After a commit that
// paid the order, the OnStatus listeners hear of it.
func (s *Service) ConfirmPayment(ctx context.Context, c PaymentConfirmation) (string, error) {
	outcome, userID, err := s.confirmPaymentTx(ctx, c)
	if err != nil {
		return "", err
	}
	if outcome == PaymentApplied {
		s.statusChanged(context.WithoutCancel(ctx), userID, c.OrderID, OrderPaid)
	}
	return outcome, nil
}

func (s *Service) confirmPaymentTx(ctx context.Context, c PaymentConfirmation) (outcome string, userID int64, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", 0, fmt.Errorf("confirm payment: %w", err)
	}
	defer tx.Rollback()
	now := s.clock.Now().Unix()
	res, err := tx.ExecContext(ctx, `INSERT INTO payment_events (provider, event_id, order_id, outcome, at) VALUES ($1, $2, $3, '', $4)
		ON CONFLICT (provider, event_id) DO NOTHING`, c.Provider, c.EventID, c.OrderID, now)
	if err != nil {
		return "", 0, fmt.Errorf("confirm payment: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return "", 0, fmt.Errorf("confirm payment: %w", err)
	} else if n == 0 {
		return PaymentDuplicate, 0, nil
	}
	outcome, userID, err = s.payOrderTx(ctx, tx, c, now)
	if err != nil {
		return "", 0, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE payment_events SET outcome = $1 WHERE provider = $2 AND event_id = $3`,
		outcome, c.Provider, c.EventID); err != nil {
		return "", 0, fmt.Errorf("confirm payment: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return "", 0, fmt.Errorf("confirm payment: commit: %w", err)
	}
	return outcome, userID, nil
}

// payOrderTx moves the order to paid if the confirmation fits it.
func (s *Service) payOrderTx(ctx context.Context, tx *sql.Tx, c PaymentConfirmation, now int64) (string, int64, error) {
	var userID, total int64
	var status string
	err := tx.QueryRowContext(ctx, `SELECT user_id, status, total_cents FROM orders WHERE id = $1`, c.OrderID).Scan(&userID, &status, &total)
	if errors.Is(err, sql.ErrNoRows) {
		return PaymentNoOrder, 0, nil
	}
	if err != nil {
		return "", 0, fmt.Errorf("confirm payment of order %d: %w", c.OrderID, err)
	}
	if c.AmountCents != total {
		s.log.Warn("payment amount does not match the order's total: left unpaid", "order", c.OrderID,
			"paid_cents", c.AmountCents, "total_cents", total, "provider", c.Provider, "event", c.EventID)
		return PaymentMismatch, userID, nil
	}
	if status != OrderAwaitingPayment {
		return PaymentTooLate, userID, nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE orders SET status = $1, paid_cents = $2, payment_ref = $3
		WHERE id = $4 AND status = $5`, OrderPaid, c.AmountCents, c.Ref, c.OrderID, OrderAwaitingPayment)
	if err != nil {
		return "", 0, fmt.Errorf("confirm payment of order %d: %w", c.OrderID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return "", 0, fmt.Errorf("confirm payment of order %d: %w", c.OrderID, err)
	} else if n == 0 {
		return PaymentTooLate, userID, nil // the hold's cancel committed first
	}
	if err := insertOrderEvent(ctx, tx, c.OrderID, OrderPaid, ActorPayment, now); err != nil {
		return "", 0, err
	}
	// The in-transaction status hooks (the shopper's email) see the payment
	// as they see any other move.
	if err := s.afterMoveTx(ctx, tx, StatusChange{OrderID: c.OrderID, UserID: userID, From: OrderAwaitingPayment, To: OrderPaid}); err != nil {
		return "", 0, err
	}
	return PaymentApplied, userID, nil
}
