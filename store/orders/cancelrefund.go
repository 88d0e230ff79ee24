package orders

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"storefront/store/audit"
)

// Charged is what an order that was in status from has been charged: what
// a payment provider confirmed, or, for a method paid outside the shop,
// its total once it was marked paid. A cancel owes this back, less what
// was refunded already.
func Charged(from string, paidCents, totalCents int64) int64 {
	switch {
	case paidCents > 0:
		return paidCents
	case from == OrderPaid:
		return totalCents
	}
	return 0
}

// refundOnCancelTx takes, inside the cancel's transaction, the refund of
// what order id was charged and not yet given back: the amount added to
// refunded_cents and the refund's row, owed to the order's payment method
// and claimed by this request. Nothing when nothing is owed; a charged
// order whose method is not offered here is ErrNoRefundMethod.
func (s *Service) refundOnCancelTx(ctx context.Context, tx *sql.Tx, id int64, from, actor string) (Refund, error) {
	var method string
	var paid, refunded, total int64
	if err := tx.QueryRowContext(ctx, `SELECT payment_method, paid_cents, refunded_cents, total_cents FROM orders WHERE id = $1`, id).
		Scan(&method, &paid, &refunded, &total); err != nil {
		return Refund{}, fmt.Errorf("cancel order %d: %w", id, err)
	}
	owed := Charged(from, paid, total) - refunded
	if owed <= 0 {
		return Refund{}, nil
	}
	if _, ok := s.PaymentByCode(method); !ok {
		return Refund{}, fmt.Errorf("cancel order %d (%q): %w", id, method, ErrNoRefundMethod)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE orders SET refunded_cents = refunded_cents + $1 WHERE id = $2`, owed, id); err != nil {
		return Refund{}, fmt.Errorf("cancel order %d: %w", id, err)
	}
	r := Refund{OrderID: id, Cents: owed, Reason: ReasonCancel, Actor: actor}
	if err := s.insertRefundTx(ctx, tx, &r); err != nil {
		return Refund{}, err
	}
	if err := audit.Record(ctx, tx, audit.Entry{Kind: "refund", Target: "order " + strconv.FormatInt(id, 10),
		Before: audit.Fields{"refunded_cents": refunded},
		After:  audit.Fields{"refunded_cents": refunded + owed, "refund_cents": owed, "reason": ReasonCancel, "by_hand": false}}); err != nil {
		return Refund{}, err
	}
	return r, nil
}

// refundNow asks for refund r, just written owed and claimed by this
// request, within ctx's deadline; a refund not given back now stays owed
// for the refunds worker, and failures are logged.
func (s *Service) refundNow(ctx context.Context, r Refund) {
	o, err := s.OrderAny(ctx, r.OrderID)
	if err != nil {
		s.log.Error("refund: reading the order", "order", r.OrderID, "refund", r.ID, "err", s.unclaim(ctx, r, err))
		return
	}
	code := r.Method
	if code == "" {
		code = o.Payment
	}
	p, ok := s.PaymentByCode(code)
	if !ok {
		s.log.Error("refund: no such payment method", "order", r.OrderID, "refund", r.ID,
			"err", s.unclaim(ctx, r, fmt.Errorf("%q: %w", code, ErrUnknownPayment)))
		return
	}
	if _, err := s.attempt(ctx, o, p, r, false); err != nil {
		s.log.Error("refund", "order", r.OrderID, "refund", r.ID, "err", err)
	}
}
