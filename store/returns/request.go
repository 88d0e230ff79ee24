package returns

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"storefront/store/orders"
	"storefront/store/platform"
)

// Request is a shopper's ask to return some of an order.
type Request struct {
	OrderID int64
	UserID  int64 // the shopper; another's order is platform.ErrNotFound
	// Guest asks for a guest's order (UserID 0), reached through its
	// signed link: the caller checked the link; a member's order is
	// platform.ErrNotFound.
	Guest  bool
	Qty    map[LineKey]int64 // how many of each order line
	Reason string
}

// Ask records a return request in one transaction: the order locked, the
// checks (the shopper's, delivered, within the window, each line in the
// order and no more than bought less what returns not rejected hold), the
// return and its lines, and the OnStepTx listeners' writes. A refused
// request is one of the Err* refusals (or platform.ErrNotFound) and
// changes nothing.
func (s *Service) Ask(ctx context.Context, req Request) (Return, error) {
	if req.Guest {
		req.UserID = orders.GuestUserID
	} else if req.UserID <= 0 {
		return Return{}, platform.ErrNotFound
	}
	if len(req.Qty) == 0 {
		return Return{}, ErrNoLines
	}
	for _, q := range req.Qty {
		if q <= 0 {
			return Return{}, ErrQty
		}
	}
	if !CheckReason(req.Reason) {
		return Return{}, ErrReason
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Return{}, fmt.Errorf("return order %d: %w", req.OrderID, err)
	}
	defer tx.Rollback()
	st, err := s.lockOrder(ctx, tx, req.OrderID)
	if err != nil {
		return Return{}, err
	}
	if st.Return.UserID != req.UserID {
		return Return{}, platform.ErrNotFound
	}
	if st.status != orders.OrderDelivered {
		return Return{}, ErrNotDelivered
	}
	now := s.clock.Now()
	var delivered sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(at) FROM order_events WHERE order_id = $1 AND status = $2`,
		req.OrderID, orders.OrderDelivered).Scan(&delivered); err != nil {
		return Return{}, fmt.Errorf("return order %d: %w", req.OrderID, err)
	}
	if !delivered.Valid || now.After(time.Unix(delivered.Int64, 0).Add(s.opt.Window)) {
		return Return{}, ErrWindowOver
	}
	left, err := returnable(ctx, tx, req.OrderID)
	if err != nil {
		return Return{}, err
	}
	r := Return{OrderID: req.OrderID, UserID: st.Return.UserID, Status: Requested, Reason: strings.TrimSpace(req.Reason),
		CreatedAt: time.Unix(now.Unix(), 0)}
	r.UpdatedAt = r.CreatedAt
	for key, q := range req.Qty {
		l, ok := left[key]
		if !ok {
			return Return{}, ErrUnknownLine
		}
		if q > l.Qty {
			return Return{}, ErrTooMany
		}
		r.Lines = append(r.Lines, Line{ItemID: key.ItemID, VariantID: key.VariantID, Name: l.Name, Qty: q, PriceCents: l.PriceCents, SKU: l.SKU, Variant: l.Variant})
	}
	// Item then variant order: the checkout's lock order for the restock.
	sort.Slice(r.Lines, func(i, j int) bool {
		a, b := r.Lines[i], r.Lines[j]
		return a.ItemID < b.ItemID || (a.ItemID == b.ItemID && a.VariantID < b.VariantID)
	})
	if err := tx.QueryRowContext(ctx, `INSERT INTO returns (order_id, status, reason, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $4) RETURNING id`, r.OrderID, r.Status, r.Reason, now.Unix()).Scan(&r.ID); err != nil {
		return Return{}, fmt.Errorf("return order %d: %w", req.OrderID, err)
	}
	for _, l := range r.Lines {
		if _, err := tx.ExecContext(ctx, `INSERT INTO return_lines (return_id, item_id, variant_id, qty, price_cents) VALUES ($1, $2, $3, $4, $5)`,
			r.ID, l.ItemID, l.VariantID, l.Qty, l.PriceCents); err != nil {
			return Return{}, fmt.Errorf("return order %d: %w", req.OrderID, err)
		}
	}
	if err := s.stepInTx(ctx, tx, Step{Return: r, Email: st.Email, Payment: st.Payment}); err != nil {
		return Return{}, err
	}
	if err := tx.Commit(); err != nil {
		return Return{}, fmt.Errorf("return order %d: commit: %w", req.OrderID, err)
	}
	return r, nil
}

// Returnable is what is left to return of each line of an order: bought
// less what returns not rejected hold. Lines with nothing left
// are kept, with Qty 0.
func (s *Service) Returnable(ctx context.Context, orderID int64) (map[LineKey]Line, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: s.kind == platform.DBPostgres})
	if err != nil {
		return nil, fmt.Errorf("returnable %d: %w", orderID, err)
	}
	defer tx.Rollback()
	return returnable(ctx, tx, orderID)
}

func returnable(ctx context.Context, tx *sql.Tx, orderID int64) (map[LineKey]Line, error) {
	rows, err := tx.QueryContext(ctx, `SELECT item_id, variant_id, name, price_cents, qty, sku, variant FROM order_lines WHERE order_id = $1`, orderID)
	if err != nil {
		return nil, fmt.Errorf("returnable %d: %w", orderID, err)
	}
	left := map[LineKey]Line{}
	for rows.Next() {
		var l Line
		if err := rows.Scan(&l.ItemID, &l.VariantID, &l.Name, &l.PriceCents, &l.Qty, &l.SKU, &l.Variant); err != nil {
			rows.Close()
			return nil, fmt.Errorf("returnable %d: %w", orderID, err)
		}
		left[l.Key()] = l
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("returnable %d: %w", orderID, err)
	}
	rows, err = tx.QueryContext(ctx, `SELECT rl.item_id, rl.variant_id, SUM(rl.qty) FROM return_lines rl JOIN returns r ON r.id = rl.return_id
		WHERE r.order_id = $1 AND r.status <> $2 GROUP BY rl.item_id, rl.variant_id`, orderID, Rejected)
	if err != nil {
		return nil, fmt.Errorf("returnable %d: %w", orderID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var key LineKey
		var qty int64
		if err := rows.Scan(&key.ItemID, &key.VariantID, &qty); err != nil {
			return nil, fmt.Errorf("returnable %d: %w", orderID, err)
		}
		if l, ok := left[key]; ok {
			l.Qty = max(l.Qty-qty, 0)
			left[key] = l
		}
	}
	return left, rows.Err()
}

// lockedOrder is what a step reads of the order it locked.
type lockedOrder struct {
	Step
	status string
}

// lockOrder reads an order's owner, status, guest email and payment
// method, locking its
// row on PostgreSQL until the transaction ends (SQLite's transactions
// hold the write lock from BEGIN), so that steps on one order's returns
// run one after the other.
func (s *Service) lockOrder(ctx context.Context, tx *sql.Tx, orderID int64) (lockedOrder, error) {
	q := `SELECT user_id, status, email, payment_method FROM orders WHERE id = $1`
	if s.kind == platform.DBPostgres {
		q += ` FOR UPDATE`
	}
	var st lockedOrder
	err := tx.QueryRowContext(ctx, q, orderID).Scan(&st.Return.UserID, &st.status, &st.Email, &st.Payment)
	if err != nil {
		return lockedOrder{}, fmt.Errorf("order %d: %w", orderID, errNoRows(err))
	}
	return st, nil
}
