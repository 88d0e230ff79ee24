package returns_test

import (
	"errors"
	"testing"
	"time"

	"storefront/store/cart"
	"storefront/store/orders"
	"storefront/store/returns"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

// TestStuckReturnSettled: a card return whose refund Stripe cannot give
// back yet stays refunding with its refund owed (not an error, not back to
// received); the admin's retry while Stripe is down leaves it so, and
// once Stripe is back the retry refunds it (its email sent). The refunds
// worker settles another on its own. A third is settled by hand with a
// note: refunded, the ledger done with the note, nothing asked of Stripe.
// A return stuck before its refund was even asked for is refunded by the
// retry. A wrong status, a missing note or a refund being tried at that
// moment is refused and changes nothing.
func TestStuckReturnSettled(t *testing.T) {
	gate := storetest.NewStripeGate(t, storetest.StripeMock(t))
	st := moneyShop(t, gate.URL(), false)
	ctx := t.Context()
	owner, uid := wiringtest.Shopper(t, st, "stuck")
	if err := st.Sessions.SetEmail(ctx, uid, "stuck@example.com"); err != nil {
		t.Fatal(err)
	}
	o := boughtAndDelivered(t, st, owner, orders.PayCard, "", cart.Line{ItemID: itemA, Qty: 4}, cart.Line{ItemID: itemB, Qty: 1})
	received := func(qty int64, item int64) returns.Return {
		t.Helper()
		r, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: item}: qty}, Reason: "no"})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{returns.ActApprove, returns.ActReceive} {
			if r, err = st.Returns.Act(ctx, r.ID, a, false, "admin:a"); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	refundedMails := func() int64 {
		return count(t, st, `SELECT COUNT(*) FROM outbox WHERE kind = 'return-refunded'`)
	}

	gate.Set(storetest.StripeDown)
	r1 := received(1, itemA)
	r1, err := st.Returns.Act(ctx, r1.ID, returns.ActRefund, false, "admin:a")
	if err != nil || r1.Status != returns.Refunding || r1.RefundCents != 1250 {
		t.Fatalf("refund with Stripe down: %+v, %v; want it refunding, 12.50 owed", r1, err)
	}
	rf, ok, err := st.Orders.RefundFor(ctx, o.ID, orders.ReturnReason(r1.ID))
	if err != nil || !ok || rf.Status != orders.RefundOwed || rf.Cents != 1250 {
		t.Fatalf("the return's refund in the ledger: %+v %v %v", rf, ok, err)
	}
	if r1, err = st.Returns.Act(ctx, r1.ID, returns.ActRetryRefund, false, "admin:a"); err != nil || r1.Status != returns.Refunding {
		t.Fatalf("retry with Stripe down: %+v, %v", r1, err)
	}
	gate.Set(storetest.StripeUp)
	if r1, err = st.Returns.Act(ctx, r1.ID, returns.ActRetryRefund, false, "admin:a"); err != nil || r1.Status != returns.Refunded || r1.RefundCents != 1250 {
		t.Fatalf("retry with Stripe back: %+v, %v", r1, err)
	}
	if refundedMails() != 1 || gate.Passed("POST /v1/refunds") != 1 {
		t.Fatalf("%d refunded mails, %d refunds at Stripe; want 1 and 1", refundedMails(), gate.Passed("POST /v1/refunds"))
	}

	// The worker settles an owed one on its own.
	gate.Set(storetest.StripeDown)
	r2 := received(1, itemA)
	if r2, err = st.Returns.Act(ctx, r2.ID, returns.ActRefund, false, "admin:a"); err != nil || r2.Status != returns.Refunding {
		t.Fatalf("second refund: %+v, %v", r2, err)
	}
	gate.Set(storetest.StripeUp)
	later := time.Now().Add(2 * time.Hour)
	st.SetClock(func() time.Time { return later })
	if p, _, err := st.Orders.RetryOwedRefunds(ctx); err != nil || p.Done != 1 {
		t.Fatalf("the worker's pass: %+v, %v", p, err)
	}
	if r2, _ = st.Returns.Get(ctx, r2.ID); r2.Status != returns.Refunded || refundedMails() != 2 {
		t.Fatalf("after the worker: %+v, %d mails", r2, refundedMails())
	}
	st.SetClock(time.Now)

	// By hand.
	gate.Set(storetest.StripeDown)
	r3 := received(1, itemB)
	if r3, err = st.Returns.Act(ctx, r3.ID, returns.ActRefund, false, "admin:a"); err != nil || r3.Status != returns.Refunding {
		t.Fatalf("third refund: %+v, %v", r3, err)
	}
	rf3, _, _ := st.Orders.RefundFor(ctx, o.ID, orders.ReturnReason(r3.ID))
	if _, err := st.DB().ExecContext(ctx, `UPDATE order_refunds SET claimed_until = $1 WHERE id = $2`, time.Now().Add(time.Minute).Unix(), rf3.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Returns.SettleByHand(ctx, r3.ID, "bank transfer", "admin:a"); !errors.Is(err, orders.ErrRefundNotOwed) {
		t.Errorf("settling a refund being tried: %v", err)
	}
	if _, err := st.DB().ExecContext(ctx, `UPDATE order_refunds SET claimed_until = 0 WHERE id = $1`, rf3.ID); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "   ", string(make([]rune, orders.MaxRefundNoteLen+1))} {
		if _, err := st.Returns.SettleByHand(ctx, r3.ID, bad, "admin:a"); !errors.Is(err, orders.ErrNote) {
			t.Errorf("note %q: %v", bad, err)
		}
	}
	passed := gate.Passed("POST /v1/refunds")
	gate.Set(storetest.StripeUp)
	if r3, err = st.Returns.SettleByHand(ctx, r3.ID, "bank transfer on 3 May", "admin:a"); err != nil || r3.Status != returns.Refunded || r3.Note == "" {
		t.Fatalf("settled by hand: %+v, %v", r3, err)
	}
	if rf3, _, _ = st.Orders.RefundFor(ctx, o.ID, orders.ReturnReason(r3.ID)); !rf3.Done() || rf3.Note == "" || rf3.Ref != "" {
		t.Errorf("the ledger after settling by hand: %+v", rf3)
	}
	if gate.Passed("POST /v1/refunds") != passed || refundedMails() != 3 {
		t.Errorf("settling by hand asked Stripe (%d) or sent %d mails", gate.Passed("POST /v1/refunds")-passed, refundedMails())
	}
	if _, err := st.Returns.SettleByHand(ctx, r3.ID, "again", "admin:a"); !errors.As(err, new(*returns.MoveError)) {
		t.Errorf("settling a refunded return: %v", err)
	}

	// Refused by Stripe for good: it stays refunding, the refund failed
	// (not tried again by the worker), until the admin tries again.
	gate.Set(storetest.StripeRefuse)
	r5 := received(1, itemA)
	if r5, err = st.Returns.Act(ctx, r5.ID, returns.ActRefund, false, "admin:a"); err != nil || r5.Status != returns.Refunding {
		t.Fatalf("a refund Stripe refuses: %+v, %v", r5, err)
	}
	if rf5, _, _ := st.Orders.RefundFor(ctx, o.ID, orders.ReturnReason(r5.ID)); rf5.Status != orders.RefundFailed || rf5.LastError == "" {
		t.Fatalf("the refused refund in the ledger: %+v", rf5)
	}
	gate.Set(storetest.StripeUp)
	later = later.Add(2 * time.Hour)
	st.SetClock(func() time.Time { return later })
	if p, _, err := st.Orders.RetryOwedRefunds(ctx); err != nil || p != (orders.RefundPass{}) {
		t.Errorf("the worker tried a refused refund: %+v, %v", p, err)
	}
	st.SetClock(time.Now)
	if r5, err = st.Returns.RetryRefund(ctx, r5.ID, "admin:a"); err != nil || r5.Status != returns.Refunded {
		t.Fatalf("the admin's retry of a refused refund: %+v, %v", r5, err)
	}

	// Stuck before the refund was asked for (the instance stopped).
	r4 := received(1, itemA)
	if _, err := st.DB().ExecContext(ctx, `UPDATE returns SET status = $1 WHERE id = $2`, returns.Refunding, r4.ID); err != nil {
		t.Fatal(err)
	}
	if r4, err = st.Returns.RetryRefund(ctx, r4.ID, "admin:a"); err != nil || r4.Status != returns.Refunded || r4.RefundCents != 1250 {
		t.Fatalf("retry of a return stuck before its refund: %+v, %v", r4, err)
	}
	after, _ := st.Orders.OrderAny(ctx, o.ID)
	if after.RefundedCents != 1250+1250+1999+1250+1250 {
		t.Errorf("the order's refunded_cents %d", after.RefundedCents)
	}
}
