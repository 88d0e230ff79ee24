package stripepay_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"storefront/store/keys"
	"storefront/store/orders"
	"storefront/store/storetest"
	"storefront/store/workers"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// TestWebhookRacesHoldExpiry: for many orders whose hold has run out, the
// payment's events (several deliveries with their own ids) and the hold
// worker's passes run at once. Each order ends in one consistent state:
// paid with its stock sold and no cancel, or cancelled with its stock
// back, no payment kept and the late payment refunded; never both.
func TestWebhookRacesHoldExpiry(t *testing.T) {
	st, requests := cardShop(t)
	ctx := context.WithoutCancel(t.Context())
	const n, stock = 12, 100
	wiringtest.SetStock(t, st, 7, stock)
	placed := make([]orders.Order, n)
	for i := range placed {
		placed[i] = cardOrder(t, st, fmt.Sprintf("racer%d", i), 7, 1)
	}
	afterHold(st)

	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, o := range placed {
		for d := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				payload := completed(fmt.Sprintf("evt_race_%d_%d", i, d), o.ID, o.TotalCents, "paid", fmt.Sprintf("pi_race_%d", i))
				if _, err := st.Card.HandleWebhook(ctx, payload, sign(payload, whsec)); err != nil {
					t.Errorf("order %d: webhook: %v", o.ID, err)
				}
			}()
		}
	}
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if _, _, err := st.Orders.ExpirePaymentHolds(ctx); err != nil {
				t.Errorf("hold: %v", err)
			}
		}()
	}
	close(start)
	wg.Wait()
	// Whatever the last hold pass missed (paid after its read) is settled.
	if _, _, err := st.Orders.ExpirePaymentHolds(ctx); err != nil {
		t.Fatal(err)
	}

	paid, lateRefunds := 0, 0
	refunded := map[string]int{}
	for _, r := range requests() {
		if r.Path == "/v1/refunds" {
			refunded[r.Form.Get("payment_intent")]++
		}
	}
	for i, o := range placed {
		s := stateOf(t, st.DB(), o.ID)
		pi := fmt.Sprintf("pi_race_%d", i)
		switch s.Status {
		case orders.OrderPaid:
			paid++
			if s.Paids != 1 || s.Cancels != 0 || s.Paid != o.TotalCents || s.Ref != pi || refunded[pi] != 0 {
				t.Errorf("order %d paid inconsistently: %+v, refunds %d", o.ID, s, refunded[pi])
			}
		case orders.OrderCancelled:
			if s.Paids != 0 || s.Cancels != 1 || s.Paid != 0 || s.Ref != "" || refunded[pi] == 0 {
				t.Errorf("order %d cancelled inconsistently: %+v, refunds %d", o.ID, s, refunded[pi])
			}
			lateRefunds++
		default:
			t.Errorf("order %d ended %q", o.ID, s.Status)
		}
		if s.Events != 3 {
			t.Errorf("order %d: %d events recorded, want 3", o.ID, s.Events)
		}
	}
	if got := wiringtest.StockOf(t, st, 7); got != int64(stock-paid) {
		t.Errorf("stock %d with %d orders paid, want %d", got, paid, stock-paid)
	}
	t.Logf("%d paid, %d cancelled and refunded", paid, lateRefunds)
}

// TestHoldWorkerOnTwoInstances: two instances on one Redis and database
// run the payment hold worker; every expired order is cancelled once and
// its stock comes back once, one instance holding the lease.
func TestHoldWorkerOnTwoInstances(t *testing.T) {
	hold := func(o *wiring.Options) { o.PaymentHold = 2 * time.Second }
	st, _ := cardShop(t, hold)
	opt := st.Options()
	other := wiring.New(st.Redis(), st.DB(), opt, storetest.Logger(t))
	t.Cleanup(other.Close)
	const n, stock = 20, 50
	wiringtest.SetStock(t, st, 7, stock)
	wiringtest.SetStock(t, st, 8, stock)
	placed := make([]orders.Order, n)
	for i := range placed {
		placed[i] = cardOrder(t, st, fmt.Sprintf("slow%d", i), 7+int64(i%2), 2)
	}
	// One order is paid in time: the worker leaves it alone.
	payload := completed("evt_in_time", placed[0].ID, placed[0].TotalCents, "paid", "pi_in_time")
	if outcome, err := st.Card.HandleWebhook(t.Context(), payload, sign(payload, whsec)); err != nil || outcome != orders.PaymentApplied {
		t.Fatalf("payment in time: %q, %v", outcome, err)
	}
	afterHold(st)
	afterHold(other)

	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	var wg sync.WaitGroup
	for _, s := range []*wiring.Services{st, other} {
		w := holdWorker(t, s.Workers())
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Run(ctx)
		}()
	}
	storetest.Eventually(t, func() bool {
		var left int
		if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE status = $1`, orders.OrderAwaitingPayment).Scan(&left); err != nil {
			t.Fatal(err)
		}
		return left == 0
	}, "the hold worker did not cancel the expired orders")
	holder, err := st.LeaseHolder(ctx, keys.LeasePaymentHold)
	if err != nil || (holder != st.Instance() && holder != other.Instance()) {
		t.Errorf("lease holder %q (%v), want one of the two instances", holder, err)
	}
	cancel()
	wg.Wait()

	for i, o := range placed {
		s := stateOf(t, st.DB(), o.ID)
		switch {
		case i == 0 && (s.Status != orders.OrderPaid || s.Cancels != 0):
			t.Errorf("the order paid in time: %+v", s)
		case i > 0 && (s.Status != orders.OrderCancelled || s.Cancels != 1):
			t.Errorf("order %d: %+v, want cancelled once", o.ID, s)
		}
	}
	// Item 7 kept the paid order's 2 units; everything else came back.
	if a, b := wiringtest.StockOf(t, st, 7), wiringtest.StockOf(t, st, 8); a != stock-2 || b != stock {
		t.Errorf("stock %d and %d, want %d and %d", a, b, stock-2, stock)
	}
	rep, err := st.WorkerStatus(t.Context(), keys.LeasePaymentHold)
	if err != nil || rep.Instance == "" || rep.Totals["cancelled"] != n-1 {
		t.Errorf("the hold worker's report: %+v, %v; want %d cancelled in all", rep, err, n-1)
	}
}

// holdWorker picks the payment hold worker from an instance's workers.
func holdWorker(t *testing.T, ws []workers.Worker) workers.Worker {
	t.Helper()
	for _, w := range ws {
		if w.Name() == keys.LeasePaymentHold {
			return w
		}
	}
	t.Fatal("no payment hold worker")
	return nil
}
