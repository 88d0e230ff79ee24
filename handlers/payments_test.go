package handlers_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v82/webhook"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/orders"
	"storefront/store/storetest"
	"storefront/wiring"
)

// webhookSecret signs the tests' Stripe events.
const webhookSecret = "whsec_handlers_test"

// testShopURL is the tests' SHOP_URL, unlike the test server's own address.
const testShopURL = "https://shop.example"

// cardApp is the app with card payments against stripe-mock, through a
// recorder of what the shop asks of Stripe.
func cardApp(t *testing.T) (*app, func() []storetest.Recorded) {
	t.Helper()
	gate, a := gatedCardApp(t, nil)
	return a, gate.Requests
}

// gatedCardApp is the app with card payments against stripe-mock behind
// a gate that makes Stripe fail as the test asks; editCfg (may be nil)
// adjusts the HTTP config.
func gatedCardApp(t *testing.T, editCfg func(*handlers.Config)) (*storetest.StripeGate, *app) {
	t.Helper()
	gate := storetest.NewStripeGate(t, storetest.StripeMock(t))
	a := newApp(t, func(o *wiring.Options) {
		o.Stripe.SecretKey, o.Stripe.WebhookSecret, o.Stripe.APIBase = "sk_test_handlers", webhookSecret, gate.URL()
		o.ShopURL = testShopURL
	}, editCfg)
	return gate, a
}

// stripeEvent is a signed checkout.session.completed for an order.
func stripeEvent(eventID string, orderID, amount int64, secret string) ([]byte, string) {
	body := []byte(fmt.Sprintf(`{"id":%q,"object":"event","type":"checkout.session.completed","data":{"object":{"id":"cs_test_%s",
		"object":"checkout.session","client_reference_id":"%d","amount_total":%d,"currency":"usd","payment_status":"paid","payment_intent":"pi_%s"}}}`,
		eventID, eventID, orderID, amount, eventID))
	return body, webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret}).Header
}

// postWebhook sends an event to POST /webhooks/stripe as Stripe does.
func (c *client) postWebhook(body []byte, signature string) (int, string) {
	c.a.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.a.srv.URL+"/webhooks/stripe", bytes.NewReader(body))
	if err != nil {
		c.a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if signature != "" {
		req.Header.Set("Stripe-Signature", signature)
	}
	res := c.Do(req)
	return res.Status, res.Body
}

// orderPayment reads an order's status and paid amount from the database.
func (a *app) orderPayment(id int64) (string, int64) {
	a.t.Helper()
	var status string
	var paid int64
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT status, paid_cents FROM orders WHERE id = $1`, id).Scan(&status, &paid); err != nil {
		a.t.Fatal(err)
	}
	return status, paid
}

var stripeSessionURL = regexp.MustCompile(`^https://checkout\.stripe\.com/`)

// TestCardCheckoutThroughStripe: with STRIPE_SECRET_KEY the checkout
// offers the card; placing a card order holds its stock as
// awaiting_payment, creates a Checkout Session for the order (its id, its
// total in cents) and answers 303 to the session; Stripe's signed event
// pays it, and the return page (the order's page) shows it paid.
func TestCardCheckoutThroughStripe(t *testing.T) {
	a, requests := cardApp(t)
	a.setStock(7, 10)
	c := a.client()
	c.Register("carla")
	c.setQty("7", "2")
	page, _ := c.review()
	mustContain(t, page.Body, `name="payment" value="card"`, "Card")

	res := c.checkout(func(f url.Values) { f.Set("payment", "card") })
	loc := res.Header.Get("Location")
	if res.Status != http.StatusSeeOther || !stripeSessionURL.MatchString(loc) {
		t.Fatalf("card checkout: %d to %q: %.300s", res.Status, loc, res.Body)
	}
	var id, total int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT id, total_cents FROM orders`).Scan(&id, &total); err != nil {
		t.Fatal(err)
	}
	if status, paid := a.orderPayment(id); status != orders.OrderAwaitingPayment || paid != 0 {
		t.Errorf("the card order is %q (paid %d), want awaiting_payment", status, paid)
	}
	if a.stockOf(7) != 8 {
		t.Errorf("stock %d, want 8: held for the payment", a.stockOf(7))
	}
	var session url.Values
	for _, r := range requests() {
		if r.Path == "/v1/checkout/sessions" {
			session = r.Form
		}
	}
	if session.Get("client_reference_id") != strconv.FormatInt(id, 10) ||
		session.Get("success_url") != testShopURL+"/orders/"+strconv.FormatInt(id, 10) {
		t.Errorf("session asked as %v", session)
	}
	var sum int64
	for i := 0; session.Get(fmt.Sprintf("line_items[%d][quantity]", i)) != ""; i++ {
		unit, _ := strconv.ParseInt(session.Get(fmt.Sprintf("line_items[%d][price_data][unit_amount]", i)), 10, 64)
		qty, _ := strconv.ParseInt(session.Get(fmt.Sprintf("line_items[%d][quantity]", i)), 10, 64)
		sum += unit * qty
	}
	if sum != total {
		t.Errorf("the session's lines add up to %d cents, the order's total is %d", sum, total)
	}
	// Back from Stripe before the event: the order awaits its payment.
	back := c.Get("/orders/" + strconv.FormatInt(id, 10))
	if back.Status != http.StatusOK || apptest.FirstAttr(back.Body, "order-status", "data-status") != orders.OrderAwaitingPayment {
		t.Fatalf("return page: %d, status %q", back.Status, apptest.FirstAttr(back.Body, "order-status", "data-status"))
	}
	mustContain(t, back.Body, "Awaiting payment", "Card")

	body, sig := stripeEvent("evt_paid", id, total, webhookSecret)
	if status, answer := c.postWebhook(body, sig); status != http.StatusOK || !strings.Contains(answer, `"paid"`) {
		t.Fatalf("webhook: %d %s", status, answer)
	}
	if status, paid := a.orderPayment(id); status != orders.OrderPaid || paid != total {
		t.Errorf("after the event the order is %q (paid %d)", status, paid)
	}
	if got := apptest.FirstAttr(c.Get("/orders/"+strconv.FormatInt(id, 10)).Body, "order-status", "data-status"); got != orders.OrderPaid {
		t.Errorf("the order page says %q", got)
	}
	if a.stockOf(7) != 8 {
		t.Errorf("stock %d after payment, want 8", a.stockOf(7))
	}
}

// TestStripeWebhookRefusals: through the router, a missing or bad
// signature is a 400 that changes nothing; a replayed event is a 200 that
// changes nothing; an amount other than the total leaves the order unpaid.
func TestStripeWebhookRefusals(t *testing.T) {
	a, _ := cardApp(t)
	a.setStock(7, 10)
	c := a.client()
	c.setQty("7", "1")
	res := c.checkout(func(f url.Values) { f.Set("payment", "card") })
	if res.Status != http.StatusSeeOther {
		t.Fatalf("card checkout: %d", res.Status)
	}
	var id, total int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT id, total_cents FROM orders`).Scan(&id, &total); err != nil {
		t.Fatal(err)
	}
	events := func() int {
		var n int
		if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM payment_events`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	body, sig := stripeEvent("evt_1", id, total, webhookSecret)
	_, foreign := stripeEvent("evt_1", id, total, "whsec_not_ours")
	for name, s := range map[string]string{"missing": "", "foreign": foreign, "garbage": "t=1,v1=00"} {
		if status, _ := c.postWebhook(body, s); status != http.StatusBadRequest {
			t.Errorf("%s signature: %d, want 400", name, status)
		}
	}
	if status, _ := a.orderPayment(id); status != orders.OrderAwaitingPayment || events() != 0 || a.stockOf(7) != 9 {
		t.Fatalf("bad signatures changed something: %q, %d events, stock %d", status, events(), a.stockOf(7))
	}

	short, shortSig := stripeEvent("evt_short", id, total-1, webhookSecret)
	if status, answer := c.postWebhook(short, shortSig); status != http.StatusOK || !strings.Contains(answer, orders.PaymentMismatch) {
		t.Errorf("short payment: %d %s", status, answer)
	}
	if status, paid := a.orderPayment(id); status != orders.OrderAwaitingPayment || paid != 0 {
		t.Errorf("after a short payment the order is %q (paid %d)", status, paid)
	}

	for i, want := range []string{orders.PaymentApplied, orders.PaymentDuplicate, orders.PaymentDuplicate} {
		if status, answer := c.postWebhook(body, sig); status != http.StatusOK || !strings.Contains(answer, `"`+want+`"`) {
			t.Errorf("delivery %d: %d %s, want %s", i+1, status, answer, want)
		}
	}
	var paidEvents int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM order_events WHERE order_id = $1 AND status = 'paid'`, id).Scan(&paidEvents); err != nil {
		t.Fatal(err)
	}
	if status, _ := a.orderPayment(id); status != orders.OrderPaid || paidEvents != 1 || events() != 2 {
		t.Errorf("after replays: %q, %d paid entries, %d events", status, paidEvents, events())
	}
}

// TestCardOnlyWithSecretKey: without STRIPE_SECRET_KEY the checkout does
// not offer the card, refuses it (422, nothing placed) and the webhook
// route is a 404.
func TestCardOnlyWithSecretKey(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	c := a.client()
	c.setQty("7", "1")
	page, _ := c.review()
	if strings.Contains(page.Body, `value="card"`) {
		t.Error("the card is offered without a secret key")
	}
	res := c.checkout(func(f url.Values) { f.Set("payment", "card") })
	if res.Status != http.StatusUnprocessableEntity || a.orderCount() != 0 || a.stockOf(7) != 10 {
		t.Errorf("card without a key: %d, %d orders, stock %d", res.Status, a.orderCount(), a.stockOf(7))
	}
	body, sig := stripeEvent("evt_off", 1, 100, webhookSecret)
	if status, _ := c.postWebhook(body, sig); status != http.StatusNotFound {
		t.Errorf("webhook without card payments: %d, want 404", status)
	}
}

// TestCardCheckoutWhenStripeIsDown: a session Stripe will not create
// cancels the order at once (its stock back), says so on the order page and
// puts its lines back in the cart, where another way to pay orders them.
func TestCardCheckoutWhenStripeIsDown(t *testing.T) {
	down := newApp(t, func(o *wiring.Options) {
		o.Stripe.SecretKey, o.Stripe.WebhookSecret, o.Stripe.APIBase = "sk_test_down", webhookSecret, "http://127.0.0.1:1"
	}, nil)
	down.setStock(7, 10)
	c := down.client()
	c.Register("dora")
	c.setQty("7", "3")
	res := c.checkout(func(f url.Values) { f.Set("payment", "card") })
	loc := res.Header.Get("Location")
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/orders/") {
		t.Fatalf("card checkout with Stripe down: %d to %q", res.Status, loc)
	}
	id, _ := strconv.ParseInt(strings.TrimPrefix(loc, "/orders/"), 10, 64)
	if status, _ := down.orderPayment(id); status != orders.OrderCancelled || down.stockOf(7) != 10 {
		t.Errorf("order %q, stock %d; want cancelled with the stock back", status, down.stockOf(7))
	}
	page := c.Get(loc)
	mustContain(t, page.Body, "Card payments are not available right now", "nothing was charged", "back in your cart")
	// The lines are back in the cart: the shopper can pay another way.
	if res := c.checkout(nil); res.Status != http.StatusSeeOther || down.stockOf(7) != 7 {
		t.Errorf("ordering the cart again with an invoice: %d, stock %d", res.Status, down.stockOf(7))
	}
}
