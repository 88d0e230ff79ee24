package returns

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/pricing"
)

// ActRetryRefund asks again for the refund of a return stuck in
// refunding (its payment method could not give the money back yet).
const ActRetryRefund = "retry_refund"

// Refunder gives money back through an order's payment method and keeps
// the ledger of refunds (the orders).
type Refunder interface {
	IssueRefund(ctx context.Context, req orders.RefundRequest) (orders.Refund, error)
	RetryRefund(ctx context.Context, id int64) (orders.Refund, error)
	SettleRefundByHand(ctx context.Context, id int64, note, actor string) (orders.Refund, error)
	RefundFor(ctx context.Context, orderID int64, reason string) (orders.Refund, bool, error)
}

// refund gives a received return's money back. The return is held as
// refunding by one conditional update (a second refund finds it so and is
// a *MoveError), with its amount worked out in the same transaction (the
// order locked, so two returns of one order refunded at once share it
// out exactly); then the order's payment method refunds it, within ctx's
// deadline. When the money went back, the refund's own transaction moved
// the return to refunded with its email (RefundDone). When the method
// could not give it back yet, the refund is owed, retried by the orders'
// refunds worker, and the return stays refunding until it is done; when
// the provider refused it for good it stays refunding too, its refund
// failed: the admin tries again or settles it by hand (RetryRefund,
// SettleByHand). When the shop's own ledger refuses it (more than was
// paid), the return goes back to received and the error is returned.
func (s *Service) refund(ctx context.Context, id int64, actor string) (Return, error) {
	r, err := s.hold(ctx, id)
	if err != nil {
		return Return{}, err
	}
	_, err = s.refunder.IssueRefund(ctx, orders.RefundRequest{OrderID: r.OrderID, Cents: r.RefundCents, Actor: actor,
		Reason: orders.ReturnReason(id), KeepRefused: true})
	ctx = context.WithoutCancel(ctx) // the return is held: settle it whatever the client does
	if err != nil {
		return Return{}, s.unhold(ctx, id, err)
	}
	return s.Get(ctx, id)
}

// hold moves return id from received to refunding and records what its
// refund gives back, in one transaction with the order locked.
func (s *Service) hold(ctx context.Context, id int64) (Return, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Return{}, fmt.Errorf("return %d: %w", id, err)
	}
	defer tx.Rollback()
	var orderID int64
	if err := tx.QueryRowContext(ctx, `SELECT order_id FROM returns WHERE id = $1`, id).Scan(&orderID); err != nil {
		return Return{}, fmt.Errorf("return %d: %w", id, errNoRows(err))
	}
	if _, err := s.lockOrder(ctx, tx, orderID); err != nil {
		return Return{}, err
	}
	if err := s.setStatusTx(ctx, tx, id, ActRefund, Received, Refunding, 0); err != nil {
		return Return{}, err
	}
	r, err := readReturnTx(ctx, tx, id)
	if err != nil {
		return Return{}, err
	}
	if r.RefundCents, err = refundAmount(ctx, tx, r); err != nil {
		return Return{}, err
	}
	if r.RefundCents <= 0 {
		return Return{}, fmt.Errorf("%w: nothing to refund", platform.ErrInvalid)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE returns SET refund_cents = $1 WHERE id = $2`, r.RefundCents, id); err != nil {
		return Return{}, fmt.Errorf("return %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return Return{}, fmt.Errorf("return %d: commit: %w", id, err)
	}
	return r, nil
}

// unhold puts a return held for a refund back to received and returns
// cause.
func (s *Service) unhold(ctx context.Context, id int64, cause error) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE returns SET status = $1, refund_cents = 0, updated_at = $2 WHERE id = $3 AND status = $4`,
		Received, s.clock.Now().Unix(), id, Refunding); err != nil {
		s.log.Error("refund failed, and releasing the return failed", "return", id, "err", err)
	}
	return cause
}

// RefundCents is what refunding r gives back: what it holds once held for
// its refund, else what a refund would give back now (the admin's list).
func (s *Service) RefundCents(ctx context.Context, r Return) (int64, error) {
	if r.Status == Refunding || r.Status == Refunded {
		return r.RefundCents, nil
	}
	return refundAmount(ctx, s.db, r)
}

// querier is the database or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// refundAmount applies the refund rule (pricing.GoodsCharge.Refund) to
// return r: its goods, beside those of the order's other returns that
// hold a refund (refunding or refunded) and what those give back.
func refundAmount(ctx context.Context, q querier, r Return) (int64, error) {
	var subtotal, goodsDiscount, tax, shippingTax, goodsBefore, refundedBefore int64
	var mode string
	if err := q.QueryRowContext(ctx, `SELECT subtotal_cents, goods_discount_cents, tax_cents, shipping_tax_cents, tax_mode FROM orders WHERE id = $1`,
		r.OrderID).Scan(&subtotal, &goodsDiscount, &tax, &shippingTax, &mode); err != nil {
		return 0, fmt.Errorf("return %d: %w", r.ID, errNoRows(err))
	}
	if err := q.QueryRowContext(ctx, `SELECT
		CAST(COALESCE((SELECT SUM(rl.qty * rl.price_cents) FROM return_lines rl JOIN returns x ON x.id = rl.return_id
			WHERE x.order_id = $1 AND x.id <> $2 AND x.status IN ($3, $4)), 0) AS BIGINT),
		CAST(COALESCE((SELECT SUM(x.refund_cents) FROM returns x WHERE x.order_id = $1 AND x.id <> $2 AND x.status IN ($3, $4)), 0) AS BIGINT)`,
		r.OrderID, r.ID, Refunding, Refunded).Scan(&goodsBefore, &refundedBefore); err != nil {
		return 0, fmt.Errorf("return %d: %w", r.ID, err)
	}
	charge := pricing.ChargeForGoods(subtotal, goodsDiscount, tax, shippingTax, mode)
	return charge.Refund(goodsBefore, refundedBefore, r.GoodsCents()), nil
}

// RetryRefund settles a return stuck in refunding by asking for its
// refund again now: the owed (or refused) refund is tried again, or, if
// the refund was never taken (the instance stopped between holding the
// return and asking), it is taken and asked for. When the money goes
// back the return becomes refunded; a return in another status is a
// *MoveError.
func (s *Service) RetryRefund(ctx context.Context, id int64, actor string) (Return, error) {
	r, rf, found, err := s.stuck(ctx, id, ActRetryRefund)
	if err != nil {
		return Return{}, err
	}
	switch {
	case found && rf.Done():
		err = s.refunded(ctx, id, "")
	case found:
		_, err = s.refunder.RetryRefund(ctx, rf.ID)
	default:
		_, err = s.refunder.IssueRefund(ctx, orders.RefundRequest{OrderID: r.OrderID, Cents: r.RefundCents, Actor: actor,
			Reason: orders.ReturnReason(id), KeepRefused: true})
		if err != nil {
			return Return{}, s.unhold(context.WithoutCancel(ctx), id, err)
		}
	}
	if err != nil {
		return Return{}, err
	}
	return s.Get(ctx, id)
}

// SettleByHand settles a return stuck in refunding as refunded by the shop
// outside its payment method, with the admin's note (1 to 500
// characters, orders.ErrNote otherwise) saying how: its owed refund is
// recorded done with the note and nothing more is asked of the provider
// (one being tried at this moment is orders.ErrRefundNotOwed); a return in
// another status is a *MoveError. Each refusal changes nothing.
func (s *Service) SettleByHand(ctx context.Context, id int64, note, actor string) (Return, error) {
	if n := len([]rune(strings.TrimSpace(note))); n < 1 || n > orders.MaxRefundNoteLen {
		return Return{}, orders.ErrNote
	}
	r, rf, found, err := s.stuck(ctx, id, ActSettleByHand)
	if err != nil {
		return Return{}, err
	}
	switch {
	case found && rf.Done():
		err = s.refunded(ctx, id, "")
	case found:
		_, err = s.refunder.SettleRefundByHand(ctx, rf.ID, note, actor)
	default:
		_, err = s.refunder.IssueRefund(ctx, orders.RefundRequest{OrderID: r.OrderID, Cents: r.RefundCents, Actor: actor,
			Reason: orders.ReturnReason(id), ByHand: true, Note: strings.TrimSpace(note) + " (" + actor + ")"})
	}
	if err != nil {
		return Return{}, err
	}
	return s.Get(ctx, id)
}

// ActSettleByHand names SettleByHand in *MoveError.
const ActSettleByHand = "settle_by_hand"

// stuck reads return id, which must be refunding (else a *MoveError for
// action), and its refund in the orders' ledger, if it was taken.
func (s *Service) stuck(ctx context.Context, id int64, action string) (Return, orders.Refund, bool, error) {
	r, err := s.Get(ctx, id)
	if err != nil {
		return Return{}, orders.Refund{}, false, err
	}
	if r.Status != Refunding {
		return Return{}, orders.Refund{}, false, &MoveError{From: r.Status, Action: action}
	}
	if r.RefundCents <= 0 { // held before the amount was recorded with the hold
		if r.RefundCents, err = refundAmount(ctx, s.db, r); err != nil {
			return Return{}, orders.Refund{}, false, err
		}
		if _, err := s.db.ExecContext(ctx, `UPDATE returns SET refund_cents = $1 WHERE id = $2 AND status = $3 AND refund_cents = 0`,
			r.RefundCents, id, Refunding); err != nil {
			return Return{}, orders.Refund{}, false, fmt.Errorf("return %d: %w", id, err)
		}
	}
	rf, found, err := s.refunder.RefundFor(ctx, r.OrderID, orders.ReturnReason(id))
	return r, rf, found, err
}

// refunded moves a refunding return to refunded with its email.
func (s *Service) refunded(ctx context.Context, id int64, note string) error {
	_, err := s.move(ctx, id, step{action: ActRefund, from: Refunding, to: Refunded, note: note, tell: true})
	return err
}

// RefundDone is the orders' OnRefundDoneTx listener: a refund for a
// return, done (by its payment method, at once or by the refunds worker,
// or settled by hand), moves the return from refunding to refunded with
// its email, inside the refund's transaction. A refund for no return, or
// for a return no longer refunding, changes nothing here.
func (s *Service) RefundDone(ctx context.Context, tx *sql.Tx, rf orders.Refund) error {
	id, ok := orders.ReturnOf(rf.Reason)
	if !ok {
		return nil
	}
	_, err := s.moveTx(ctx, tx, id, step{action: ActRefund, from: Refunding, to: Refunded, note: rf.Note, tell: true})
	var me *MoveError
	if errors.As(err, &me) || errors.Is(err, platform.ErrNotFound) {
		s.log.Warn("refund done for a return that is not refunding", "return", id, "refund", rf.ID, "err", err)
		return nil
	}
	return err
}
