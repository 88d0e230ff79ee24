package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"storefront/handlers/apptest"
)

// returnState is what a refused request must leave as it was: the
// returns, their lines and the return emails, read straight from the
// tables.
func (a *app) returnState() [3]int64 {
	a.t.Helper()
	var s [3]int64
	for i, q := range []string{`SELECT COUNT(*) FROM returns`, `SELECT COALESCE(SUM(qty), 0) FROM return_lines`,
		`SELECT COUNT(*) FROM outbox WHERE kind LIKE 'return-%'`} {
		if err := a.store.DB().QueryRowContext(a.t.Context(), q).Scan(&s[i]); err != nil {
			a.t.Fatal(err)
		}
	}
	return s
}

// deliver moves an order to delivered as the admin.
func deliver(t *testing.T, admin *client, id int64) {
	t.Helper()
	if res := admin.Post("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"delivered"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("deliver: %d %.200s", res.Status, res.Body)
	}
}

// TestReturnsThroughPages: a member returns part of a delivered order
// through the order page's form; every refusal is a 422 with why and the
// form as typed, and changes nothing; the admin lists the return (linked
// from /admin), approves, receives it with the stock back and refunds the
// line's price paid; the order page follows each step, the shopper is
// emailed at each, and wrong steps are 422s.
func TestReturnsThroughPages(t *testing.T) {
	now := time.Now()
	a := newApp(t, nil, nil)
	a.store.SetClock(func() time.Time { return now })
	a.setStock(5, 10)
	a.setStock(6, 10)
	shopper := a.client()
	shopper.Register("rita")
	id := shopper.orderFor("rita", 5, 2)
	pendingID := shopper.orderFor("rita", 6, 1)
	admin := a.client()
	admin.signInAdmin()
	page := shopper.MustGet("/orders/"+itoa(id), http.StatusOK)
	if len(testids(page.Body, "return-form", "data-testid")) != 0 {
		t.Fatal("a return form on an order not delivered")
	}
	deliver(t, admin, id)
	page = shopper.MustGet("/orders/"+itoa(id), http.StatusOK)
	if len(testids(page.Body, "return-form", "data-testid")) != 1 || !strings.Contains(page.Body, `name="qty-5"`) {
		t.Fatalf("no return form on a delivered order: %.300s", textOf(page.Body, "order-status"))
	}
	path := "/orders/" + itoa(id) + "/returns"
	before := a.returnState()
	for name, form := range map[string]url.Values{
		"no line":      {"reason": {"too big"}},
		"qty 0":        {"line": {"5"}, "qty-5": {"0"}, "reason": {"too big"}},
		"qty negative": {"line": {"5"}, "qty-5": {"-1"}, "reason": {"too big"}},
		"qty absurd":   {"line": {"5"}, "qty-5": {"99999999999999999999999"}, "reason": {"too big"}},
		"qty missing":  {"line": {"5"}, "reason": {"too big"}},
		"too many":     {"line": {"5"}, "qty-5": {"3"}, "reason": {"too big"}},
		"unknown line": {"line": {"999"}, "qty-999": {"1"}, "reason": {"too big"}},
		"bad line":     {"line": {"five"}, "qty-five": {"1"}, "reason": {"too big"}},
		"no reason":    {"line": {"5"}, "qty-5": {"1"}, "reason": {" "}},
		"long reason":  {"line": {"5"}, "qty-5": {"1"}, "reason": {strings.Repeat("x", 501)}},
		"control":      {"line": {"5"}, "qty-5": {"1"}, "reason": {"bad\x07reason"}},
	} {
		res := shopper.Post(path, form)
		if res.Status != http.StatusUnprocessableEntity || textOf(res.Body, "return-error") == "" {
			t.Errorf("%s: %d %q, want 422 with why", name, res.Status, textOf(res.Body, "return-error"))
		}
		if s := a.returnState(); s != before {
			t.Fatalf("%s changed something: %v -> %v", name, before, s)
		}
	}
	if res := shopper.Post(path, url.Values{"line": {"5"}, "qty-5": {"1"}, "reason": {strings.Repeat("y", 501)}}); !strings.Contains(res.Body, strings.Repeat("y", 501)) {
		t.Error("a refused reason is not kept in the form")
	}
	if res := shopper.Post("/orders/"+itoa(pendingID)+"/returns", url.Values{"line": {"6"}, "qty-6": {"1"}, "reason": {"x"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("an order not delivered: %d", res.Status)
	}
	other := a.client()
	other.Register("otto")
	if res := other.Post(path, url.Values{"line": {"5"}, "qty-5": {"1"}, "reason": {"mine now"}}); res.Status != http.StatusNotFound {
		t.Errorf("another's order: %d, want 404", res.Status)
	}
	if s := a.returnState(); s != before {
		t.Fatalf("refusals changed something: %v -> %v", before, s)
	}

	res := shopper.Post(path, url.Values{"line": {"5"}, "qty-5": {"1"}, "reason": {"Too small"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("ask: %d %.300s", res.Status, res.Body)
	}
	page = shopper.MustGet("/orders/"+itoa(id), http.StatusOK)
	if got := testids(page.Body, "order-return", "data-status"); len(got) != 1 || got[0] != "requested" {
		t.Fatalf("order returns %v", got)
	}
	rid := testids(page.Body, "order-return", "data-return-id")[0]

	mustContain(t, admin.MustGet("/admin", http.StatusOK).Body, `href="/admin/returns"`)
	list := admin.MustGet("/admin/returns", http.StatusOK)
	if ids, st := testids(list.Body, "admin-return-row", "data-return-id"), testids(list.Body, "admin-return-row", "data-status"); len(ids) != 1 || ids[0] != rid || st[0] != "requested" {
		t.Fatalf("admin rows %v %v", ids, st)
	}
	act := func(action string, want int, extra ...string) {
		t.Helper()
		form := url.Values{"action": {action}}
		for i := 0; i+1 < len(extra); i += 2 {
			form.Set(extra[i], extra[i+1])
		}
		if res := admin.Post("/admin/returns/"+rid, form); res.Status != want {
			t.Fatalf("%s: %d, want %d: %.300s", action, res.Status, want, res.Body)
		}
	}
	act("receive", http.StatusUnprocessableEntity)
	act("refund", http.StatusUnprocessableEntity)
	act("explode", http.StatusUnprocessableEntity)
	if res := admin.Post("/admin/returns/999999", url.Values{"action": {"approve"}}); res.Status != http.StatusNotFound {
		t.Errorf("missing return: %d", res.Status)
	}
	if res := shopper.Post("/admin/returns/"+rid, url.Values{"action": {"approve"}}); res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
		t.Errorf("a shopper acting on a return: %d", res.Status)
	}
	stock := a.stockOf(5)
	act("approve", http.StatusSeeOther)
	act("reject", http.StatusUnprocessableEntity)
	act("receive", http.StatusSeeOther, "restock", "1")
	if got := a.stockOf(5); got != stock+1 {
		t.Fatalf("stock %d after restocking, want %d", got, stock+1)
	}
	act("refund", http.StatusSeeOther)
	act("refund", http.StatusUnprocessableEntity)
	o, err := a.store.Orders.OrderAny(t.Context(), id)
	if err != nil || o.RefundedCents != o.Lines[0].PriceCents {
		t.Fatalf("refunded %d of line price %d: %v", o.RefundedCents, o.Lines[0].PriceCents, err)
	}
	page = shopper.MustGet("/orders/"+itoa(id), http.StatusOK)
	if got := testids(page.Body, "order-return", "data-status"); len(got) != 1 || got[0] != "refunded" {
		t.Fatalf("order returns after the refund %v", got)
	}
	var mails int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM outbox WHERE kind LIKE 'return-%' AND to_addr = $1`,
		apptest.Email("rita")).Scan(&mails); err != nil || mails != 4 {
		t.Fatalf("%d return emails to the shopper, want 4: %v", mails, err)
	}

	// The second unit, after the window: refused, nothing changed.
	a.store.SetClock(func() time.Time { return now.Add(31 * 24 * time.Hour) })
	before = a.returnState()
	if res := shopper.Post(path, url.Values{"line": {"5"}, "qty-5": {"1"}, "reason": {"late"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("after the window: %d", res.Status)
	}
	if s := a.returnState(); s != before {
		t.Fatalf("a late request changed something: %v -> %v", before, s)
	}
	if len(testids(shopper.MustGet("/orders/"+itoa(id), http.StatusOK).Body, "return-form", "data-testid")) != 0 {
		t.Error("a return form after the window")
	}
}
