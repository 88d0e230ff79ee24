package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"storefront/store/platform"
)

// refundColumns are the columns scanRefund reads.
const refundColumns = `id, order_id, cents, status, reason, payment_ref, method, ref, actor, at, attempts, last_error, next_try_at, note, settled_at`

func scanRefund(row interface{ Scan(...any) error }) (Refund, error) {
	var r Refund
	var at, next, settled int64
	err := row.Scan(&r.ID, &r.OrderID, &r.Cents, &r.Status, &r.Reason, &r.PaymentRef, &r.Method, &r.Ref, &r.Actor, &at,
		&r.Attempts, &r.LastError, &next, &r.Note, &settled)
	r.At, r.NextTry, r.SettledAt = platform.UnixTime(at), platform.UnixTime(next), platform.UnixTime(settled)
	return r, err
}

// Refunds lists an order's refunds, oldest first (owed ones too).
func (s *Service) Refunds(ctx context.Context, orderID int64) ([]Refund, error) {
	return s.listRefunds(ctx, `order_id = $1 ORDER BY id`, orderID)
}

func (s *Service) listRefunds(ctx context.Context, where string, args ...any) ([]Refund, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+refundColumns+` FROM order_refunds WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("refunds: %w", err)
	}
	defer rows.Close()
	var out []Refund
	for rows.Next() {
		r, err := scanRefund(rows)
		if err != nil {
			return nil, fmt.Errorf("refunds: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// OwedRefunds lists the refunds not given back yet, owed or failed,
// oldest first, at most limit: the admin's list of what the shop owes.
func (s *Service) OwedRefunds(ctx context.Context, limit int) ([]Refund, error) {
	return s.listRefunds(ctx, `status = $1 OR status = $2 ORDER BY id LIMIT $3`, RefundOwed, RefundFailed, limit)
}

// RefundByID reads one refund.
func (s *Service) RefundByID(ctx context.Context, id int64) (Refund, error) {
	r, err := scanRefund(s.db.QueryRowContext(ctx, `SELECT `+refundColumns+` FROM order_refunds WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Refund{}, platform.ErrNotFound
	}
	if err != nil {
		return Refund{}, fmt.Errorf("refund %d: %w", id, err)
	}
	return r, nil
}

// RefundFor reads the latest refund of an order given for reason (a
// return's, ReturnReason); ok is false when there is none.
func (s *Service) RefundFor(ctx context.Context, orderID int64, reason string) (Refund, bool, error) {
	rs, err := s.listRefunds(ctx, `order_id = $1 AND reason = $2 ORDER BY id DESC LIMIT 1`, orderID, reason)
	if err != nil || len(rs) == 0 {
		return Refund{}, false, err
	}
	return rs[0], true, nil
}
