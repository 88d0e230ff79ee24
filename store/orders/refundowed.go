package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/workers"
)

// DefaultRefundRetry is how soon an owed refund is tried again after its
// first try failed; each later try waits twice as long, at most an hour.
const DefaultRefundRetry = time.Minute

// refundBatch bounds the refunds one pass of the refunds worker tries.
const refundBatch = 20

// RefundPass is what one pass of the refunds worker did.
type RefundPass struct{ Done, Owed, Failed int }

// backoff is how long a refund tried attempts times waits for its next try.
func (s *Service) backoff(attempts int64) time.Duration {
	d := s.opt.RefundRetry
	for i := int64(1); i < attempts && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// OnRefundDoneTx registers a listener that writes inside the transaction
// that records a refund done, however it got there: at once, by the
// refunds worker, by an admin's retry or by hand (the wiring moves the
// return the refund was for to refunded there). An error rolls it back.
func (s *Service) OnRefundDoneTx(f func(ctx context.Context, tx *sql.Tx, r Refund) error) {
	s.refundDoneTx = append(s.refundDoneTx, f)
}

func (s *Service) refundDoneInTx(ctx context.Context, tx *sql.Tx, r Refund) error {
	for _, f := range s.refundDoneTx {
		if err := f(ctx, tx, r); err != nil {
			return err
		}
	}
	return nil
}

// RetryOwedRefunds tries the owed refunds whose next try has come, oldest
// first, at most refundBatch of them; a refund being tried elsewhere (an
// admin's retry, the request that asked for it) is left alone. It returns
// what became of them and whether more may be waiting.
func (s *Service) RetryOwedRefunds(ctx context.Context) (RefundPass, bool, error) {
	now := s.clock.Now().Unix()
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM order_refunds WHERE status = $1 AND next_try_at <= $2 AND claimed_until <= $2
		ORDER BY next_try_at, id LIMIT $3`, RefundOwed, now, refundBatch)
	if err != nil {
		return RefundPass{}, false, fmt.Errorf("owed refunds: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return RefundPass{}, false, fmt.Errorf("owed refunds: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return RefundPass{}, false, fmt.Errorf("owed refunds: %w", err)
	}
	var pass RefundPass
	for _, id := range ids {
		if ctx.Err() != nil {
			return pass, true, nil // the pass's time is up: the next one goes on
		}
		r, err := s.tryRefund(ctx, id, false)
		switch {
		case errors.Is(err, ErrRefundNotOwed): // taken by another try since the read
		case err != nil:
			return pass, false, err
		case r.Done():
			pass.Done++
		case r.Status == RefundFailed:
			pass.Failed++
		default:
			pass.Owed++
		}
	}
	return pass, len(ids) == refundBatch, nil
}

// RetryRefund is an admin's "try again now" for an owed or failed refund:
// the same try as the worker's, at once. A refund settled, or being tried
// at this moment, is ErrRefundNotOwed; a missing one platform.ErrNotFound.
func (s *Service) RetryRefund(ctx context.Context, id int64) (Refund, error) {
	return s.tryRefund(ctx, id, true)
}

// tryRefund claims refund id (owed, or failed too when failedToo) and asks
// its payment method to give it back.
func (s *Service) tryRefund(ctx context.Context, id int64, failedToo bool) (Refund, error) {
	r, err := s.claimRefund(ctx, id, failedToo)
	if err != nil {
		return Refund{}, err
	}
	o, err := s.OrderAny(ctx, r.OrderID)
	if err != nil {
		return Refund{}, s.unclaim(ctx, r, err)
	}
	code := r.Method
	if code == "" {
		code = o.Payment
	}
	p, ok := s.PaymentByCode(code)
	if !ok {
		return Refund{}, s.unclaim(ctx, r, fmt.Errorf("refund %d (%q): %w", r.ID, code, ErrUnknownPayment))
	}
	return s.attempt(ctx, o, p, r, false)
}

// claimRefund takes refund id for one try: a conditional update, so of
// two tries at once (two workers, a worker and an admin) one gets it.
func (s *Service) claimRefund(ctx context.Context, id int64, failedToo bool) (Refund, error) {
	now := s.clock.Now()
	also := RefundOwed
	if failedToo {
		also = RefundFailed
	}
	res, err := s.db.ExecContext(ctx, `UPDATE order_refunds SET status = $1, claimed_until = $2, attempts = attempts + 1
		WHERE id = $3 AND (status = $1 OR status = $4) AND claimed_until <= $5`,
		RefundOwed, now.Add(refundClaim).Unix(), id, also, now.Unix())
	if err != nil {
		return Refund{}, fmt.Errorf("refund %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return Refund{}, fmt.Errorf("refund %d: %w", id, err)
	} else if n == 0 {
		return Refund{}, s.notOwed(ctx, id)
	}
	r, err := scanRefund(s.db.QueryRowContext(ctx, `SELECT `+refundColumns+` FROM order_refunds WHERE id = $1`, id))
	if err != nil {
		return Refund{}, fmt.Errorf("refund %d: %w", id, err)
	}
	return r, nil
}

// unclaim records why a claimed refund could not be tried, for its next
// try, and returns cause.
func (s *Service) unclaim(ctx context.Context, r Refund, cause error) error {
	ctx = context.WithoutCancel(ctx)
	if _, err := s.db.ExecContext(ctx, `UPDATE order_refunds SET last_error = $1, next_try_at = $2, claimed_until = 0 WHERE id = $3`,
		errText(cause), s.clock.Now().Add(s.backoff(r.Attempts)).Unix(), r.ID); err != nil {
		s.log.Error("refund: releasing the claim failed", "refund", r.ID, "err", err)
	}
	return cause
}

// notOwed says why refund id could not be taken: it does not exist, or
// it is not owed now.
func (s *Service) notOwed(ctx context.Context, id int64) error {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM order_refunds WHERE id = $1`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return platform.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("refund %d: %w", id, err)
	}
	return ErrRefundNotOwed
}

// SettleRefundByHand records that the shop gave an owed or failed refund
// back outside its payment method (a bank transfer, cash), with the
// admin's note saying how: the refund is done and nothing more is asked
// of the provider. A refund being tried at this moment, or settled, is
// ErrRefundNotOwed; a bad note ErrNote; each changes nothing.
func (s *Service) SettleRefundByHand(ctx context.Context, id int64, note, actor string) (Refund, error) {
	if !validNote(note) {
		return Refund{}, ErrNote
	}
	note = strings.TrimSpace(note) + " (" + actor + ")"
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Refund{}, fmt.Errorf("refund %d: %w", id, err)
	}
	defer tx.Rollback()
	now := s.clock.Now().Unix()
	res, err := tx.ExecContext(ctx, `UPDATE order_refunds SET status = $1, note = $2, settled_at = $3, last_error = ''
		WHERE id = $4 AND (status = $5 OR status = $6) AND claimed_until <= $3`, RefundDone, note, now, id, RefundOwed, RefundFailed)
	if err != nil {
		return Refund{}, fmt.Errorf("refund %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return Refund{}, fmt.Errorf("refund %d: %w", id, err)
	} else if n == 0 {
		return Refund{}, s.notOwed(ctx, id)
	}
	r, err := scanRefund(tx.QueryRowContext(ctx, `SELECT `+refundColumns+` FROM order_refunds WHERE id = $1`, id))
	if err != nil {
		return Refund{}, fmt.Errorf("refund %d: %w", id, err)
	}
	if err := s.refundDoneInTx(ctx, tx, r); err != nil {
		return Refund{}, err
	}
	if err := tx.Commit(); err != nil {
		return Refund{}, fmt.Errorf("refund %d: commit: %w", id, err)
	}
	return r, nil
}

// refundsWorker gives owed refunds back on the instance holding the
// refunds lease, every RefundRetry (at most a minute). A pass stops
// trying at half the lease, so the holder keeps the lease while a
// provider that does not answer makes each try wait for its timeout.
func (s *Service) refundsWorker() workers.Worker {
	every := min(s.opt.RefundRetry, time.Minute)
	lease := max(4*every, 2*refundClaim)
	return s.host.Leased(workers.Leased{
		Name: keys.LeaseRefunds, Lease: lease, Every: every,
		Pass: func(ctx context.Context) (workers.Run, bool) {
			ctx, cancel := context.WithTimeout(ctx, lease/2)
			defer cancel()
			p, more, err := s.RetryOwedRefunds(ctx)
			return workers.Run{Result: fmt.Sprintf("%d refunds given back, %d still owed, %d refused", p.Done, p.Owed, p.Failed),
				Counts: map[string]int64{"done": int64(p.Done), "owed": int64(p.Owed), "failed": int64(p.Failed)}, Err: err}, more
		},
	})
}
