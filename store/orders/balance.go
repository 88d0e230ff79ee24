package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// BalanceAsker is a payment method that can ask the shopper for the
// difference an edit added to an order it was paid with (DueCents): the
// provider's page for that amount, the open one the order was sent to
// (DueSession) or a new one.
type BalanceAsker interface {
	AskBalance(ctx context.Context, o Order, back ReturnURLs) (redirectURL string, err error)
}

// owesBalance reports whether the shopper is asked to pay a difference
// on order o.
func owesBalance(o Order) bool {
	return o.DueCents > 0 && o.Status != OrderCancelled && o.Status != OrderAwaitingPayment
}

// SetDueSession records the provider's page that asks for dueCents of
// order id, while that is still what the order asks for.
func (s *Service) SetDueSession(ctx context.Context, id, dueCents int64, session string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE orders SET due_session = $1 WHERE id = $2 AND due_cents = $3`,
		session, id, dueCents); err != nil {
		return fmt.Errorf("order %d: balance session: %w", id, err)
	}
	return nil
}

// ConfirmBalance applies a provider's word that the difference asked of
// order c.OrderID was paid, in one transaction like ConfirmPayment: each
// event once; the payment counts when it is for the amount still asked,
// in the order's currency, through the page that asked for it, and the
// order is not cancelled (paid_cents grows by it, nothing is asked any
// more, and an order note records it); any other payment (the order
// edited again since, or cancelled) is owed back in full.
func (s *Service) ConfirmBalance(ctx context.Context, c PaymentConfirmation) (string, error) {
	outcome, refund, err := s.confirmBalanceTx(ctx, c)
	if err != nil {
		return "", err
	}
	if refund.ID != 0 {
		s.log.Warn("a difference paid that the order no longer asks for: owed back in full", "order", c.OrderID,
			"outcome", outcome, "payment", c.Ref, "cents", c.AmountCents, "refund", refund.ID)
		s.refundNow(ctx, refund)
	}
	return outcome, nil
}

func (s *Service) confirmBalanceTx(ctx context.Context, c PaymentConfirmation) (string, Refund, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", Refund{}, fmt.Errorf("confirm balance: %w", err)
	}
	defer tx.Rollback()
	now := s.clock.Now().Unix()
	res, err := tx.ExecContext(ctx, `INSERT INTO payment_events (provider, event_id, order_id, outcome, at) VALUES ($1, $2, $3, '', $4)
		ON CONFLICT (provider, event_id) DO NOTHING`, c.Provider, c.EventID, c.OrderID, now)
	if err != nil {
		return "", Refund{}, fmt.Errorf("confirm balance: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return "", Refund{}, fmt.Errorf("confirm balance: %w", err)
	} else if n == 0 {
		return PaymentDuplicate, Refund{}, nil
	}
	var status, session, currency string
	var due int64
	err = tx.QueryRowContext(ctx, `SELECT status, due_cents, due_session, currency FROM orders WHERE id = $1`, c.OrderID).
		Scan(&status, &due, &session, &currency)
	outcome := PaymentApplied
	switch {
	case errors.Is(err, sql.ErrNoRows):
		outcome = PaymentNoOrder
	case err != nil:
		return "", Refund{}, fmt.Errorf("confirm balance of order %d: %w", c.OrderID, err)
	case c.AmountCents != due || (c.Currency != "" && !strings.EqualFold(c.Currency, currency)):
		outcome = PaymentMismatch
	case status == OrderCancelled || (c.Session != "" && c.Session != session):
		outcome = PaymentTooLate
	}
	if outcome == PaymentApplied {
		res, err := tx.ExecContext(ctx, `UPDATE orders SET paid_cents = paid_cents + $1, due_cents = 0, due_session = ''
			WHERE id = $2 AND due_cents = $1 AND due_session = $3 AND status <> $4`, c.AmountCents, c.OrderID, session, OrderCancelled)
		if err != nil {
			return "", Refund{}, fmt.Errorf("confirm balance of order %d: %w", c.OrderID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return "", Refund{}, fmt.Errorf("confirm balance of order %d: %w", c.OrderID, err)
		} else if n == 0 {
			outcome = PaymentTooLate // an edit or a cancel committed first
		}
	}
	var refund Refund
	switch {
	case outcome == PaymentApplied:
		body := fmt.Sprintf("The shopper paid the difference of %s (payment %s).", s.money(currency)(c.AmountCents), c.Ref)
		if _, err := tx.ExecContext(ctx, `INSERT INTO order_notes (order_id, author, body, at) VALUES ($1, $2, $3, $4)`,
			c.OrderID, ActorPayment, body, now); err != nil {
			return "", Refund{}, fmt.Errorf("confirm balance of order %d: %w", c.OrderID, err)
		}
	case outcome != PaymentNoOrder && c.Ref != "" && c.AmountCents > 0:
		reason := ReasonLatePayment
		if outcome == PaymentMismatch {
			reason = ReasonMismatch
		}
		refund = Refund{OrderID: c.OrderID, Cents: c.AmountCents, Reason: reason, PaymentRef: c.Ref, Method: c.Method, Actor: ActorPayment}
		if err := s.insertRefundTx(ctx, tx, &refund); err != nil {
			return "", Refund{}, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE payment_events SET outcome = $1 WHERE provider = $2 AND event_id = $3`,
		outcome, c.Provider, c.EventID); err != nil {
		return "", Refund{}, fmt.Errorf("confirm balance: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return "", Refund{}, fmt.Errorf("confirm balance: commit: %w", err)
	}
	return outcome, refund, nil
}
