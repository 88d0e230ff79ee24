package stripepay_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"storefront/store/orders"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// TestCancelPaidCardOrderRefunds: a paid card order cancelled by its
// shopper, or by the admin, gives the payment back through Stripe in the
// same step: the refund of the whole payment is in the ledger, done, the
// order's refunded_cents is its paid_cents, and Stripe was asked once for
// that PaymentIntent and amount.
func TestCancelPaidCardOrderRefunds(t *testing.T) {
	st, gate := gatedShop(t)
	ctx := t.Context()
	wiringtest.SetStock(t, st, 7, 50)
	for _, by := range []string{"shopper", "admin"} {
		t.Run(by, func(t *testing.T) {
			pi := "pi_cancel_" + by
			o := paidCardOrder(t, st, "cancel"+by, pi)
			owner, actor := o.UserID, orders.ActorShopper
			if by == "admin" {
				owner, actor = 0, orders.AdminActor("root")
			}
			before := gate.Passed("POST /v1/refunds")
			got, err := st.Orders.MoveOrder(ctx, o.ID, owner, orders.OrderCancelled, actor)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != orders.OrderCancelled || got.PaidCents != o.TotalCents || got.RefundedCents != got.PaidCents {
				t.Fatalf("cancelled order: status %q, paid %d, refunded %d; want cancelled and all of %d back",
					got.Status, got.PaidCents, got.RefundedCents, o.TotalCents)
			}
			rs := refundsOf(t, st, o.ID)
			if len(rs) != 1 || !rs[0].Done() || rs[0].Cents != o.TotalCents || rs[0].Reason != orders.ReasonCancel || rs[0].Ref == "" {
				t.Fatalf("ledger %+v, want one refund of %d done", rs, o.TotalCents)
			}
			if n := gate.Passed("POST /v1/refunds") - before; n != 1 {
				t.Errorf("%d refunds asked of Stripe, want 1", n)
			}
			last := lastRefundCall(t, gate)
			if last.Form.Get("payment_intent") != pi || last.Form.Get("amount") != strconv.FormatInt(o.TotalCents, 10) ||
				last.Header.Get("Idempotency-Key") != "refund-"+strconv.FormatInt(rs[0].ID, 10) {
				t.Errorf("refund asked as %v, key %q", last.Form, last.Header.Get("Idempotency-Key"))
			}
		})
	}
}

// lastRefundCall is the last refund the shop asked of Stripe.
func lastRefundCall(t *testing.T, gate *storetest.StripeGate) storetest.Recorded {
	t.Helper()
	calls := refundCalls(gate.Requests())
	if len(calls) == 0 {
		t.Fatal("no refund was asked of Stripe")
	}
	return calls[len(calls)-1]
}

// TestCancelWithStripeDownOwesTheRefund: with Stripe down, the cancel
// still applies and the refund is owed in the same transaction (never
// cancelled and kept); the refunds worker's passes try it again while
// Stripe is down, and once it is back the refund is done, asked of Stripe
// with the one idempotency key every try used.
func TestCancelWithStripeDownOwesTheRefund(t *testing.T) {
	st, gate := gatedShop(t)
	ctx := t.Context()
	wiringtest.SetStock(t, st, 7, 50)
	o := paidCardOrder(t, st, "downcancel", "pi_down")
	gate.Set(storetest.StripeDown)
	got, err := st.Orders.MoveOrder(ctx, o.ID, o.UserID, orders.OrderCancelled, orders.ActorShopper)
	if err != nil || got.Status != orders.OrderCancelled || got.RefundedCents != o.TotalCents {
		t.Fatalf("cancel with Stripe down: %+v, %v", got, err)
	}
	rs := refundsOf(t, st, o.ID)
	if len(rs) != 1 || rs[0].Status != orders.RefundOwed || rs[0].LastError == "" || rs[0].Attempts != 1 {
		t.Fatalf("ledger %+v, want one refund owed with its error", rs)
	}
	owed, err := st.Orders.OwedRefunds(ctx, 10)
	if err != nil || len(owed) != 1 || owed[0].ID != rs[0].ID {
		t.Fatalf("the admin's list of what is owed: %+v, %v", owed, err)
	}

	// Its next try has not come: a pass leaves it alone.
	if p, _, err := st.Orders.RetryOwedRefunds(ctx); err != nil || p != (orders.RefundPass{}) {
		t.Fatalf("a pass before the next try: %+v, %v", p, err)
	}
	later := time.Now()
	for try := int64(2); try <= 3; try++ {
		later = later.Add(2 * time.Hour) // past any backoff
		st.SetClock(func() time.Time { return later })
		if p, _, err := st.Orders.RetryOwedRefunds(ctx); err != nil || p.Owed != 1 {
			t.Fatalf("pass %d with Stripe down: %+v, %v", try, p, err)
		}
		if r := refundsOf(t, st, o.ID)[0]; r.Status != orders.RefundOwed || r.Attempts != try {
			t.Fatalf("after pass %d: %+v", try, r)
		}
	}
	gate.Set(storetest.StripeUp)
	later = later.Add(2 * time.Hour)
	st.SetClock(func() time.Time { return later })
	if p, _, err := st.Orders.RetryOwedRefunds(ctx); err != nil || p.Done != 1 {
		t.Fatalf("pass with Stripe back: %+v, %v", p, err)
	}
	r := refundsOf(t, st, o.ID)[0]
	if !r.Done() || r.Ref == "" || r.LastError != "" {
		t.Fatalf("after Stripe came back: %+v", r)
	}
	if n := gate.Passed("POST /v1/refunds"); n != 1 {
		t.Errorf("%d refunds reached Stripe, want 1", n)
	}
	if owed, _ := st.Orders.OwedRefunds(ctx, 10); len(owed) != 0 {
		t.Errorf("still owed: %+v", owed)
	}
}

// TestCancelRefusedWithoutRefundMethod: a paid card order on an instance
// where card payments are off cannot be refunded, so its cancel is
// refused and changes nothing (status, stock, ledger).
func TestCancelRefusedWithoutRefundMethod(t *testing.T) {
	st, _ := gatedShop(t)
	ctx := t.Context()
	wiringtest.SetStock(t, st, 7, 50)
	o := paidCardOrder(t, st, "nocard", "pi_nocard")
	opt := st.Options()
	opt.Stripe = wiring.Options{}.Stripe
	plain := wiring.New(st.Redis(), st.DB(), opt, storetest.Logger(t))
	t.Cleanup(plain.Close)
	_, err := plain.Orders.MoveOrder(ctx, o.ID, 0, orders.OrderCancelled, orders.AdminActor("root"))
	if !errors.Is(err, orders.ErrNoRefundMethod) {
		t.Fatalf("cancel without the card method: %v, want ErrNoRefundMethod", err)
	}
	got, err := st.Orders.OrderAny(ctx, o.ID)
	if err != nil || got.Status != orders.OrderPaid || got.RefundedCents != 0 || len(refundsOf(t, st, o.ID)) != 0 {
		t.Errorf("a refused cancel changed the order: %+v, %v", got, err)
	}
	if s := wiringtest.StockOf(t, st, 7); s != 48 {
		t.Errorf("stock %d, want 48", s)
	}
	// Where the card is offered, the cancel applies and refunds.
	if got, err := st.Orders.MoveOrder(context.WithoutCancel(ctx), o.ID, 0, orders.OrderCancelled, orders.AdminActor("root")); err != nil || got.RefundedCents != o.TotalCents {
		t.Errorf("cancel with the card: %+v, %v", got, err)
	}
}

// TestNoOrderCancelledAndCharged: for many card orders whose hold has run
// out, the payment's events (several deliveries of one payment, with their
// own ids), the shopper's cancel, the admin's cancel and the hold worker's
// passes all race. Each order ends either paid, never cancelled, nothing
// given back; or cancelled with its stock back and the payment given back
// in full exactly once (one refund in the ledger, done, one idempotency
// key at Stripe): never cancelled and charged. A third of the orders are
// paid before the race, so their cancels race the payment's redeliveries
// from paid.
func TestNoOrderCancelledAndCharged(t *testing.T) {
	st, gate := gatedShop(t)
	ctx := context.WithoutCancel(t.Context())
	const n, stock = 12, 100
	wiringtest.SetStock(t, st, 7, stock)
	placed := make([]orders.Order, n)
	for i := range placed {
		placed[i] = cardOrder(t, st, "racer"+strconv.Itoa(i), 7, 1)
	}
	for i := 0; i < n; i += 3 {
		pay(t, st, "evt_first_"+strconv.Itoa(i), placed[i], "pi_race_"+strconv.Itoa(i))
	}
	afterHold(st)
	var wg sync.WaitGroup
	start := make(chan struct{})
	run := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			f()
		}()
	}
	for i, o := range placed {
		pi := "pi_race_" + strconv.Itoa(i)
		for d := range 3 {
			run(func() {
				payload := completed("evt_"+pi+"_"+strconv.Itoa(d), o.ID, o.TotalCents, "paid", pi)
				if _, err := st.Card.HandleWebhook(ctx, payload, sign(payload, whsec)); err != nil {
					t.Errorf("order %d: webhook: %v", o.ID, err)
				}
			})
		}
		for _, by := range []int64{o.UserID, 0} {
			run(func() {
				actor := orders.ActorShopper
				if by == 0 {
					actor = orders.AdminActor("root")
				}
				_, err := st.Orders.MoveOrder(ctx, o.ID, by, orders.OrderCancelled, actor)
				var me *orders.MoveError
				if err != nil && !errors.As(err, &me) {
					t.Errorf("order %d: cancel: %v", o.ID, err)
				}
			})
		}
	}
	for range 4 {
		run(func() {
			if _, _, err := st.Orders.ExpirePaymentHolds(ctx); err != nil {
				t.Errorf("hold: %v", err)
			}
		})
	}
	close(start)
	wg.Wait()

	keysByPI := map[string]map[string]bool{}
	for _, c := range refundCalls(gate.Requests()) {
		pi := c.Form.Get("payment_intent")
		if keysByPI[pi] == nil {
			keysByPI[pi] = map[string]bool{}
		}
		keysByPI[pi][c.Header.Get("Idempotency-Key")] = true
	}
	cancelled, reasons := 0, map[string]int{}
	for i, o := range placed {
		pi := "pi_race_" + strconv.Itoa(i)
		s := stateOf(t, st.DB(), o.ID)
		rs := refundsOf(t, st, o.ID)
		switch s.Status {
		case orders.OrderPaid:
			if s.Cancels != 0 || s.Refunded != 0 || len(rs) != 0 || len(keysByPI[pi]) != 0 {
				t.Errorf("order %d paid, yet %+v with refunds %+v", o.ID, s, rs)
			}
		case orders.OrderCancelled:
			cancelled++
			var back int64
			for _, r := range rs {
				if !r.Done() {
					t.Errorf("order %d: refund %+v not done", o.ID, r)
				}
				back += r.Cents
				reasons[r.Reason]++
			}
			if s.Cancels != 1 || len(rs) != 1 || back != o.TotalCents || len(keysByPI[pi]) != 1 {
				t.Errorf("order %d cancelled: %+v, refunds %+v (%d back of %d), %d idempotency keys at Stripe",
					o.ID, s, rs, back, o.TotalCents, len(keysByPI[pi]))
			}
		default:
			t.Errorf("order %d ended %q", o.ID, s.Status)
		}
	}
	if got := wiringtest.StockOf(t, st, 7); got != int64(stock-(n-cancelled)) {
		t.Errorf("stock %d with %d of %d orders cancelled", got, cancelled, n)
	}
	t.Logf("%d paid, %d cancelled and refunded (%v)", n-cancelled, cancelled, reasons)
}
