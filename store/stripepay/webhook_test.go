package stripepay_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"

	"storefront/store/orders"
	"storefront/store/stripepay"
	"storefront/wiring/wiringtest"
)

// TestWebhookRefusesBadSignatures: a missing, wrong, foreign-secret, stale,
// future (past the tolerance) or tampered signature is ErrBadSignature and changes nothing: the order
// still awaits payment, its stock still held, no event recorded.
func TestWebhookRefusesBadSignatures(t *testing.T) {
	st, _ := cardShop(t)
	ctx := t.Context()
	wiringtest.SetStock(t, st, 7, 10)
	o := cardOrder(t, st, "ada", 7, 2)
	payload := completed("evt_bad", o.ID, o.TotalCents, "paid", "pi_bad")
	good := sign(payload, whsec)
	stale := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: whsec,
		Timestamp: time.Now().Add(-time.Hour)}).Header
	ahead := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: whsec,
		Timestamp: time.Now().Add(stripepay.Tolerance + time.Minute)}).Header
	tampered := completed("evt_bad", o.ID, o.TotalCents+1, "paid", "pi_bad")
	for name, tc := range map[string]struct {
		body []byte
		sig  string
	}{
		"missing":         {payload, ""},
		"garbage":         {payload, "t=1,v1=abc"},
		"another secret":  {payload, sign(payload, "whsec_someone_else")},
		"an hour old":     {payload, stale},
		"from the future": {payload, ahead},
		"tampered body":   {tampered, good},
	} {
		outcome, err := st.Card.HandleWebhook(ctx, tc.body, tc.sig)
		if !errors.Is(err, stripepay.ErrBadSignature) || outcome != "" {
			t.Errorf("%s signature: %q, %v; want ErrBadSignature", name, outcome, err)
		}
	}
	want := orderState{Status: orders.OrderAwaitingPayment}
	if got := stateOf(t, st.DB(), o.ID); got != want {
		t.Errorf("after bad signatures the order is %+v, want %+v", got, want)
	}
	if got := wiringtest.StockOf(t, st, 7); got != 8 {
		t.Errorf("stock %d, want 8 (still held)", got)
	}
	// The good signature of the same body pays it.
	if outcome, err := st.Card.HandleWebhook(ctx, payload, good); err != nil || outcome != orders.PaymentApplied {
		t.Fatalf("signed event: %q, %v", outcome, err)
	}
}

// TestWebhookReplayPaysOnce: the same event delivered many times, also at
// once, pays the order once; every other delivery is a duplicate.
func TestWebhookReplayPaysOnce(t *testing.T) {
	st, _ := cardShop(t)
	ctx := t.Context()
	wiringtest.SetStock(t, st, 7, 10)
	o := cardOrder(t, st, "ada", 7, 1)
	payload := completed("evt_once", o.ID, o.TotalCents, "paid", "pi_once")
	outcomes := make(chan string, 12)
	done := make(chan struct{})
	for range 12 {
		go func() {
			defer func() { done <- struct{}{} }()
			outcome, err := st.Card.HandleWebhook(ctx, payload, sign(payload, whsec))
			if err != nil {
				t.Errorf("delivery: %v", err)
			}
			outcomes <- outcome
		}()
	}
	for range 12 {
		<-done
	}
	close(outcomes)
	count := map[string]int{}
	for oc := range outcomes {
		count[oc]++
	}
	if count[orders.PaymentApplied] != 1 || count[orders.PaymentDuplicate] != 11 {
		t.Errorf("outcomes %v, want 1 paid and 11 duplicates", count)
	}
	want := orderState{Status: orders.OrderPaid, Paid: o.TotalCents, Ref: "pi_once", Paids: 1, Events: 1}
	if got := stateOf(t, st.DB(), o.ID); got != want {
		t.Errorf("order %+v, want %+v", got, want)
	}
}

// TestWebhookAmountMismatchLeavesOrderUnpaid: an amount other than the
// order's total is recorded and logged, the order stays awaiting payment
// with its stock held; an unpaid session changes nothing either.
func TestWebhookAmountMismatchLeavesOrderUnpaid(t *testing.T) {
	st, _ := cardShop(t)
	ctx := t.Context()
	wiringtest.SetStock(t, st, 7, 10)
	o := cardOrder(t, st, "ada", 7, 3)
	for i, amount := range []int64{o.TotalCents - 1, o.TotalCents + 100, 0} {
		payload := completed("evt_short_"+string(rune('a'+i)), o.ID, amount, "paid", "pi_short")
		if outcome, err := st.Card.HandleWebhook(ctx, payload, sign(payload, whsec)); err != nil || outcome != orders.PaymentMismatch {
			t.Errorf("amount %d: %q, %v; want a mismatch", amount, outcome, err)
		}
	}
	unpaid := completed("evt_unpaid", o.ID, o.TotalCents, "unpaid", "pi_short")
	if outcome, err := st.Card.HandleWebhook(ctx, unpaid, sign(unpaid, whsec)); err != nil || outcome != "" {
		t.Errorf("unpaid session: %q, %v", outcome, err)
	}
	want := orderState{Status: orders.OrderAwaitingPayment, Events: 3}
	if got := stateOf(t, st.DB(), o.ID); got != want {
		t.Errorf("order %+v, want %+v", got, want)
	}
	if got := wiringtest.StockOf(t, st, 7); got != 7 {
		t.Errorf("stock %d, want 7 (still held)", got)
	}
	// An event for an order that does not exist changes nothing.
	ghost := completed("evt_ghost", o.ID+1000, 100, "paid", "pi_ghost")
	if outcome, err := st.Card.HandleWebhook(ctx, ghost, sign(ghost, whsec)); err != nil || outcome != orders.PaymentNoOrder {
		t.Errorf("unknown order: %q, %v", outcome, err)
	}
}

// TestWebhookChecksCurrency: a payment of the order's total in another
// currency than the order's is a mismatch: the order stays unpaid, its
// stock held, and the payment is owed back in full (given back at once,
// Stripe being up). The same total in the shop's currency pays it.
func TestWebhookChecksCurrency(t *testing.T) {
	st, gate := gatedShop(t)
	ctx := t.Context()
	wiringtest.SetStock(t, st, 7, 10)
	o := cardOrder(t, st, "ada", 7, 2)
	eur := bytes.Replace(completed("evt_eur", o.ID, o.TotalCents, "paid", "pi_eur"), []byte(`"currency":"usd"`), []byte(`"currency":"eur"`), 1)
	if !bytes.Contains(eur, []byte(`"eur"`)) {
		t.Fatalf("the event names no currency: %s", eur)
	}
	if outcome, err := st.Card.HandleWebhook(ctx, eur, sign(eur, whsec)); err != nil || outcome != orders.PaymentMismatch {
		t.Fatalf("a payment in euros: %q, %v; want a mismatch", outcome, err)
	}
	if s := stateOf(t, st.DB(), o.ID); s.Status != orders.OrderAwaitingPayment || s.Paid != 0 {
		t.Fatalf("after a payment in another currency the order is %+v", s)
	}
	rs := refundsOf(t, st, o.ID)
	if len(rs) != 1 || !rs[0].Done() || rs[0].PaymentRef != "pi_eur" || rs[0].Reason != orders.ReasonMismatch || gate.Passed("POST /v1/refunds") != 1 {
		t.Errorf("the payment in euros is not given back: %+v", rs)
	}
	if outcome := pay(t, st, "evt_usd", o, "pi_usd"); outcome != orders.PaymentApplied {
		t.Errorf("the same total in dollars: %q", outcome)
	}
}
