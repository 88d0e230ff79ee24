package returns

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"storefront/store/audit"
	"storefront/store/catalog"
	"storefront/store/platform"
)

// moves are the admin's actions: the status each needs and the one it
// leads to. A refund passes through Refunding (see refund).
var moves = map[string]struct{ from, to string }{
	ActApprove: {Requested, Approved},
	ActReject:  {Requested, Rejected},
	ActReceive: {Approved, Received},
	ActRefund:  {Received, Refunding},
}

// Act takes the admin's action on return id: approve, reject, receive
// (with restock, the returned quantities go back on sale in the same
// transaction), refund (see refund) or retry_refund (see RetryRefund). A
// wrong action for the return's status is a *MoveError, an unknown action
// platform.ErrInvalid, a missing return platform.ErrNotFound; each
// changes nothing.
func (s *Service) Act(ctx context.Context, id int64, action string, restock bool, actor string) (Return, error) {
	if action == ActRetryRefund {
		return s.RetryRefund(ctx, id, actor)
	}
	m, ok := moves[action]
	if !ok {
		return Return{}, fmt.Errorf("%w: unknown action %q", platform.ErrInvalid, action)
	}
	if action == ActRefund {
		return s.refund(ctx, id, actor)
	}
	restock = restock && action == ActReceive
	items, err := s.move(ctx, id, step{action: action, from: m.from, to: m.to, restock: restock, tell: true})
	if err != nil {
		return Return{}, err
	}
	if len(items) > 0 {
		ctx = context.WithoutCancel(ctx) // committed: announce the stock
		if err := s.catalog.Changed(ctx, catalog.Change{IDs: items, Search: true}); err != nil {
			s.log.Error("return received: item change", "return", id, "err", err)
		}
	}
	return s.Get(ctx, id)
}

// step is one move of a return.
type step struct {
	action, from, to string
	restock          bool   // put the returned quantities back on sale
	note             string // how the refund was settled by hand
	tell             bool   // the OnStepTx listeners write (the email)
}

// move moves return id in one transaction (moveTx) and returns the items
// whose stock went back.
func (s *Service) move(ctx context.Context, id int64, st step) ([]int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("return %d: %w", id, err)
	}
	defer tx.Rollback()
	items, err := s.moveTx(ctx, tx, id, st)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("return %d: commit: %w", id, err)
	}
	return items, nil
}

// moveTx moves return id from st.from to st.to inside tx: the order row
// locked, one conditional update on from (so of two racing steps one
// applies), the stock back when restock, the note, and, when tell, the
// OnStepTx listeners' writes. It returns the items whose stock went back.
func (s *Service) moveTx(ctx context.Context, tx *sql.Tx, id int64, st step) ([]int64, error) {
	var orderID int64
	if err := tx.QueryRowContext(ctx, `SELECT order_id FROM returns WHERE id = $1`, id).Scan(&orderID); err != nil {
		return nil, fmt.Errorf("return %d: %w", id, errNoRows(err))
	}
	locked, err := s.lockOrder(ctx, tx, orderID)
	if err != nil {
		return nil, err
	}
	if err := s.setStatusTx(ctx, tx, id, st.action, st.from, st.to, boolInt(st.restock)); err != nil {
		return nil, err
	}
	if st.note != "" {
		if _, err := tx.ExecContext(ctx, `UPDATE returns SET note = $1 WHERE id = $2`, st.note, id); err != nil {
			return nil, fmt.Errorf("return %d: %w", id, err)
		}
	}
	r, err := readReturnTx(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	r.UserID = locked.Return.UserID
	var items []int64
	if st.restock {
		for _, l := range r.Lines { // item id order: the checkout's lock order
			if err := catalog.PutBackStock(ctx, tx, l.ItemID, l.VariantID, l.Qty); err != nil {
				return nil, fmt.Errorf("return %d: restock: %w", id, err)
			}
			items = append(items, l.ItemID)
		}
	}
	if st.tell {
		if err := s.stepInTx(ctx, tx, Step{Return: r, Email: locked.Email, Payment: locked.Payment}); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// setStatusTx is a step's conditional update: from to to, or a *MoveError
// naming the status the return has.
func (s *Service) setStatusTx(ctx context.Context, tx *sql.Tx, id int64, action, from, to string, restocked int) error {
	res, err := tx.ExecContext(ctx, `UPDATE returns SET status = $1, updated_at = $2, restocked = restocked + $3
		WHERE id = $4 AND status = $5`, to, s.clock.Now().Unix(), restocked, id, from)
	if err != nil {
		return fmt.Errorf("return %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("return %d: %w", id, err)
	} else if n == 0 {
		var cur string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM returns WHERE id = $1`, id).Scan(&cur); err != nil {
			return fmt.Errorf("return %d: %w", id, errNoRows(err))
		}
		return &MoveError{From: cur, Action: action}
	}
	after := audit.Fields{"status": to}
	if restocked > 0 {
		after["restocked"] = true
	}
	return audit.Record(ctx, tx, audit.Entry{Kind: "return." + action, Target: "return " + strconv.FormatInt(id, 10),
		Before: audit.Fields{"status": from}, After: after})
}

func readReturnTx(ctx context.Context, tx *sql.Tx, id int64) (Return, error) {
	r := Return{ID: id}
	var restocked, created, updated int64
	if err := tx.QueryRowContext(ctx, `SELECT order_id, status, reason, refund_cents, note, restocked, created_at, updated_at FROM returns WHERE id = $1`, id).
		Scan(&r.OrderID, &r.Status, &r.Reason, &r.RefundCents, &r.Note, &restocked, &created, &updated); err != nil {
		return Return{}, fmt.Errorf("return %d: %w", id, errNoRows(err))
	}
	r.Restocked, r.CreatedAt, r.UpdatedAt = restocked != 0, time.Unix(created, 0), time.Unix(updated, 0)
	rows, err := tx.QueryContext(ctx, `SELECT rl.item_id, rl.variant_id, COALESCE(ol.name, ''), rl.qty, rl.price_cents,
		COALESCE(ol.sku, ''), COALESCE(ol.variant, '') FROM return_lines rl
		LEFT JOIN order_lines ol ON ol.order_id = $1 AND ol.item_id = rl.item_id AND ol.variant_id = rl.variant_id
		WHERE rl.return_id = $2 ORDER BY rl.item_id, rl.variant_id`, r.OrderID, id)
	if err != nil {
		return Return{}, fmt.Errorf("return %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var l Line
		if err := rows.Scan(&l.ItemID, &l.VariantID, &l.Name, &l.Qty, &l.PriceCents, &l.SKU, &l.Variant); err != nil {
			return Return{}, fmt.Errorf("return %d: %w", id, err)
		}
		r.Lines = append(r.Lines, l)
	}
	return r, rows.Err()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
