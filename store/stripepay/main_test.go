package stripepay_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"

	"storefront/store/orders"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// whsec signs the tests' webhook events.
const whsec = "whsec_test_storefront"

// cardShop is a shop with card payments against stripe-mock (through a
// recorder, so tests see what was asked of Stripe).
func cardShop(t *testing.T, edit ...func(*wiring.Options)) (*wiring.Services, func() []storetest.Recorded) {
	t.Helper()
	base, requests := storetest.Recorder(t, storetest.StripeMock(t))
	st := wiringtest.New(t, append([]func(*wiring.Options){func(o *wiring.Options) {
		o.Stripe.SecretKey, o.Stripe.WebhookSecret, o.Stripe.APIBase = "sk_test_storefront", whsec, base
	}}, edit...)...)
	if st.Card == nil {
		t.Fatal("card payments are not wired with a secret key")
	}
	return st, requests
}

// gatedShop is a shop with card payments against stripe-mock behind a
// gate that makes Stripe fail as the test asks.
func gatedShop(t *testing.T, edit ...func(*wiring.Options)) (*wiring.Services, *storetest.StripeGate) {
	t.Helper()
	gate := storetest.NewStripeGate(t, storetest.StripeMock(t))
	st := wiringtest.New(t, append([]func(*wiring.Options){func(o *wiring.Options) {
		o.Stripe.SecretKey, o.Stripe.WebhookSecret, o.Stripe.APIBase = "sk_test_storefront", whsec, gate.URL()
	}}, edit...)...)
	return st, gate
}

// refundRow is an order's refunds as the ledger has them.
func refundsOf(t *testing.T, st *wiring.Services, orderID int64) []orders.Refund {
	t.Helper()
	rs, err := st.Orders.Refunds(context.WithoutCancel(t.Context()), orderID)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// pay sends a signed checkout.session.completed for order o, paid by pi.
func pay(t *testing.T, st *wiring.Services, eventID string, o orders.Order, pi string) string {
	t.Helper()
	payload := completed(eventID, o.ID, o.TotalCents, "paid", pi)
	outcome, err := st.Card.HandleWebhook(context.WithoutCancel(t.Context()), payload, sign(payload, whsec))
	if err != nil {
		t.Fatalf("webhook %s: %v", eventID, err)
	}
	return outcome
}

// cardOrder places a card order of qty units of item for a new shopper.
func cardOrder(t *testing.T, st *wiring.Services, name string, item, qty int64) orders.Order {
	t.Helper()
	tok, _ := wiringtest.Shopper(t, st, name)
	wiringtest.SetLine(t, st, tok, item, qty)
	req := wiringtest.Buy(tok, -1)
	req.Payment = orders.PayCard
	o, err := st.Orders.Checkout(context.WithoutCancel(t.Context()), req)
	if err != nil {
		t.Fatalf("card checkout: %v", err)
	}
	if o.Status != orders.OrderAwaitingPayment {
		t.Fatalf("a card order is placed as %q", o.Status)
	}
	return o
}

// completed is a checkout.session.completed event's JSON.
func completed(eventID string, orderID, amount int64, status, paymentIntent string) []byte {
	b, err := json.Marshal(map[string]any{
		"id": eventID, "object": "event", "type": "checkout.session.completed", "api_version": "2025-07-30.basil",
		"data": map[string]any{"object": map[string]any{
			"id": "cs_test_" + eventID, "object": "checkout.session", "client_reference_id": fmt.Sprint(orderID),
			"amount_total": amount, "currency": "usd", "payment_status": status, "payment_intent": paymentIntent,
		}},
	})
	if err != nil {
		panic(err)
	}
	return b
}

// sign is the Stripe-Signature header of payload under secret, now.
func sign(payload []byte, secret string) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret}).Header
}

// orderState is what a payment may change about an order.
type orderState struct {
	Status                 string
	Paid, Refunded         int64
	Ref                    string
	Paids, Cancels, Events int
}

func stateOf(t *testing.T, db *sql.DB, id int64) orderState {
	t.Helper()
	var s orderState
	ctx := context.WithoutCancel(t.Context())
	if err := db.QueryRowContext(ctx, `SELECT status, paid_cents, refunded_cents, payment_ref FROM orders WHERE id = $1`, id).
		Scan(&s.Status, &s.Paid, &s.Refunded, &s.Ref); err != nil {
		t.Fatalf("order %d: %v", id, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM order_events WHERE order_id = $1 AND status = 'paid'),
		(SELECT COUNT(*) FROM order_events WHERE order_id = $1 AND status = 'cancelled'),
		(SELECT COUNT(*) FROM payment_events WHERE order_id = $1)`, id).Scan(&s.Paids, &s.Cancels, &s.Events); err != nil {
		t.Fatalf("order %d: %v", id, err)
	}
	return s
}

// afterHold moves the shop's clock past the payment hold.
func afterHold(st *wiring.Services) {
	shift := st.Options().PaymentHold + time.Minute
	st.SetClock(func() time.Time { return time.Now().Add(shift) })
}

// refundCalls are the recorded requests that asked Stripe for a refund.
func refundCalls(rs []storetest.Recorded) []storetest.Recorded {
	var out []storetest.Recorded
	for _, r := range rs {
		if r.Method == "POST" && r.Path == "/v1/refunds" {
			out = append(out, r)
		}
	}
	return out
}
