package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"storefront/store/audit"
	"storefront/store/platform"
)

// ErrRefundTooLarge means a refund would give back more than was paid for
// the order (counting the refunds before it). Nothing changed.
var ErrRefundTooLarge = fmt.Errorf("%w: refund larger than what is left of the payment", platform.ErrInvalid)

// ErrRefundRefused wraps a payment provider's refusal of a refund for
// good (not a failure to reach it): trying again does not help.
var ErrRefundRefused = errors.New("the payment provider refused the refund")

// ErrRefundNotOwed means the refund is settled already, or being tried at
// this moment: nothing changed.
var ErrRefundNotOwed = fmt.Errorf("%w: that refund is not owed now (settled, or being tried at this moment)", platform.ErrInvalid)

// ErrNoRefundMethod means a paid order cannot be cancelled because the
// payment method that would give its money back is not offered here any
// more (card payments turned off): nothing changed.
var ErrNoRefundMethod = fmt.Errorf("%w: the order's payment method is not offered, so its payment cannot be given back", platform.ErrInvalid)

// ErrNote means a note for a refund settled by hand is missing or too long.
var ErrNote = fmt.Errorf("%w: say how the money went back, in 1 to %d characters", platform.ErrInvalid, MaxRefundNoteLen)

// MaxRefundNoteLen is the longest note on a refund settled by hand.
const MaxRefundNoteLen = 500

// Refund statuses in order_refunds.
const (
	// RefundOwed is taken from what is refundable, the provider not yet
	// done: the refunds worker tries it until it is.
	RefundOwed = "pending"
	RefundDone = "done"
	// RefundFailed was refused by the provider for good: the admin tries
	// it again or settles it by hand.
	RefundFailed = "failed"
)

// Refund reasons (a return's is ReturnReason).
const (
	ReasonAdmin       = "admin"
	ReasonCancel      = "cancel"       // the order was cancelled after it was paid
	ReasonLatePayment = "late_payment" // a payment for an order that no longer awaited one
	ReasonMismatch    = "mismatch"     // a payment for another amount (or currency) than the order's
	returnReasonTag   = "return:"
)

// ReturnReason is the reason of the refund of return id.
func ReturnReason(id int64) string { return returnReasonTag + strconv.FormatInt(id, 10) }

// ReturnOf is the return a refund's reason names, if it names one.
func ReturnOf(reason string) (int64, bool) {
	tag, ok := strings.CutPrefix(reason, returnReasonTag)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(tag, 10, 64)
	return id, err == nil && id > 0
}

// Refund is money given back on an order, or owed.
type Refund struct {
	ID      int64
	OrderID int64
	Cents   int64
	Status  string // RefundOwed, RefundDone or RefundFailed
	Reason  string
	// PaymentRef is the payment given back when it is not the order's
	// own, and Method the method that gives it back ("" the order's).
	PaymentRef string
	Method     string
	Ref        string // the provider's id of the refund; "" when recorded only
	Actor      string
	At         time.Time // when it was asked for
	Attempts   int64
	LastError  string
	NextTry    time.Time
	Note       string // how an admin gave it back by hand
	SettledAt  time.Time
}

// Done reports whether the money went back.
func (r Refund) Done() bool { return r.Status == RefundDone }

// RefundRequest asks to give money back on an order.
type RefundRequest struct {
	OrderID int64
	Cents   int64
	Actor   string
	Reason  string // ReasonAdmin when empty
	// ByHand records money the shop gave back outside its payment
	// methods (Note says how): nothing is asked of the provider.
	ByHand bool
	Note   string
	// KeepRefused leaves a refund the provider refused for good in the
	// ledger, failed, for the admin to try again or settle by hand
	// (a return's), instead of giving its amount back.
	KeepRefused bool
}

// refundClaim is how long one try of a refund keeps others off it; every
// provider call is bounded well within it.
const refundClaim = 2 * time.Minute

// RefundOrder gives cents back through the order's own payment method
// (a Stripe refund for a card, a record for invoice and cash on delivery).
func (s *Service) RefundOrder(ctx context.Context, id, cents int64, actor string) (Refund, error) {
	return s.IssueRefund(ctx, RefundRequest{OrderID: id, Cents: cents, Actor: actor})
}

// IssueRefund gives money back on an order through its payment method,
// never more than was paid in all: ErrRefundTooLarge, nothing changed.
// The amount is taken first, by one conditional update of the order's
// refunded_cents (so concurrent refunds cannot overshoot), with the
// refund's row, owed; then the provider is asked. Done, the refund is
// returned done. Refused for good (ErrRefundRefused), its amount is given
// back and the error returned. Not reached (a timeout, a network error),
// it stays owed and is returned so: the refunds worker gives it back.
func (s *Service) IssueRefund(ctx context.Context, req RefundRequest) (Refund, error) {
	if req.Cents <= 0 {
		return Refund{}, fmt.Errorf("%w: a refund is a positive amount", platform.ErrInvalid)
	}
	if req.ByHand && !validNote(req.Note) {
		return Refund{}, ErrNote
	}
	if req.Reason == "" {
		req.Reason = ReasonAdmin
	}
	o, err := s.OrderAny(ctx, req.OrderID)
	if err != nil {
		return Refund{}, err
	}
	p, ok := s.PaymentByCode(o.Payment)
	if !ok && !req.ByHand {
		return Refund{}, fmt.Errorf("refund order %d (%q): %w", o.ID, o.Payment, ErrUnknownPayment)
	}
	limit := o.TotalCents // a method paid outside the shop: what the order cost
	if o.PaidCents > 0 || (ok && p.PaysFirst()) {
		limit = o.PaidCents // what the provider confirmed
	}
	r, err := s.takeRefund(ctx, o.ID, req, limit)
	if err != nil || req.ByHand {
		return r, err
	}
	return s.attempt(ctx, o, p, r, !req.KeepRefused)
}

// takeRefund is the refund's transaction: the amount taken from what is
// left of limit, and the refund's row, owed and claimed by this request
// (done at once when given back by hand, with the listeners' writes).
func (s *Service) takeRefund(ctx context.Context, orderID int64, req RefundRequest, limit int64) (Refund, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Refund{}, fmt.Errorf("refund order %d: %w", orderID, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE orders SET refunded_cents = refunded_cents + $1
		WHERE id = $2 AND refunded_cents + $1 <= $3`, req.Cents, orderID, limit)
	if err != nil {
		return Refund{}, fmt.Errorf("refund order %d: %w", orderID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return Refund{}, fmt.Errorf("refund order %d: %w", orderID, err)
	} else if n == 0 {
		return Refund{}, ErrRefundTooLarge
	}
	r := Refund{OrderID: orderID, Cents: req.Cents, Reason: req.Reason, Actor: req.Actor}
	if req.ByHand {
		r.Status, r.Note = RefundDone, strings.TrimSpace(req.Note)
	}
	if err := s.insertRefundTx(ctx, tx, &r); err != nil {
		return Refund{}, err
	}
	var refunded int64
	if err := tx.QueryRowContext(ctx, `SELECT refunded_cents FROM orders WHERE id = $1`, orderID).Scan(&refunded); err != nil {
		return Refund{}, fmt.Errorf("refund order %d: %w", orderID, err)
	}
	if err := audit.Record(ctx, tx, audit.Entry{Kind: "refund", Target: "order " + strconv.FormatInt(orderID, 10),
		Before: audit.Fields{"refunded_cents": refunded - req.Cents},
		After:  audit.Fields{"refunded_cents": refunded, "refund_cents": req.Cents, "reason": req.Reason, "by_hand": req.ByHand}}); err != nil {
		return Refund{}, err
	}
	if r.Done() {
		if err := s.refundDoneInTx(ctx, tx, r); err != nil {
			return Refund{}, err
		}
	}
	if err := tx.Commit(); err != nil {
		return Refund{}, fmt.Errorf("refund order %d: commit: %w", orderID, err)
	}
	return r, nil
}

// insertRefundTx writes refund r (owed and claimed by the caller, unless
// its status says done) and sets its id and times. A refund of a payment
// that has one already writes nothing and leaves r.ID 0.
func (s *Service) insertRefundTx(ctx context.Context, tx *sql.Tx, r *Refund) error {
	now := s.clock.Now()
	r.At = time.Unix(now.Unix(), 0)
	claimed, attempts, settled := now.Add(refundClaim).Unix(), int64(1), int64(0)
	if r.Status == RefundDone {
		claimed, attempts, settled = 0, 0, now.Unix()
		r.SettledAt = r.At
	} else {
		r.Status = RefundOwed
	}
	r.Attempts = attempts
	err := tx.QueryRowContext(ctx, `INSERT INTO order_refunds (order_id, cents, status, actor, at, reason, payment_ref, method,
		attempts, claimed_until, note, settled_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		ON CONFLICT (payment_ref) WHERE payment_ref <> '' DO NOTHING RETURNING id`,
		r.OrderID, r.Cents, r.Status, r.Actor, r.At.Unix(), r.Reason, r.PaymentRef, r.Method, attempts, claimed, r.Note, settled).Scan(&r.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("refund order %d: %w", r.OrderID, err)
	}
	return nil
}

// attempt asks p to give refund r (claimed by the caller) back and records
// the outcome: done; refused for good, either given back to what is
// refundable (release: a person asked for it and reads the error) or left
// failed for the admin; or not reached, owed still with the error and the
// time of its next try.
func (s *Service) attempt(ctx context.Context, o Order, p PaymentMethod, r Refund, release bool) (Refund, error) {
	ref, perr := p.SendRefund(ctx, o, r)
	// The provider answered (or the call gave up): record it whatever the
	// client does, within a budget of its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	switch {
	case perr == nil:
		return s.markDone(ctx, r, ref)
	case errors.Is(perr, ErrRefundRefused) && release:
		if err := s.releaseRefund(ctx, r); err != nil {
			s.log.Error("refund refused, and giving its amount back failed", "order", r.OrderID, "refund", r.ID, "err", err)
		}
		return Refund{}, fmt.Errorf("refund order %d: %w", r.OrderID, perr)
	case errors.Is(perr, ErrRefundRefused):
		r.Status = RefundFailed
	}
	r.LastError = errText(perr)
	r.NextTry = s.clock.Now().Add(s.backoff(r.Attempts))
	if _, err := s.db.ExecContext(ctx, `UPDATE order_refunds SET status = $1, last_error = $2, next_try_at = $3, claimed_until = 0
		WHERE id = $4 AND status = $5`, r.Status, r.LastError, r.NextTry.Unix(), r.ID, RefundOwed); err != nil {
		s.log.Error("refund not given back, and recording why failed", "order", r.OrderID, "refund", r.ID, "err", err)
	}
	s.log.Warn("refund not given back yet: owed", "order", r.OrderID, "refund", r.ID, "cents", r.Cents, "status", r.Status,
		"attempts", r.Attempts, "err", perr)
	return r, nil
}

// markDone records that refund r went back (ref is the provider's id) and
// has the OnRefundDoneTx listeners write in the same transaction.
func (s *Service) markDone(ctx context.Context, r Refund, ref string) (Refund, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return r, fmt.Errorf("refund %d: the provider refunded (%s) but the record failed: %w", r.ID, ref, err)
	}
	defer tx.Rollback()
	now := s.clock.Now().Unix()
	res, err := tx.ExecContext(ctx, `UPDATE order_refunds SET status = $1, ref = $2, settled_at = $3, claimed_until = 0, last_error = ''
		WHERE id = $4 AND status <> $1`, RefundDone, ref, now, r.ID)
	if err == nil {
		r.Status, r.Ref, r.SettledAt, r.LastError = RefundDone, ref, platform.UnixTime(now), ""
		if n, _ := res.RowsAffected(); n > 0 {
			err = s.refundDoneInTx(ctx, tx, r)
		}
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		// Still owed in the ledger: the worker asks again, and the
		// provider answers the same refund for the same idempotency key.
		return r, fmt.Errorf("refund %d: the provider refunded (%s) but the record failed: %w", r.ID, ref, err)
	}
	return r, nil
}

// releaseRefund undoes an owed refund the provider refused.
func (s *Service) releaseRefund(ctx context.Context, r Refund) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM order_refunds WHERE id = $1 AND status = $2`, r.ID, RefundOwed)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if r.PaymentRef == "" {
		if _, err := tx.ExecContext(ctx, `UPDATE orders SET refunded_cents = refunded_cents - $1 WHERE id = $2`, r.Cents, r.OrderID); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// validNote reports whether note may be a refund's note.
func validNote(note string) bool {
	n := utf8.RuneCountInString(strings.TrimSpace(note))
	return n >= 1 && n <= MaxRefundNoteLen && utf8.ValidString(note)
}

// errText is an error's text as the ledger keeps it, at most 500 bytes.
func errText(err error) string {
	t := strings.ToValidUTF8(err.Error(), "")
	if len(t) > 500 {
		t = strings.ToValidUTF8(t[:500], "")
	}
	return t
}
