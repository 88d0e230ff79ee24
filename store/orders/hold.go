package orders

import (
	"context"
	"errors"
	"fmt"
	"time"

	"storefront/store/keys"
	"storefront/store/workers"
)

// DefaultPaymentHold is PAYMENT_HOLD's default.
const DefaultPaymentHold = 30 * time.Minute

// holdBatch bounds the orders one pass of the hold worker cancels.
const holdBatch = 200

// ExpirePaymentHolds cancels the orders that have awaited their payment
// longer than PaymentHold, through the orders' cancel (so their stock goes
// back in the same transaction), and only from awaiting_payment: of a
// cancel and a payment racing for the same order exactly one applies. It returns how many it cancelled and
// whether more may be waiting.
func (s *Service) ExpirePaymentHolds(ctx context.Context) (int, bool, error) {
	cutoff := s.clock.Now().Add(-s.opt.PaymentHold).Unix()
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM orders WHERE status = $1 AND created_at <= $2 ORDER BY created_at, id LIMIT $3`,
		OrderAwaitingPayment, cutoff, holdBatch)
	if err != nil {
		return 0, false, fmt.Errorf("payment hold: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, false, fmt.Errorf("payment hold: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, fmt.Errorf("payment hold: %w", err)
	}
	n := 0
	for _, id := range ids {
		_, err := s.moveOrder(ctx, id, 0, OrderAwaitingPayment, OrderCancelled, ActorPayment, "")
		var me *MoveError
		switch {
		case errors.As(err, &me): // paid (or cancelled) since the read: the other move won
		case err != nil:
			return n, false, err
		default:
			n++
			s.log.Info("payment hold expired: order cancelled, stock released", "order", id)
		}
	}
	return n, len(ids) == holdBatch, nil
}

// paymentHoldWorker cancels expired payment holds on the instance holding
// the payment-hold lease, every tenth of the hold (at most a minute), so
// an order is cancelled soon after its hold ends. The lease outlives a
// slow pass (at least 30 s), so the holder keeps it while it works.
func (s *Service) paymentHoldWorker() workers.Worker {
	every := min(s.opt.PaymentHold/10, time.Minute)
	return s.host.Leased(workers.Leased{
		Name: keys.LeasePaymentHold, Lease: max(4*every, 30*time.Second), Every: every,
		Pass: func(ctx context.Context) (workers.Run, bool) {
			n, more, err := s.ExpirePaymentHolds(ctx)
			return workers.Run{Result: fmt.Sprintf("cancelled %d unpaid orders", n), Counts: map[string]int64{"cancelled": int64(n)}, Err: err}, more
		},
	})
}
