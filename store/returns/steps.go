package returns

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"storefront/store/catalog"
	"storefront/store/platform"
	"storefront/store/pricing"
)

// moves are the admin's actions: the status each needs and the one it
// leads to. A refund passes through Refunding (see Refund).
var moves = map[string]struct{ from, to string }{
	ActApprove: {Requested, Approved},
	ActReject:  {Requested, Rejected},
	ActReceive: {Approved, Received},
	ActRefund:  {Received, Refunding},
}

// Act takes the admin's action on return id: approve, reject, receive
// (with restock, the returned quantities go back on sale in the same
// transaction) or refund (see Refund). A wrong action for the return's
// status is a *MoveError, an unknown action platform.ErrInvalid, a
// missing return platform.ErrNotFound; each changes nothing.
func (s *Service) Act(ctx context.Context, id int64, action string, restock bool, actor string) (Return, error) {
	m, ok := moves[action]
	if !ok {
		return Return{}, fmt.Errorf("%w: unknown action %q", platform.ErrInvalid, action)
	}
	if action == ActRefund {
		return s.refund(ctx, id, actor)
	}
	restock = restock && action == ActReceive
	items, err := s.move(ctx, id, action, m.from, m.to, restock, 0, true)
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

// move moves return id from from to to in one transaction: the order row
// locked, one conditional update on from (so of two racing steps one
// applies), the stock back when restock, refundCents recorded for a
// refund, and, when tell, the OnStepTx listeners' writes. It returns the
// items whose stock went back.
func (s *Service) move(ctx context.Context, id int64, action, from, to string, restock bool, refundCents int64, tell bool) ([]int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("return %d: %w", id, err)
	}
	defer tx.Rollback()
	var orderID int64
	if err := tx.QueryRowContext(ctx, `SELECT order_id FROM returns WHERE id = $1`, id).Scan(&orderID); err != nil {
		return nil, fmt.Errorf("return %d: %w", id, errNoRows(err))
	}
	st, err := s.lockOrder(ctx, tx, orderID)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now().Unix()
	res, err := tx.ExecContext(ctx, `UPDATE returns SET status = $1, updated_at = $2, restocked = restocked + $3, refund_cents = refund_cents + $4
		WHERE id = $5 AND status = $6`, to, now, boolInt(restock), refundCents, id, from)
	if err != nil {
		return nil, fmt.Errorf("return %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, fmt.Errorf("return %d: %w", id, err)
	} else if n == 0 {
		var cur string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM returns WHERE id = $1`, id).Scan(&cur); err != nil {
			return nil, fmt.Errorf("return %d: %w", id, err)
		}
		return nil, &MoveError{From: cur, Action: action}
	}
	r, err := readReturnTx(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	r.UserID = st.Return.UserID
	var items []int64
	if restock {
		for _, l := range r.Lines { // item id order: the checkout's lock order
			if err := catalog.PutBackStock(ctx, tx, l.ItemID, l.VariantID, l.Qty); err != nil {
				return nil, fmt.Errorf("return %d: restock: %w", id, err)
			}
			items = append(items, l.ItemID)
		}
	}
	if tell {
		if err := s.stepInTx(ctx, tx, Step{Return: r, Email: st.Email}); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("return %d: commit: %w", id, err)
	}
	return items, nil
}

// refund gives a received return's money back: the return is held as
// refunding by one conditional update (a second refund finds it so and
// is a *MoveError), the payment method refunds RefundCents, and the return
// becomes refunded with its email in one transaction. If the method
// refuses (orders.ErrRefundTooLarge among others), the return goes back to
// received and the error is returned.
func (s *Service) refund(ctx context.Context, id int64, actor string) (Return, error) {
	if _, err := s.move(ctx, id, ActRefund, Received, Refunding, false, 0, false); err != nil {
		return Return{}, err
	}
	ctx = context.WithoutCancel(ctx) // the return is held: settle it whatever the client does
	r, err := s.Get(ctx, id)
	if err != nil {
		return Return{}, s.unhold(ctx, id, err)
	}
	cents, err := s.RefundCents(ctx, r)
	if err != nil {
		return Return{}, s.unhold(ctx, id, err)
	}
	if cents <= 0 {
		return Return{}, s.unhold(ctx, id, fmt.Errorf("%w: nothing to refund", platform.ErrInvalid))
	}
	if _, err := s.refunder.RefundOrder(ctx, r.OrderID, cents, actor); err != nil {
		return Return{}, s.unhold(ctx, id, err)
	}
	if _, err := s.move(ctx, id, ActRefund, Refunding, Refunded, false, cents, true); err != nil {
		// The money went back: the return stays refunding for the admin to see.
		s.log.Error("return refunded, and marking it so failed", "return", id, "cents", cents, "err", err)
		return Return{}, err
	}
	return s.Get(ctx, id)
}

// unhold puts a return held for a refund back to received and returns
// cause.
func (s *Service) unhold(ctx context.Context, id int64, cause error) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE returns SET status = $1, updated_at = $2 WHERE id = $3 AND status = $4`,
		Received, s.clock.Now().Unix(), id, Refunding); err != nil {
		s.log.Error("refund failed, and releasing the return failed", "return", id, "err", err)
	}
	return cause
}

// RefundCents is what refunding r gives back: its goods (price paid times
// quantity) less their share of the order's discount, plus their share of
// the tax when it was added on top of the prices. Rounded down, so the
// returns of a whole order never exceed what it charged for its goods.
func (s *Service) RefundCents(ctx context.Context, r Return) (int64, error) {
	var subtotal, discount, tax int64
	var mode string
	if err := s.db.QueryRowContext(ctx, `SELECT subtotal_cents, discount_cents, tax_cents, tax_mode FROM orders WHERE id = $1`, r.OrderID).
		Scan(&subtotal, &discount, &tax, &mode); err != nil {
		return 0, fmt.Errorf("return %d: %w", r.ID, errNoRows(err))
	}
	return refundShare(r.GoodsCents(), subtotal, discount, tax, mode == pricing.TaxAdded), nil
}

// refundShare is goods' share of what the order charged for its goods:
// goods x (subtotal - discount + added tax) / subtotal, rounded down.
func refundShare(goods, subtotal, discount, tax int64, taxAdded bool) int64 {
	if subtotal <= 0 {
		return goods
	}
	charged := subtotal - discount
	if taxAdded {
		charged += tax
	}
	return goods * charged / subtotal
}

func readReturnTx(ctx context.Context, tx *sql.Tx, id int64) (Return, error) {
	r := Return{ID: id}
	var restocked, created, updated int64
	if err := tx.QueryRowContext(ctx, `SELECT order_id, status, reason, refund_cents, restocked, created_at, updated_at FROM returns WHERE id = $1`, id).
		Scan(&r.OrderID, &r.Status, &r.Reason, &r.RefundCents, &restocked, &created, &updated); err != nil {
		return Return{}, fmt.Errorf("return %d: %w", id, errNoRows(err))
	}
	r.Restocked, r.CreatedAt, r.UpdatedAt = restocked != 0, time.Unix(created, 0), time.Unix(updated, 0)
	rows, err := tx.QueryContext(ctx, `SELECT rl.item_id, rl.variant_id, COALESCE(ol.name, ''), rl.qty, rl.price_cents FROM return_lines rl
		LEFT JOIN order_lines ol ON ol.order_id = $1 AND ol.item_id = rl.item_id AND ol.variant_id = rl.variant_id
		WHERE rl.return_id = $2 ORDER BY rl.item_id, rl.variant_id`, r.OrderID, id)
	if err != nil {
		return Return{}, fmt.Errorf("return %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var l Line
		if err := rows.Scan(&l.ItemID, &l.VariantID, &l.Name, &l.Qty, &l.PriceCents); err != nil {
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
