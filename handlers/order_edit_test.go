package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v82/webhook"

	"storefront/handlers/apptest"
	"storefront/store/orders"
)

// paidCardOrder places a card order of qty of item for a new member and
// pays it through Stripe's signed event: its id and total.
func (a *app) paidCardOrder(name string, item, qty int64) (*client, int64, int64) {
	a.t.Helper()
	c := a.client()
	c.Register(name)
	c.setQty(itoa(item), itoa(qty))
	res := c.checkout(func(f url.Values) { f.Set("payment", "card") })
	if res.Status != http.StatusSeeOther {
		a.t.Fatalf("card checkout: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	var id, total int64
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT id, total_cents FROM orders ORDER BY id DESC LIMIT 1`).Scan(&id, &total); err != nil {
		a.t.Fatal(err)
	}
	body, sig := stripeEvent("evt_paid_"+itoa(id), id, total, webhookSecret)
	if status, answer := c.postWebhook(body, sig); status != http.StatusOK || !strings.Contains(answer, `"paid"`) {
		a.t.Fatalf("webhook: %d %s", status, answer)
	}
	return c, id, total
}

// orderMoney reads an order's total, refunded, paid and due amounts.
func (a *app) orderMoney(id int64) (total, refunded, paid, due int64) {
	a.t.Helper()
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT total_cents, refunded_cents, paid_cents, due_cents FROM orders WHERE id = $1`, id).
		Scan(&total, &refunded, &paid, &due); err != nil {
		a.t.Fatal(err)
	}
	return
}

// editForm is the admin's edit form as the order page shows it, with
// the changes in set applied.
func editForm(t *testing.T, page string, set map[string]string) url.Values {
	t.Helper()
	f := url.Values{}
	for _, key := range testids(page, "admin-order-line", "data-line-id") {
		f.Set("qty-"+key, apptest.FirstAttr(page[strings.Index(page, `data-line-id="`+key+`"`)-80:], "admin-order-line", "data-qty"))
	}
	m := regexp.MustCompile(`name="version" value="([0-9]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the order page has no edit form")
	}
	f.Set("version", m[1])
	for k, v := range set {
		f.Set(k, v)
	}
	return f
}

// TestOrderEditLowersAndRefunds: the admin's order page lists the lines
// with their ids and the edit form; lowering a paid card order's quantity
// puts the stock back, prices the order again and refunds the difference
// through Stripe (stripe-mock), with a note and an email to the shopper.
// A form from before that edit is a 409; an oversell, an unknown SKU, a
// bad quantity or a total below what was refunded are 422s that change
// nothing; a shipped order cannot be edited.
func TestOrderEditLowersAndRefunds(t *testing.T) {
	gate, a := gatedCardApp(t, nil)
	a.setStock(7, 10)
	a.setStock(8, 4)
	// 20.00 each: three ship free to the UK, two and one do not.
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE items SET price_cents = 2000 WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	_, id, total := a.paidCardOrder("edna", 7, 3)
	admin := a.client()
	admin.signInAdmin()
	path := "/admin/orders/" + itoa(id)
	page := admin.MustGet(path, http.StatusOK).Body
	if keys := testids(page, "admin-order-line", "data-line-id"); len(keys) != 1 || keys[0] != "7" || len(testids(page, "order-edit-form", "")) != 1 {
		t.Fatalf("the admin's order page: lines %v, edit form %d", keys, len(testids(page, "order-edit-form", "")))
	}
	old := editForm(t, page, nil)

	res := admin.Post(path+"/edit", editForm(t, page, map[string]string{"qty-7": "2"}))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	newTotal, refunded, paid, due := a.orderMoney(id)
	if total != 6000 || newTotal != 4000+499 || refunded != total-newTotal || paid != total || due != 0 || a.stockOf(7) != 8 {
		t.Fatalf("after lowering: total %d (was %d), refunded %d, paid %d, due %d, stock %d", newTotal, total, refunded, paid, due, a.stockOf(7))
	}
	var refund url.Values
	for _, r := range gate.Requests() {
		if r.Path == "/v1/refunds" {
			refund = r.Form
		}
	}
	if refund.Get("amount") != itoa(total-newTotal) || refund.Get("payment_intent") != "pi_evt_paid_"+itoa(id) {
		t.Errorf("Stripe was asked for the refund %v", refund)
	}
	var status string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT status FROM order_refunds WHERE order_id = $1 AND reason = 'edit'`, id).Scan(&status); err != nil || status != orders.RefundDone {
		t.Errorf("the edit's refund is %q: %v", status, err)
	}
	page = admin.MustGet(path, http.StatusOK).Body
	if !strings.Contains(page, "Order edited: Item") && !strings.Contains(page, "Order edited: ") {
		t.Error("no note of the edit")
	}
	var mails int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM outbox WHERE kind = 'order-changed'`).Scan(&mails); err != nil || mails != 1 {
		t.Errorf("%d change emails: %v", mails, err)
	}

	// The form shown before the edit: someone changed the order since.
	if res := admin.Post(path+"/edit", old); res.Status != http.StatusConflict || !strings.Contains(textOf(res.Body, "field-error"), "changed this order") {
		t.Errorf("an old form: %d %q", res.Status, textOf(res.Body, "field-error"))
	}
	for name, set := range map[string]map[string]string{
		"oversell":    {"add_sku": "SF-000008", "add_qty": "5"},
		"unknown SKU": {"add_sku": "NOPE-1", "add_qty": "1"},
		"negative":    {"qty-7": "-1"},
		"not a qty":   {"qty-7": "two"},
		"huge":        {"qty-7": "100000"},
		"empty":       {"qty-7": "0"},
	} {
		res := admin.Post(path+"/edit", editForm(t, page, set))
		if res.Status != http.StatusUnprocessableEntity || textOf(res.Body, "field-error") == "" || len(testids(res.Body, "order-edit-form", "")) != 1 {
			t.Errorf("%s: %d %q", name, res.Status, textOf(res.Body, "field-error"))
		}
	}
	// A goodwill refund of all but a cent of the new total: the order may
	// not now cost less than what was given back that way (one at 24.99).
	if _, err := a.store.Orders.RefundOrder(t.Context(), id, newTotal-1, "admin:root"); err != nil {
		t.Fatal(err)
	}
	_, refunded, _, _ = a.orderMoney(id)
	page = admin.MustGet(path, http.StatusOK).Body
	res = admin.Post(path+"/edit", editForm(t, page, map[string]string{"qty-7": "1"}))
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(textOf(res.Body, "field-error"), "refunded already") {
		t.Errorf("a total below what was refunded: %d %q", res.Status, textOf(res.Body, "field-error"))
	}
	if after, r2, _, _ := a.orderMoney(id); after != newTotal || r2 != refunded || a.stockOf(7) != 8 || a.stockOf(8) != 4 {
		t.Errorf("refused edits changed the order: total %d, refunded %d, stock %d and %d", after, r2, a.stockOf(7), a.stockOf(8))
	}

	admin.MustPost(path+"/status", url.Values{"status": {"shipped"}, "tracking": {"1Z1"}}, http.StatusSeeOther)
	page = admin.MustGet(path, http.StatusOK).Body
	if len(testids(page, "order-edit-form", "")) != 0 {
		t.Error("a shipped order still offers its edit form")
	}
	if res := admin.Post(path+"/edit", url.Values{"qty-7": {"2"}}); res.Status != http.StatusUnprocessableEntity || !strings.Contains(textOf(res.Body, "field-error"), "shipped") {
		t.Errorf("editing a shipped order: %d %q", res.Status, textOf(res.Body, "field-error"))
	}
}

// TestOrderEditRaisesAndAsksForTheDifference: raising a paid card order's
// quantity takes the stock and asks the shopper for the difference: the
// email links the order's page, whose "Pay now" opens a Stripe Checkout
// Session for exactly the difference; the order cannot ship until Stripe's
// signed event for that session pays it, which adds it to what was paid.
func TestOrderEditRaisesAndAsksForTheDifference(t *testing.T) {
	gate, a := gatedCardApp(t, nil)
	a.setStock(7, 10)
	shopper, id, total := a.paidCardOrder("raisa", 7, 1)
	admin := a.client()
	admin.signInAdmin()
	path := "/admin/orders/" + itoa(id)
	page := admin.MustGet(path, http.StatusOK).Body
	if res := admin.Post(path+"/edit", editForm(t, page, map[string]string{"qty-7": "3"})); res.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	newTotal, refunded, paid, due := a.orderMoney(id)
	if newTotal <= total || due != newTotal-total || paid != total || refunded != 0 || a.stockOf(7) != 7 {
		t.Fatalf("after raising: total %d (was %d), due %d, paid %d, refunded %d, stock %d", newTotal, total, due, paid, refunded, a.stockOf(7))
	}
	var text string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT text_body FROM outbox WHERE kind = 'order-changed'`).Scan(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, testShopURL+"/orders/"+itoa(id)) || !strings.Contains(text, "pay the difference") {
		t.Errorf("the change email does not ask for the difference with the order's link:\n%s", text)
	}
	if res := admin.Post(path+"/status", url.Values{"status": {"shipped"}, "tracking": {"1Z2"}, "next": {path}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("shipping before the difference is paid: %d", res.Status)
	}

	own := shopper.MustGet("/orders/"+itoa(id), http.StatusOK).Body
	if len(testids(own, "pay-now", "")) != 1 {
		t.Fatal("the shopper's order page offers no payment of the difference")
	}
	res := shopper.Post("/orders/"+itoa(id)+"/pay", nil)
	if res.Status != http.StatusSeeOther || !stripeSessionURL.MatchString(res.Header.Get("Location")) {
		t.Fatalf("pay the difference: %d to %q", res.Status, res.Header.Get("Location"))
	}
	var session url.Values
	for _, r := range gate.Requests() {
		if r.Path == "/v1/checkout/sessions" {
			session = r.Form
		}
	}
	if session.Get("line_items[0][price_data][unit_amount]") != itoa(due) || session.Get("line_items[1][quantity]") != "" ||
		session.Get("metadata[purpose]") != "balance" || session.Get("client_reference_id") != itoa(id) {
		t.Errorf("the difference's session was asked as %v", session)
	}
	var sessionID string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT due_session FROM orders WHERE id = $1`, id).Scan(&sessionID); err != nil || sessionID == "" {
		t.Fatalf("no session recorded: %v", err)
	}
	// A payment of another amount on that page is owed back; the right one
	// pays the difference.
	post := func(event string, amount int64) string {
		body := []byte(fmt.Sprintf(`{"id":%q,"object":"event","type":"checkout.session.completed","data":{"object":{"id":%q,
			"object":"checkout.session","client_reference_id":"%d","amount_total":%d,"currency":"usd","payment_status":"paid",
			"payment_intent":"pi_%s","metadata":{"purpose":"balance","order_id":"%d"}}}}`, event, sessionID, id, amount, event, id))
		sig := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: webhookSecret}).Header
		status, answer := shopper.postWebhook(body, sig)
		if status != http.StatusOK {
			t.Fatalf("webhook: %d %s", status, answer)
		}
		return answer
	}
	if answer := post("evt_short", due-1); !strings.Contains(answer, orders.PaymentMismatch) {
		t.Errorf("a short payment: %s", answer)
	}
	if answer := post("evt_balance", due); !strings.Contains(answer, `"paid"`) {
		t.Errorf("the difference: %s", answer)
	}
	if answer := post("evt_balance", due); !strings.Contains(answer, orders.PaymentDuplicate) {
		t.Errorf("the replayed event: %s", answer)
	}
	_, _, paid, due = a.orderMoney(id)
	if paid != newTotal || due != 0 {
		t.Fatalf("after the difference was paid: paid %d of %d, due %d", paid, newTotal, due)
	}
	if len(testids(shopper.MustGet("/orders/"+itoa(id), http.StatusOK).Body, "pay-now", "")) != 0 {
		t.Error("the order page still asks for a payment")
	}
	var owed int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM order_refunds WHERE order_id = $1 AND reason = 'mismatch'`, id).Scan(&owed); err != nil || owed != 1 {
		t.Errorf("the short payment is owed back %d times: %v", owed, err)
	}
	admin.MustPost(path+"/status", url.Values{"status": {"shipped"}, "tracking": {"1Z2"}, "next": {path}}, http.StatusSeeOther)
}
