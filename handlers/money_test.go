package handlers_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/orders"
	"storefront/store/storetest"
	"storefront/views"
)

// cardCheckout places a card order for the client's cart at the total
// shown and returns its id; the checkout must answer 303 to want ("" for
// Stripe's page).
func (c *client) cardCheckout(edit func(url.Values)) (int64, apptest.Response) {
	c.a.t.Helper()
	res := c.checkout(func(f url.Values) {
		f.Set("payment", "card")
		if edit != nil {
			edit(f)
		}
	})
	if res.Status != http.StatusSeeOther {
		c.a.t.Fatalf("card checkout: %d: %s", res.Status, textOf(res.Body, "flash"))
	}
	var id int64
	if err := c.a.store.DB().QueryRowContext(c.a.t.Context(), `SELECT MAX(id) FROM orders`).Scan(&id); err != nil {
		c.a.t.Fatal(err)
	}
	return id, res
}

// payOrder sends Stripe's signed event paying order id in full.
func (c *client) payOrder(id int64, eventID string) {
	c.a.t.Helper()
	o, err := c.a.store.Orders.OrderAny(c.a.t.Context(), id)
	if err != nil {
		c.a.t.Fatal(err)
	}
	body, sig := stripeEvent(eventID, id, o.TotalCents, webhookSecret)
	if status, answer := c.postWebhook(body, sig); status != http.StatusOK || !strings.Contains(answer, orders.PaymentApplied) {
		c.a.t.Fatalf("pay order %d: %d %s", id, status, answer)
	}
}

// sessionsAsked are the Checkout Sessions the shop asked Stripe for.
func sessionsAsked(gate *storetest.StripeGate) []storetest.Recorded {
	var out []storetest.Recorded
	for _, r := range gate.Requests() {
		if r.Method == http.MethodPost && r.Path == "/v1/checkout/sessions" {
			out = append(out, r)
		}
	}
	return out
}

// TestStripeReturnURLsFromShopURL: the addresses Stripe sends the shopper
// back to are on SHOP_URL whatever Host the checkout named (a member's
// order page, a guest's signed link): a forged Host never receives a
// guest's order key.
func TestStripeReturnURLsFromShopURL(t *testing.T) {
	gate, a := gatedCardApp(t, nil)
	a.setStock(7, 10)
	member := a.client()
	member.Register("hosta")
	member.setQty("7", "1")
	guest := a.client()
	guest.setQty("7", "1")
	for _, c := range []*client{member, guest} {
		page, total := c.review()
		f := checkoutForm(total, strings.Contains(page.Body, `name="email"`))
		f.Set("payment", "card")
		res := c.Post("/checkout", f, "Host", "evil.example", "Origin", "http://evil.example")
		if res.Status != http.StatusSeeOther || !stripeSessionURL.MatchString(res.Header.Get("Location")) {
			t.Fatalf("card checkout with a forged Host: %d to %q", res.Status, res.Header.Get("Location"))
		}
	}
	asked := sessionsAsked(gate)
	if len(asked) != 2 {
		t.Fatalf("%d sessions asked, want 2", len(asked))
	}
	for i, s := range asked {
		for _, k := range []string{"success_url", "cancel_url"} {
			if u := s.Form.Get(k); !strings.HasPrefix(u, testShopURL+"/") || strings.Contains(u, "evil.example") {
				t.Errorf("session %d: %s = %q, want it on %s", i, k, u, testShopURL)
			}
		}
	}
	if u := asked[1].Form.Get("success_url"); !strings.HasPrefix(u, testShopURL+"/guest-orders/") || !strings.Contains(u, "?key=") {
		t.Errorf("the guest's return page %q", u)
	}
}

// TestCardOrderConfirmedWhenPaid: a card order sends no confirmation when
// it is placed; Stripe's payment sends it (once, with the order's lines
// and total). A card order whose payment cannot start (Stripe down) sends
// nothing at all: not "placed" and then "cancelled".
func TestCardOrderConfirmedWhenPaid(t *testing.T) {
	gate, a := gatedCardApp(t, nil)
	a.setStock(7, 10)
	c := a.client()
	c.Register("paula")
	to := apptest.Email("paula")
	c.setQty("7", "1")
	id, _ := c.cardCheckout(nil)
	if n := len(a.mailsTo(to, "order-placed")); n != 0 {
		t.Fatalf("%d confirmations for an order awaiting its payment", n)
	}
	c.payOrder(id, "evt_paula")
	placed := a.mailsTo(to, "order-placed")
	if len(placed) != 1 || !strings.Contains(placed[0].Text, "#"+itoa(id)) && !strings.Contains(placed[0].Subject, itoa(id)) {
		t.Fatalf("confirmations after the payment: %+v", placed)
	}
	o, _ := a.store.Orders.OrderAny(t.Context(), id)
	if !strings.Contains(placed[0].Text, views.DefaultShop.Currency.Format(o.TotalCents)) || !strings.Contains(placed[0].Text, o.Lines[0].Name) {
		t.Errorf("the confirmation lacks the total or the lines:\n%s", placed[0].Text)
	}

	gate.Set(storetest.StripeDown)
	c.setQty("7", "2")
	down, res := c.cardCheckout(nil)
	if loc := res.Header.Get("Location"); loc != "/orders/"+itoa(down) {
		t.Fatalf("card checkout with Stripe down went to %q", loc)
	}
	if status, _ := a.orderPayment(down); status != orders.OrderCancelled {
		t.Fatalf("the order whose payment never started is %q", status)
	}
	var mails int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM outbox WHERE to_addr = $1 AND kind LIKE 'order-%'`, to).Scan(&mails); err != nil {
		t.Fatal(err)
	}
	if mails != 1 {
		t.Errorf("%d order emails to %s, want 1 (the paid order's confirmation; none for the order that never started)", mails, to)
	}
}

// TestNoStripeCallOutlivesTheRequest: with a Stripe that accepts every
// connection and never answers, each request that calls it answers within
// its REQUEST_TIMEOUT (the test's client gives up far sooner than the
// Stripe client's own timeout would): the webhook of a late payment
// answers 200 with its refund owed; a card checkout cancels the order
// and says why; a shopper's cancel of a paid order applies with its
// refund owed.
func TestNoStripeCallOutlivesTheRequest(t *testing.T) {
	gate, a := gatedCardApp(t, func(cfg *handlers.Config) { cfg.RequestTimeout = 2 * time.Second })
	a.setStock(7, 20)
	c := a.client()
	c.Register("hank")
	c.setQty("7", "1")
	late, _ := c.cardCheckout(nil)
	c.MustPost("/orders/"+itoa(late)+"/cancel", url.Values{}, http.StatusSeeOther)
	c.setQty("7", "1")
	paid, _ := c.cardCheckout(nil)
	c.payOrder(paid, "evt_hank_paid")

	gate.Set(storetest.StripeHang)
	quick := &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	o, _ := a.store.Orders.OrderAny(t.Context(), late)
	body, sig := stripeEvent("evt_hank_late", late, o.TotalCents, webhookSecret)
	req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/webhooks/stripe", bytes.NewReader(body))
	req.Header.Set("Stripe-Signature", sig)
	res, err := quick.Do(req)
	if err != nil {
		t.Fatalf("the webhook waited on a Stripe that does not answer: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("webhook of a late payment with Stripe hanging: %d", res.StatusCode)
	}
	rs, _ := a.store.Orders.Refunds(t.Context(), late)
	if len(rs) != 1 || rs[0].Status != orders.RefundOwed || rs[0].LastError == "" || gate.Hung() == 0 {
		t.Fatalf("the late payment's refund: %+v (hung requests %d)", rs, gate.Hung())
	}

	c.setQty("7", "1")
	page, total := c.review()
	f := checkoutForm(total, strings.Contains(page.Body, `name="email"`))
	f.Set("payment", "card")
	creq, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/checkout", strings.NewReader(f.Encode()))
	creq.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	creq.Header.Set("Origin", a.srv.URL)
	creq.Header.Set("Sec-Fetch-Site", "same-origin")
	for _, ck := range c.HTTP().Jar.Cookies(req.URL) {
		creq.AddCookie(ck)
	}
	cres, err := quick.Do(creq)
	if err != nil {
		t.Fatalf("the card checkout waited on a Stripe that does not answer: %v", err)
	}
	cres.Body.Close()
	if cres.StatusCode != http.StatusSeeOther || !strings.HasPrefix(cres.Header.Get("Location"), "/orders/") {
		t.Fatalf("card checkout with Stripe hanging: %d to %q", cres.StatusCode, cres.Header.Get("Location"))
	}
	id, _ := strconv.ParseInt(strings.TrimPrefix(cres.Header.Get("Location"), "/orders/"), 10, 64)
	if status, _ := a.orderPayment(id); status != orders.OrderCancelled {
		t.Errorf("the order whose payment did not start is %q", status)
	}

	cancel := c.Post("/orders/"+itoa(paid)+"/cancel", url.Values{})
	if cancel.Status != http.StatusSeeOther {
		t.Fatalf("cancel of a paid order with Stripe hanging: %d", cancel.Status)
	}
	got, _ := a.store.Orders.OrderAny(t.Context(), paid)
	rs, _ = a.store.Orders.Refunds(t.Context(), paid)
	if got.Status != orders.OrderCancelled || got.RefundedCents != got.PaidCents || len(rs) != 1 || rs[0].Status != orders.RefundOwed {
		t.Errorf("the cancelled paid order: %q, refunded %d of %d, ledger %+v", got.Status, got.RefundedCents, got.PaidCents, rs)
	}
}

// TestCancelPaidOrderThroughPages: a member cancels a paid card order from
// its page and is told the money goes back, which the page then shows;
// the admin's cancel of another paid order refunds it too.
func TestCancelPaidOrderThroughPages(t *testing.T) {
	gate, a := gatedCardApp(t, nil)
	a.setStock(7, 20)
	c := a.client()
	c.Register("carol")
	c.setQty("7", "1")
	id, _ := c.cardCheckout(nil)
	c.payOrder(id, "evt_carol")
	res := c.MustPost("/orders/"+itoa(id)+"/cancel", url.Values{}, http.StatusSeeOther)
	page := c.MustGet(res.Header.Get("Location"), http.StatusOK)
	o, _ := a.store.Orders.OrderAny(t.Context(), id)
	if !strings.Contains(textOf(page.Body, "flash"), "goes back to your card") || o.RefundedCents != o.PaidCents || o.PaidCents == 0 {
		t.Fatalf("after the cancel: flash %q, refunded %d of %d", textOf(page.Body, "flash"), o.RefundedCents, o.PaidCents)
	}
	if got := apptest.FirstAttr(page.Body, "order-refunded", "data-amount"); got != centsText(o.PaidCents) {
		t.Errorf("the order page shows %q refunded, want %s", got, centsText(o.PaidCents))
	}

	c.setQty("7", "1")
	id2, _ := c.cardCheckout(nil)
	c.payOrder(id2, "evt_carol2")
	admin := a.client()
	admin.signInAdmin()
	admin.MustPost("/admin/orders/"+itoa(id2)+"/status", url.Values{"status": {"cancelled"}}, http.StatusSeeOther)
	o2, _ := a.store.Orders.OrderAny(t.Context(), id2)
	if o2.Status != orders.OrderCancelled || o2.RefundedCents != o2.PaidCents || gate.Passed("POST /v1/refunds") != 2 {
		t.Errorf("the admin's cancel: %q, refunded %d of %d, %d refunds at Stripe", o2.Status, o2.RefundedCents, o2.PaidCents, gate.Passed("POST /v1/refunds"))
	}
}

// centsText is an amount as data-amount attributes write it.
func centsText(cents int64) string {
	return strconv.FormatInt(cents/100, 10) + "." + strconv.FormatInt(100+cents%100, 10)[1:]
}

// TestPayNow: a card order awaiting its payment has "Pay now" on its page
// (the member's, and the guest's signed link), which goes back to Stripe:
// to the order's open Checkout Session, or a new one when it has none.
// Another shopper's order is a 404, a wrong key a 404, a paid order a 422;
// none of them changes anything.
func TestPayNow(t *testing.T) {
	gate, a := gatedCardApp(t, nil)
	a.setStock(7, 20)
	c := a.client()
	c.Register("penny")
	c.setQty("7", "1")
	id, _ := c.cardCheckout(nil)
	page := c.MustGet("/orders/"+itoa(id), http.StatusOK)
	if got := apptest.FirstAttr(page.Body, "pay-now", "action"); got != "/orders/"+itoa(id)+"/pay" {
		t.Fatalf("pay now on the order page: %q", got)
	}
	sessions := len(sessionsAsked(gate))
	res := c.MustPost("/orders/"+itoa(id)+"/pay", url.Values{}, http.StatusSeeOther)
	if !stripeSessionURL.MatchString(res.Header.Get("Location")) || len(sessionsAsked(gate)) != sessions {
		t.Fatalf("pay now went to %q, %d new sessions (want the open one resumed)", res.Header.Get("Location"), len(sessionsAsked(gate))-sessions)
	}
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE orders SET payment_session = '' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	res = c.MustPost("/orders/"+itoa(id)+"/pay", url.Values{}, http.StatusSeeOther)
	asked := sessionsAsked(gate)
	if !stripeSessionURL.MatchString(res.Header.Get("Location")) || len(asked) != sessions+1 ||
		asked[len(asked)-1].Form.Get("success_url") != testShopURL+"/orders/"+itoa(id) {
		t.Fatalf("pay now without a session: %q, %d sessions asked", res.Header.Get("Location"), len(asked)-sessions)
	}
	other := a.client()
	other.Register("otto")
	if res := other.Post("/orders/"+itoa(id)+"/pay", url.Values{}); res.Status != http.StatusNotFound {
		t.Errorf("pay now on another's order: %d", res.Status)
	}
	c.payOrder(id, "evt_penny")
	if page := c.MustGet("/orders/"+itoa(id), http.StatusOK); strings.Contains(page.Body, `data-testid="pay-now"`) {
		t.Error("pay now on a paid order")
	}
	if res := c.Post("/orders/"+itoa(id)+"/pay", url.Values{}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("pay now on a paid order: %d", res.Status)
	}

	g := a.client()
	g.setQty("7", "1")
	gid, _ := g.cardCheckout(nil)
	asked = sessionsAsked(gate)
	link := strings.TrimPrefix(asked[len(asked)-1].Form.Get("cancel_url"), testShopURL)
	page = g.MustGet(link, http.StatusOK)
	action := strings.ReplaceAll(apptest.FirstAttr(page.Body, "pay-now", "action"), "&amp;", "&")
	if action != strings.Replace(link, "?", "/pay?", 1) {
		t.Fatalf("the guest's pay now posts to %q (link %q)", action, link)
	}
	if res := g.MustPost(action, url.Values{}, http.StatusSeeOther); !stripeSessionURL.MatchString(res.Header.Get("Location")) {
		t.Errorf("the guest's pay now went to %q", res.Header.Get("Location"))
	}
	if res := g.Post("/guest-orders/"+itoa(gid)+"/pay?key=wrongwrongwrongwrongwr", url.Values{}); res.Status != http.StatusNotFound {
		t.Errorf("pay now with a wrong key: %d", res.Status)
	}
	if status, _ := a.orderPayment(gid); status != orders.OrderAwaitingPayment {
		t.Errorf("the guest's order is %q", status)
	}
}

// TestAdminSettlesRefundsOwed: what the shop owes is on /admin/refunds
// (linked from /admin) with its state and last error; "try again now"
// while Stripe is down leaves it owed, and with Stripe back gives it
// back; another is recorded as refunded by hand with a note (no note is
// a 422). A return stuck in refunding shows its refund owed on
// /admin/returns, where it is retried or settled by hand.
func TestAdminSettlesRefundsOwed(t *testing.T) {
	gate, a := gatedCardApp(t, nil)
	now := time.Now()
	a.store.SetClock(func() time.Time { return now })
	a.setStock(7, 20)
	c := a.client()
	c.Register("owen")
	admin := a.client()
	admin.signInAdmin()
	if dash := admin.MustGet("/admin", http.StatusOK); len(testids(dash.Body, "admin-refunds-link", "href")) != 1 {
		t.Error("/admin does not link the refunds owed")
	}
	paidOrder := func(evt string) int64 {
		c.setQty("7", "1")
		id, _ := c.cardCheckout(nil)
		c.payOrder(id, evt)
		return id
	}
	first, second := paidOrder("evt_owen1"), paidOrder("evt_owen2")
	gate.Set(storetest.StripeDown)
	for _, id := range []int64{first, second} {
		c.MustPost("/orders/"+itoa(id)+"/cancel", url.Values{}, http.StatusSeeOther)
	}
	page := admin.MustGet("/admin/refunds", http.StatusOK)
	ids, states := testids(page.Body, "admin-refund-row", "data-refund-id"), testids(page.Body, "admin-refund-row", "data-status")
	if len(ids) != 2 || states[0] != orders.RefundOwed || textOf(page.Body, "refund-error") == "" {
		t.Fatalf("refunds owed: ids %v, states %v, error %q", ids, states, textOf(page.Body, "refund-error"))
	}
	admin.MustPost("/admin/refunds/"+ids[0]+"/retry", url.Values{}, http.StatusSeeOther)
	if got := testids(admin.MustGet("/admin/refunds", http.StatusOK).Body, "admin-refund-row", "data-refund-id"); len(got) != 2 {
		t.Fatalf("after a retry with Stripe down: %v", got)
	}
	gate.Set(storetest.StripeUp)
	admin.MustPost("/admin/refunds/"+ids[0]+"/retry", url.Values{}, http.StatusSeeOther)
	if res := admin.Post("/admin/refunds/"+ids[1]+"/settle", url.Values{"note": {" "}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("settle without a note: %d", res.Status)
	}
	admin.MustPost("/admin/refunds/"+ids[1]+"/settle", url.Values{"note": {"cash at the counter"}}, http.StatusSeeOther)
	page = admin.MustGet("/admin/refunds", http.StatusOK)
	if len(testids(page.Body, "admin-refund-row", "data-refund-id")) != 0 || len(testids(page.Body, "refunds-none", "class")) != 1 {
		t.Errorf("still owed after the retry and the settle: %v", testids(page.Body, "admin-refund-row", "data-refund-id"))
	}
	if res := admin.Post("/admin/refunds/"+ids[1]+"/retry", url.Values{}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("retry of a settled refund: %d", res.Status)
	}
	if res := admin.Post("/admin/refunds/999999/retry", url.Values{}); res.Status != http.StatusNotFound {
		t.Errorf("retry of no refund: %d", res.Status)
	}
	if n := gate.Passed("POST /v1/refunds"); n != 1 {
		t.Errorf("%d refunds reached Stripe, want 1 (the other was settled by hand)", n)
	}

	// A return stuck in refunding, on the returns page.
	c.setQty("7", "2")
	id, _ := c.cardCheckout(nil)
	c.payOrder(id, "evt_owen3")
	deliver(t, admin, id)
	c.MustPost("/orders/"+itoa(id)+"/returns", url.Values{"line": {"7"}, "qty-7": {"1"}, "reason": {"too big"}}, http.StatusSeeOther)
	rets := testids(admin.MustGet("/admin/returns", http.StatusOK).Body, "admin-return-row", "data-return-id")
	if len(rets) != 1 {
		t.Fatalf("returns %v", rets)
	}
	for _, act := range []string{"approve", "receive"} {
		admin.MustPost("/admin/returns/"+rets[0], url.Values{"action": {act}}, http.StatusSeeOther)
	}
	gate.Set(storetest.StripeDown)
	admin.MustPost("/admin/returns/"+rets[0], url.Values{"action": {"refund"}}, http.StatusSeeOther)
	page = admin.MustGet("/admin/returns", http.StatusOK)
	if st := testids(page.Body, "admin-return-row", "data-status"); len(st) != 1 || st[0] != "refunding" ||
		apptest.FirstAttr(page.Body, "return-refund-owed", "data-owed") != "owed" || len(testids(page.Body, "return-retry_refund", "type")) != 1 ||
		len(testids(page.Body, "return-settle", "action")) != 1 {
		t.Fatalf("a stuck return on the returns page: %v, owed %q", st, apptest.FirstAttr(page.Body, "return-refund-owed", "data-owed"))
	}
	if res := admin.Post("/admin/returns/"+rets[0]+"/settle", url.Values{"note": {""}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("settle a return without a note: %d", res.Status)
	}
	admin.MustPost("/admin/returns/"+rets[0]+"/settle", url.Values{"note": {"bank transfer"}}, http.StatusSeeOther)
	page = admin.MustGet("/admin/returns", http.StatusOK)
	if st := testids(page.Body, "admin-return-row", "data-status"); st[0] != "refunded" || !strings.Contains(textOf(page.Body, "return-note"), "bank transfer") {
		t.Errorf("after settling by hand: %v, note %q", st, textOf(page.Body, "return-note"))
	}
	if res := admin.Post("/admin/returns/"+rets[0]+"/settle", url.Values{"note": {"twice"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("settle a refunded return: %d", res.Status)
	}
}
