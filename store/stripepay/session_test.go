package stripepay_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/store/orders"
	"storefront/wiring/wiringtest"
)

// TestBeginCreatesCheckoutSession: Begin asks Stripe (stripe-mock) for a
// Checkout Session for the order: its id as client_reference_id, the lines
// and delivery in cents adding up to the total, the return addresses, an
// expiry about the hold's; and returns the session's URL.
func TestBeginCreatesCheckoutSession(t *testing.T) {
	st, requests := cardShop(t)
	ctx := t.Context()
	wiringtest.SetStock(t, st, 7, 10)
	o := cardOrder(t, st, "ada", 7, 3)
	card, _ := st.Orders.PaymentByCode(orders.PayCard)
	back := orders.ReturnURLs{Done: "https://shop.example/orders/" + strconv.FormatInt(o.ID, 10), Cancel: "https://shop.example/orders/x"}
	url, err := card.Begin(ctx, o, back)
	if err != nil || !strings.HasPrefix(url, "https://checkout.stripe.com/") {
		t.Fatalf("Begin: %q, %v", url, err)
	}
	var sessions []map[string][]string
	for _, r := range requests() {
		if r.Method == "POST" && r.Path == "/v1/checkout/sessions" {
			sessions = append(sessions, r.Form)
			if r.Header.Get("Idempotency-Key") != "checkout-order-"+strconv.FormatInt(o.ID, 10) {
				t.Errorf("idempotency key %q", r.Header.Get("Idempotency-Key"))
			}
		}
	}
	if len(sessions) != 1 {
		t.Fatalf("%d sessions created", len(sessions))
	}
	f := sessions[0]
	get := func(k string) string {
		if v := f[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if get("client_reference_id") != strconv.FormatInt(o.ID, 10) || get("mode") != "payment" ||
		get("success_url") != back.Done || get("cancel_url") != back.Cancel {
		t.Errorf("session asked as %v", f)
	}
	if got := lineSum(t, get); got != o.TotalCents {
		t.Errorf("session lines add up to %d, the order's total is %d (%v)", got, o.TotalCents, f)
	}
	if get("line_items[0][price_data][product_data][name]") != o.Lines[0].Name || get("line_items[0][quantity]") != "3" {
		t.Errorf("first line %v", f)
	}
	exp, _ := strconv.ParseInt(get("expires_at"), 10, 64)
	if left := time.Until(time.Unix(exp, 0)); left < 30*time.Minute || left > 32*time.Minute {
		t.Errorf("session expires in %v, want about the 30-minute hold", left)
	}

	// Lines that do not add up to the total (a discount the lines do not
	// carry) become one line for the total: Stripe charges the total.
	o.TotalCents -= 250
	if _, err := card.Begin(ctx, o, back); err != nil {
		t.Fatal(err)
	}
	last := requests()[len(requests())-1].Form
	lastGet := func(k string) string {
		if v := last[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if got := lineSum(t, lastGet); got != o.TotalCents || lastGet("line_items[1][quantity]") != "" {
		t.Errorf("a total the lines do not make: sent %d in %v, want one line of %d", got, last, o.TotalCents)
	}
}

// lineSum adds up a session form's line items (unit amount times quantity).
func lineSum(t *testing.T, get func(string) string) int64 {
	t.Helper()
	var sum int64
	for i := 0; ; i++ {
		p := "line_items[" + strconv.Itoa(i) + "]"
		if get(p+"[quantity]") == "" {
			return sum
		}
		if get(p+"[price_data][currency]") != "usd" {
			t.Errorf("line %d currency %q", i, get(p+"[price_data][currency]"))
		}
		amount, err1 := strconv.ParseInt(get(p+"[price_data][unit_amount]"), 10, 64)
		qty, err2 := strconv.ParseInt(get(p+"[quantity]"), 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %d: %v %v", i, err1, err2)
		}
		sum += amount * qty
	}
}
