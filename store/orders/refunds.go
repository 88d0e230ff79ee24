package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"storefront/store/platform"
)

// ErrRefundTooLarge means a refund would give back more than was paid for
// the order (counting the refunds before it). Nothing changed.
var ErrRefundTooLarge = fmt.Errorf("%w: refund larger than what is left of the payment", platform.ErrInvalid)

// Refund is money given back on an order.
type Refund struct {
	ID      int64
	OrderID int64
	Cents   int64
	Ref     string // the provider's id of the refund; "" when recorded only
	Actor   string
	At      time.Time
}

// Refund statuses in order_refunds.
const (
	refundPending = "pending" // taken from what is refundable, the provider not yet done
	refundDone    = "done"
)

// ProviderRefund asks a payment provider to give the money back; refundID
// names the shop's refund (an idempotency key for the provider). It
// returns the provider's id of the refund.
type ProviderRefund func(ctx context.Context, refundID int64) (ref string, err error)

// RecordRefund gives cents of order orderID back, never more than limit
// (what was paid) in all. The amount is taken first, by one conditional
// update of the order's refunded_cents, so concurrent refunds cannot
// overshoot; then provider (if any) moves the money, and the refund is
// done, or, if the provider refused, its amount is given back and the
// error returned. Payment methods call it from their Refund.
func (s *Service) RecordRefund(ctx context.Context, orderID, cents, limit int64, actor string, provider ProviderRefund) (Refund, error) {
	if cents <= 0 {
		return Refund{}, fmt.Errorf("%w: a refund is a positive amount", platform.ErrInvalid)
	}
	r := Refund{OrderID: orderID, Cents: cents, Actor: actor, At: time.Unix(s.clock.Now().Unix(), 0)}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Refund{}, fmt.Errorf("refund order %d: %w", orderID, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE orders SET refunded_cents = refunded_cents + $1
		WHERE id = $2 AND refunded_cents + $1 <= $3`, cents, orderID, limit)
	if err != nil {
		return Refund{}, fmt.Errorf("refund order %d: %w", orderID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return Refund{}, fmt.Errorf("refund order %d: %w", orderID, err)
	} else if n == 0 {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM orders WHERE id = $1`, orderID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return Refund{}, platform.ErrNotFound
		}
		if err != nil {
			return Refund{}, fmt.Errorf("refund order %d: %w", orderID, err)
		}
		return Refund{}, ErrRefundTooLarge
	}
	status := refundDone
	if provider != nil {
		status = refundPending
	}
	if err := tx.QueryRowContext(ctx, `INSERT INTO order_refunds (order_id, cents, status, actor, at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		orderID, cents, status, actor, r.At.Unix()).Scan(&r.ID); err != nil {
		return Refund{}, fmt.Errorf("refund order %d: %w", orderID, err)
	}
	if err := tx.Commit(); err != nil {
		return Refund{}, fmt.Errorf("refund order %d: commit: %w", orderID, err)
	}
	if provider == nil {
		return r, nil
	}
	ref, perr := provider(ctx, r.ID)
	ctx = context.WithoutCancel(ctx) // the provider answered: settle the record whatever the client does
	if perr != nil {
		if err := s.releaseRefund(ctx, r); err != nil {
			s.log.Error("refund refused, and giving its amount back failed", "order", orderID, "refund", r.ID, "err", err)
		}
		return Refund{}, fmt.Errorf("refund order %d: %w", orderID, perr)
	}
	r.Ref = ref
	if _, err := s.db.ExecContext(ctx, `UPDATE order_refunds SET status = $1, ref = $2 WHERE id = $3`, refundDone, ref, r.ID); err != nil {
		return r, fmt.Errorf("refund order %d: the provider refunded (%s) but the record failed: %w", orderID, ref, err)
	}
	return r, nil
}

// releaseRefund undoes a pending refund the provider refused.
func (s *Service) releaseRefund(ctx context.Context, r Refund) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE orders SET refunded_cents = refunded_cents - $1 WHERE id = $2`, r.Cents, r.OrderID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM order_refunds WHERE id = $1 AND status = $2`, r.ID, refundPending); err != nil {
		return err
	}
	return tx.Commit()
}

// Refunds lists an order's refunds, oldest first (pending ones too).
func (s *Service) Refunds(ctx context.Context, orderID int64) ([]Refund, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, cents, ref, actor, at FROM order_refunds WHERE order_id = $1 ORDER BY id`, orderID)
	if err != nil {
		return nil, fmt.Errorf("refunds of order %d: %w", orderID, err)
	}
	defer rows.Close()
	var out []Refund
	for rows.Next() {
		r := Refund{OrderID: orderID}
		var at int64
		if err := rows.Scan(&r.ID, &r.Cents, &r.Ref, &r.Actor, &at); err != nil {
			return nil, fmt.Errorf("refunds of order %d: %w", orderID, err)
		}
		r.At = platform.UnixTime(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
