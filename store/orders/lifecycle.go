package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"storefront/store/audit"
	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/platform"
	"storefront/store/pricing"
)

// Order statuses after processing. An order moves forward along
// OrderPath; it may be cancelled until it ships.
const (
	OrderPaid      = "paid"      // payment received
	OrderShipped   = "shipped"   // handed to the carrier
	OrderDelivered = "delivered" // arrived
	OrderCancelled = "cancelled" // stopped; its stock went back on sale
)

// OrderPath is the order lifecycle in order. Cancelled sits outside it.
var OrderPath = []string{OrderPending, OrderProcessed, OrderPaid, OrderShipped, OrderDelivered}

// IsOrderStatus reports whether s is a status an order can have.
func IsOrderStatus(s string) bool {
	return s == OrderCancelled || s == OrderAwaitingPayment || slices.Contains(OrderPath, s)
}

// CanMoveOrder reports whether an order in status from may move to to:
// forward along OrderPath (a step may be skipped: cash on delivery is paid
// after it ships), or to cancelled before it ships. An order awaiting
// payment sits before the path: only its provider's confirmation makes it
// paid (ConfirmPayment), so here it may only be cancelled.
func CanMoveOrder(from, to string) bool {
	if to == OrderCancelled {
		return from == OrderAwaitingPayment || from == OrderPending || from == OrderProcessed || from == OrderPaid
	}
	if from == OrderAwaitingPayment {
		return false
	}
	fi, ti := slices.Index(OrderPath, from), slices.Index(OrderPath, to)
	return fi >= 0 && ti > fi
}

// ErrBalanceDue means an order cannot ship (or be marked delivered)
// while the shopper has not paid the difference an edit asked for.
// Nothing changed.
var ErrBalanceDue = fmt.Errorf("%w: the order waits for the shopper to pay the difference of its edit", platform.ErrInvalid)

// MoveError means an order cannot move from its status to the one asked:
// a backward move, a move out of cancelled or delivered, a cancel after
// shipping, or another move that got there first. Nothing changed.
type MoveError struct {
	From, To string
	Raced    bool // the order changed between the read and the update
}

func (e *MoveError) Error() string {
	return fmt.Sprintf("order cannot move from %s to %s", e.From, e.To)
}

// OrderEvent is one step of an order's timeline.
type OrderEvent struct {
	Status string
	Actor  string // "shopper", "fulfilment" or "admin:<name>"
	At     time.Time
}

// Actors of order events.
const (
	ActorShopper    = "shopper"
	ActorFulfilment = "fulfilment"
)

// AdminActor names an admin in an order's timeline.
func AdminActor(name string) string { return "admin:" + name }

// MoveOrder moves order id to status to, in one transaction: a
// conditional update on the status it read (so of two concurrent moves
// exactly one applies; the other gets a *MoveError), the timeline entry,
// and for a cancel the stock back on every line. ownerID > 0 limits the
// move to that shopper's order (another's is platform.ErrNotFound). A
// cancel also gives back the discount code's use the order took, and
// takes a refund of what the order was charged and not yet given back,
// owed to its payment method, in the same transaction: no order is
// cancelled and kept charged. A charged order whose method is not offered
// any more cannot be refunded, so its cancel is refused (ErrNoRefundMethod)
// and changes nothing. After the commit the refund is asked of the
// provider (one not given back at once stays owed, for the refunds
// worker), the OnStatus listeners hear of the move (the shopper is
// notified) and, for a cancel, the items' change is announced (their
// stock changed).
func (s *Service) MoveOrder(ctx context.Context, id, ownerID int64, to, actor string) (Order, error) {
	return s.moveOrder(ctx, id, ownerID, "", to, actor, "")
}

// moved is what a committed move did.
type moved struct {
	userID int64
	items  []int64 // a cancel's items, whose stock went back
	refund Refund  // a cancel's refund of the payment, owed (ID 0: none)
}

// moveOrder is MoveOrder; a non-empty from is the one status the order
// may move from (the payment hold cancels only an order still awaiting
// payment, never one paid since it looked), and tracking is the carrier's
// number a move to shipped records.
func (s *Service) moveOrder(ctx context.Context, id, ownerID int64, from, to, actor, tracking string) (Order, error) {
	if !IsOrderStatus(to) {
		return Order{}, platform.ErrInvalid
	}
	m, err := s.moveOrderTx(ctx, id, ownerID, from, to, actor, tracking)
	// A move that lost the race to another one is tried again while the
	// order's new status still allows it: an admin marking a new order
	// delivered must not fail because fulfilment processed it meanwhile.
	// Two moves to the same status, or a cancel and a shipping, still
	// leave exactly one applied: the loser's retry sees it can no longer move.
	for tries := 0; tries < 3 && from == "" && lostRace(err, to); tries++ {
		m, err = s.moveOrderTx(ctx, id, ownerID, from, to, actor, tracking)
	}
	if err != nil {
		return Order{}, err
	}
	if m.refund.ID != 0 {
		s.refundNow(ctx, m.refund) // bounded by ctx's deadline; what is left stays owed
	}
	ctx = context.WithoutCancel(ctx) // the move is committed: finish the rest
	s.statusChanged(ctx, m.userID, id, to)
	if to == OrderCancelled && len(m.items) > 0 {
		// Stock back: an item may be in stock again.
		if err := s.catalog.Changed(ctx, catalog.Change{IDs: m.items, Search: true}); err != nil {
			s.log.Error("order cancelled: item change", "order", id, "err", err)
		}
	}
	return s.OrderAny(ctx, id)
}

// lostRace reports whether err says another move changed the order
// between the read and the update, to a status that may still move to to.
func lostRace(err error, to string) bool {
	var me *MoveError
	return errors.As(err, &me) && me.Raced && CanMoveOrder(me.From, to)
}

// moveOrderTx is MoveOrder's transaction.
func (s *Service) moveOrderTx(ctx context.Context, id, ownerID int64, want, to, actor, tracking string) (moved, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return moved{}, fmt.Errorf("move order %d: %w", id, err)
	}
	defer tx.Rollback()
	var m moved
	var from string
	var due int64
	err = tx.QueryRowContext(ctx, `SELECT user_id, status, due_cents FROM orders WHERE id = $1`, id).Scan(&m.userID, &from, &due)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && ownerID > 0 && m.userID != ownerID) {
		return moved{}, platform.ErrNotFound
	}
	if err != nil {
		return moved{}, fmt.Errorf("move order %d: %w", id, err)
	}
	if !CanMoveOrder(from, to) || (want != "" && from != want) {
		return moved{}, &MoveError{From: from, To: to}
	}
	// An order waits for the difference an edit asked for before it goes.
	waits := ""
	if to == OrderShipped || to == OrderDelivered {
		if due > 0 {
			return moved{}, ErrBalanceDue
		}
		waits = ` AND due_cents = 0`
	}
	res, err := tx.ExecContext(ctx, `UPDATE orders SET status = $1 WHERE id = $2 AND status = $3`+waits, to, id, from)
	if err != nil {
		return moved{}, fmt.Errorf("move order %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return moved{}, fmt.Errorf("move order %d: %w", id, err)
	} else if n == 0 {
		// Another move committed between our read and our update (on
		// PostgreSQL the update waited for it and then saw the new
		// status): it won, this one changes nothing.
		_ = tx.QueryRowContext(ctx, `SELECT status FROM orders WHERE id = $1`, id).Scan(&from)
		return moved{}, &MoveError{From: from, To: to, Raced: true}
	}
	if to == OrderCancelled {
		// The order's row is ours now (the update locked it): what it was
		// paid and refunded cannot change under the refund taken here.
		if m.refund, err = s.refundOnCancelTx(ctx, tx, id, from, actor); err != nil {
			return moved{}, err
		}
		if m.items, err = restock(ctx, tx, id); err != nil {
			return moved{}, err
		}
		// After the stock rows, as the checkout takes them.
		if err := pricing.GiveBack(ctx, tx, id); err != nil {
			return moved{}, err
		}
	}
	if err := insertOrderEvent(ctx, tx, id, to, actor, s.clock.Now().Unix()); err != nil {
		return moved{}, err
	}
	after := audit.Fields{"status": to}
	if tracking != "" {
		after["tracking"] = tracking
	}
	if m.refund.Cents > 0 {
		after["refund_cents"] = m.refund.Cents
	}
	if err := audit.Record(ctx, tx, audit.Entry{Kind: "order.status", Target: "order " + strconv.FormatInt(id, 10),
		Before: audit.Fields{"status": from}, After: after}); err != nil {
		return moved{}, err
	}
	if err := s.afterMoveTx(ctx, tx, StatusChange{OrderID: id, UserID: m.userID, From: from, To: to, Tracking: tracking}); err != nil {
		return moved{}, err
	}
	if err := tx.Commit(); err != nil {
		return moved{}, fmt.Errorf("move order %d: commit: %w", id, err)
	}
	return m, nil
}

// restock puts a cancelled order's quantities back on sale, in item id
// then variant id order (the checkout's lock order, so the two cannot deadlock on
// PostgreSQL), and returns the item ids.
func restock(ctx context.Context, tx *sql.Tx, orderID int64) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT item_id, variant_id, qty FROM order_lines WHERE order_id = $1 ORDER BY item_id, variant_id`, orderID)
	if err != nil {
		return nil, fmt.Errorf("restock order %d: %w", orderID, err)
	}
	var lines []cart.Line
	for rows.Next() {
		var l cart.Line
		if err := rows.Scan(&l.ItemID, &l.VariantID, &l.Qty); err != nil {
			rows.Close()
			return nil, fmt.Errorf("restock order %d: %w", orderID, err)
		}
		lines = append(lines, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("restock order %d: %w", orderID, err)
	}
	var ids []int64
	for _, l := range lines {
		if err := catalog.PutBackStock(ctx, tx, l.ItemID, l.VariantID, l.Qty); err != nil {
			return nil, fmt.Errorf("restock order %d: %w", orderID, err)
		}
		if len(ids) == 0 || ids[len(ids)-1] != l.ItemID {
			ids = append(ids, l.ItemID)
		}
	}
	return ids, nil
}

func insertOrderEvent(ctx context.Context, tx *sql.Tx, orderID int64, status, actor string, at int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO order_events (order_id, status, actor, at) VALUES ($1, $2, $3, $4)`,
		orderID, status, actor, at)
	if err != nil {
		return fmt.Errorf("order %d: timeline: %w", orderID, err)
	}
	return nil
}

// OrderEvents returns an order's timeline after it was placed, oldest first.
func (s *Service) OrderEvents(ctx context.Context, orderID int64) ([]OrderEvent, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT status, actor, at FROM order_events WHERE order_id = $1 ORDER BY id`, orderID)
	if err != nil {
		return nil, fmt.Errorf("order %d: timeline: %w", orderID, err)
	}
	defer rows.Close()
	var out []OrderEvent
	for rows.Next() {
		var e OrderEvent
		var at int64
		if err := rows.Scan(&e.Status, &e.Actor, &at); err != nil {
			return nil, fmt.Errorf("order %d: timeline: %w", orderID, err)
		}
		e.At = platform.UnixTime(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// AdminOrder is an order on the admin's list, with its shopper's name:
// its delivery address and method are read, not its lines or amounts
// beyond the total.
type AdminOrder struct {
	Order
	Username string
}

// AdminOrderQuery selects a page of the admin's order list.
type AdminOrderQuery struct {
	Status string // "" for every status
	// Q finds orders by number ("12" or "#12"), or by any part of the
	// account's name, the delivery name or the email, in any case.
	Q             string
	Limit, Offset int
	// BeforeID > 0 keeps only orders numbered below it (the CSV export
	// reads the list in batches this way, so an order placed meanwhile
	// shifts nothing).
	BeforeID int64
}

// where is the query's condition and its arguments, placeholders from $1.
func (q AdminOrderQuery) where() (string, []any) {
	var conds []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if q.Status != "" {
		conds = append(conds, "o.status = "+arg(q.Status))
	}
	if text := strings.TrimSpace(q.Q); text != "" {
		p := arg(platform.Contains(text))
		or := []string{`LOWER(o.ship_name) LIKE ` + p + ` ESCAPE '\'`, `LOWER(o.email) LIKE ` + p + ` ESCAPE '\'`,
			`(o.user_id <> ` + strconv.FormatInt(GuestUserID, 10) + ` AND LOWER(u.username) LIKE ` + p + ` ESCAPE '\')`}
		if id, err := strconv.ParseInt(strings.TrimPrefix(text, "#"), 10, 64); err == nil && id > 0 {
			or = append(or, "o.id = "+arg(id))
		}
		conds = append(conds, "("+strings.Join(or, " OR ")+")")
	}
	if q.BeforeID > 0 {
		conds = append(conds, "o.id < "+arg(q.BeforeID))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return "WHERE " + strings.Join(conds, " AND "), args
}

// AdminOrders returns one page of every shopper's orders, newest first,
// filtered by status and search, and how many match.
func (s *Service) AdminOrders(ctx context.Context, q AdminOrderQuery) ([]AdminOrder, int, error) {
	where, args := q.where()
	const from = `FROM orders o LEFT JOIN users u ON u.id = o.user_id `
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) `+from+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("admin orders: %w", err)
	}
	if q.Offset >= total {
		return nil, total, nil
	}
	n := len(args)
	args = append(args, q.Limit, q.Offset)
	rows, err := s.db.QueryContext(ctx, `
		SELECT o.id, o.user_id, COALESCE(u.username, ''), o.status, o.total_cents, o.created_at, o.email,
		       o.`+strings.ReplaceAll(shipColumns, ", ", ", o.")+`, o.shipping_method,
		       (SELECT COALESCE(SUM(l.qty), 0) FROM order_lines l WHERE l.order_id = o.id)
		`+from+where+`
		ORDER BY o.id DESC LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("admin orders: %w", err)
	}
	defer rows.Close()
	var out []AdminOrder
	for rows.Next() {
		var o AdminOrder
		var created int64
		dest := append([]any{&o.ID, &o.UserID, &o.Username, &o.Status, &o.TotalCents, &created, &o.Email}, o.Address.shipTo()...)
		if err := rows.Scan(append(dest, &o.Shipping, &o.ItemCount)...); err != nil {
			return nil, 0, fmt.Errorf("admin orders: %w", err)
		}
		o.CreatedAt = platform.UnixTime(created)
		out = append(out, o)
	}
	return out, total, rows.Err()
}
