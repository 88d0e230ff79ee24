package stripepay_test

import (
	"context"
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

// TestLatePaymentRefundOwedUntilStripeAnswers: a payment for an order its
// hold already cancelled, while Stripe is down, is answered (200: the
// outcome, no error) with its refund owed in the ledger, not logged for a
// person to do; the event delivered again is a duplicate and another
// event of the same payment owes nothing more. Two instances run the
// refunds worker: while Stripe is down they keep trying (one at a time,
// the lease's holder), and once it is back the refund is done, asked of
// Stripe exactly once.
func TestLatePaymentRefundOwedUntilStripeAnswers(t *testing.T) {
	fast := func(o *wiring.Options) { o.RefundRetry = 20 * time.Millisecond }
	st, gate := gatedShop(t, fast)
	ctx := context.WithoutCancel(t.Context())
	wiringtest.SetStock(t, st, 7, 10)
	o := cardOrder(t, st, "late", 7, 1)
	afterHold(st)
	if n, _, err := st.Orders.ExpirePaymentHolds(ctx); err != nil || n != 1 {
		t.Fatalf("hold: %d, %v", n, err)
	}
	st.SetClock(time.Now)
	gate.Set(storetest.StripeDown)
	if outcome := pay(t, st, "evt_late", o, "pi_late"); outcome != orders.PaymentTooLate {
		t.Fatalf("late payment: %q", outcome)
	}
	rs := refundsOf(t, st, o.ID)
	if len(rs) != 1 || rs[0].Status != orders.RefundOwed || rs[0].Cents != o.TotalCents || rs[0].PaymentRef != "pi_late" ||
		rs[0].Reason != orders.ReasonLatePayment || rs[0].LastError == "" {
		t.Fatalf("ledger after the late payment: %+v", rs)
	}
	if outcome := pay(t, st, "evt_late", o, "pi_late"); outcome != orders.PaymentDuplicate {
		t.Errorf("the event again: %q", outcome)
	}
	if outcome := pay(t, st, "evt_late_again", o, "pi_late"); outcome != orders.PaymentTooLate {
		t.Errorf("another event of the payment: %q", outcome)
	}
	if got := refundsOf(t, st, o.ID); len(got) != 1 {
		t.Fatalf("%d refunds for one late payment, want 1", len(got))
	}

	other := wiring.New(st.Redis(), st.DB(), st.Options(), storetest.Logger(t))
	t.Cleanup(other.Close)
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, s := range []*wiring.Services{st, other} {
		w := namedWorker(t, s.Workers(), keys.LeaseRefunds)
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Run(wctx)
		}()
	}
	defer func() {
		stop()
		wg.Wait()
	}()
	storetest.Eventually(t, func() bool { return refundsOf(t, st, o.ID)[0].Attempts >= 3 }, "the worker does not try the owed refund again")
	if r := refundsOf(t, st, o.ID)[0]; r.Status != orders.RefundOwed {
		t.Fatalf("with Stripe down the refund is %+v", r)
	}
	gate.Set(storetest.StripeUp)
	storetest.Eventually(t, func() bool { return refundsOf(t, st, o.ID)[0].Done() }, "the worker does not give the refund back once Stripe is up")
	holder, err := st.LeaseHolder(ctx, keys.LeaseRefunds)
	if err != nil || (holder != st.Instance() && holder != other.Instance()) {
		t.Errorf("refunds lease held by %q (%v)", holder, err)
	}
	stop()
	wg.Wait()
	if n := gate.Passed("POST /v1/refunds"); n != 1 {
		t.Errorf("%d refunds reached Stripe, want 1", n)
	}
	keysSeen := map[string]bool{}
	for _, c := range refundCalls(gate.Requests()) {
		keysSeen[c.Header.Get("Idempotency-Key")] = true
		if c.Form.Get("payment_intent") != "pi_late" {
			t.Errorf("refund of %q", c.Form.Get("payment_intent"))
		}
	}
	if len(keysSeen) != 1 {
		t.Errorf("idempotency keys %v, want one", keysSeen)
	}
	if s := stateOf(t, st.DB(), o.ID); s.Status != orders.OrderCancelled || s.Paid != 0 || s.Refunded != 0 {
		t.Errorf("the cancelled order: %+v (a late payment is not the order's)", s)
	}
}

// namedWorker picks a worker by name from an instance's workers.
func namedWorker(t *testing.T, ws []workers.Worker, name string) workers.Worker {
	t.Helper()
	for _, w := range ws {
		if w.Name() == name {
			return w
		}
	}
	t.Fatalf("no %s worker", name)
	return nil
}
