package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Order statuses.
const (
	OrderPending   = "pending"   // placed, waiting for the fulfilment worker
	OrderProcessed = "processed" // handled by the fulfilment worker
)

// Order is a placed order with its price snapshots.
type Order struct {
	ID          int64
	UserID      int64
	Status      string
	TotalCents  int64
	ItemCount   int64 // total quantity
	CreatedAt   time.Time
	ProcessedAt time.Time // zero while pending
	Lines       []OrderLine
}

// OrderLine is one item of an order at the price it was sold for.
type OrderLine struct {
	ItemID     int64
	Name       string
	PriceCents int64
	Qty        int64
}

// TotalCents is the line's price times its quantity.
func (l OrderLine) TotalCents() int64 { return l.PriceCents * l.Qty }

// Orders returns one page of a shopper's orders, newest first, without
// their lines, and how many orders the shopper has in all.
func (s *Store) Orders(ctx context.Context, userID int64, limit, offset int) ([]Order, int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE user_id = $1`, userID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("orders: %w", err)
	}
	if offset >= total {
		return nil, total, nil
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT o.id, o.status, o.total_cents, o.created_at, o.processed_at, COALESCE(SUM(l.qty), 0)
		FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id
		WHERE o.user_id = $1
		GROUP BY o.id, o.status, o.total_cents, o.created_at, o.processed_at
		ORDER BY o.id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("orders: %w", err)
	}
	defer rows.Close()
	var out []Order
	for rows.Next() {
		o := Order{UserID: userID}
		var created int64
		var processed sql.NullInt64
		if err := rows.Scan(&o.ID, &o.Status, &o.TotalCents, &created, &processed, &o.ItemCount); err != nil {
			return nil, 0, fmt.Errorf("orders: %w", err)
		}
		o.CreatedAt, o.ProcessedAt = unixTime(created), unixTime(processed.Int64)
		out = append(out, o)
	}
	return out, total, rows.Err()
}

// Order reads one of a shopper's orders with its lines. Another shopper's
// order is ErrNotFound, exactly like one that does not exist.
func (s *Store) Order(ctx context.Context, userID, id int64) (Order, error) {
	o := Order{ID: id, UserID: userID}
	var created int64
	var processed sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT status, total_cents, created_at, processed_at FROM orders WHERE id = $1 AND user_id = $2`,
		id, userID).Scan(&o.Status, &o.TotalCents, &created, &processed)
	if errors.Is(err, sql.ErrNoRows) {
		return Order{}, ErrNotFound
	}
	if err != nil {
		return Order{}, fmt.Errorf("order %d: %w", id, err)
	}
	o.CreatedAt, o.ProcessedAt = unixTime(created), unixTime(processed.Int64)
	rows, err := s.db.QueryContext(ctx, `SELECT item_id, name, price_cents, qty FROM order_lines WHERE order_id = $1 ORDER BY item_id`, id)
	if err != nil {
		return Order{}, fmt.Errorf("order %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var l OrderLine
		if err := rows.Scan(&l.ItemID, &l.Name, &l.PriceCents, &l.Qty); err != nil {
			return Order{}, fmt.Errorf("order %d: %w", id, err)
		}
		o.Lines = append(o.Lines, l)
		o.ItemCount += l.Qty
	}
	return o, rows.Err()
}

// unixTime is t seconds after the epoch, or the zero time for 0.
func unixTime(t int64) time.Time {
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(t, 0)
}
