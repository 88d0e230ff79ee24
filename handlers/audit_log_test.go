package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// auditCount counts the audit log's entries of kind.
func (a *app) auditCount(kind string) int {
	a.t.Helper()
	var n int
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT COUNT(*) FROM audit_log WHERE kind = $1`, kind).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// editPrice posts the item form with the item's fields and a new price.
func (c *client) editPrice(id int64, price string) int {
	c.a.t.Helper()
	it, err := c.a.store.Catalog.Item(c.a.t.Context(), id)
	if err != nil {
		c.a.t.Fatal(err)
	}
	return c.Post(fmt.Sprintf("/admin/items/%d", id), url.Values{"name": {it.Name}, "price": {price}, "stock": {itoa(it.Stock)},
		"category": {it.Category}, "description": {it.Description}}).Status
}

// auditFieldRe reads one field of a row's before or after cell.
func auditField(row, side, name string) string {
	cell := regexp.MustCompile(`data-testid="audit-` + side + `"[^>]*>(?s:(.*?))</td>`).FindStringSubmatch(row)
	if cell == nil {
		return ""
	}
	m := regexp.MustCompile(`data-field="` + regexp.QuoteMeta(name) + `">[^:]*: ([^<]*)<`).FindStringSubmatch(cell[1])
	if m == nil {
		return ""
	}
	return m[1]
}

// auditRows cuts a page of the audit log into its rows' markup.
func auditRows(body string) []string {
	return regexp.MustCompile(`(?s)<tr data-testid="audit-row".*?</tr>`).FindAllString(body, -1)
}

// TestAuditLogRecordsStaffChanges: a price change and a refund (a paid
// order cancelled) each leave an entry with who, the kind, the fields
// before and after, and the address; the page filters by actor, kind and
// dates and pages; no route edits or deletes an entry.
func TestAuditLogRecordsStaffChanges(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(5, 10)
	owner := a.client()
	owner.signInAdmin()
	old := a.priceOf(5)
	if got := owner.editPrice(5, "12.34"); got != http.StatusSeeOther {
		t.Fatalf("price change: %d", got)
	}
	// A save that changes nothing is no change.
	owner.editPrice(5, "12.34")
	shopper := a.client()
	shopper.Register("rita")
	id := shopper.orderFor("rita", 5, 2)
	a.fulfil()
	owner.MustPost("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"paid"}}, http.StatusSeeOther)
	owner.MustPost("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"cancelled"}}, http.StatusSeeOther)
	o, err := a.store.Orders.OrderAny(t.Context(), id)
	if err != nil || o.RefundedCents <= 0 {
		t.Fatalf("cancelled order: %+v %v", o, err)
	}

	page := owner.MustGet("/admin/audit?kind=item.edit", http.StatusOK).Body
	rows := auditRows(page)
	if len(rows) != 1 {
		t.Fatalf("%d item.edit rows, want 1", len(rows))
	}
	if got := testids(rows[0], "audit-row", "data-actor"); len(got) != 1 || got[0] != "admin" {
		t.Errorf("actor %v", got)
	}
	if b, af := auditField(rows[0], "before", "price_cents"), auditField(rows[0], "after", "price_cents"); b != itoa(old) || af != "1234" {
		t.Errorf("price before %q after %q, want %d and 1234", b, af, old)
	}
	if auditField(rows[0], "after", "name") != "" {
		t.Error("an unchanged field is shown")
	}
	if !strings.Contains(rows[0], "127.0.0.1") {
		t.Error("the row does not show the address")
	}

	refund := auditRows(owner.MustGet("/admin/audit?kind=refund", http.StatusOK).Body)
	if len(refund) != 1 {
		t.Fatalf("%d refund rows", len(refund))
	}
	if b, af := auditField(refund[0], "before", "refunded_cents"), auditField(refund[0], "after", "refunded_cents"); b != "0" || af != itoa(o.RefundedCents) {
		t.Errorf("refund before %q after %q, want 0 and %d", b, af, o.RefundedCents)
	}
	moves := auditRows(owner.MustGet("/admin/audit?kind=order.status", http.StatusOK).Body)
	if len(moves) != 2 || auditField(moves[0], "before", "status") != "paid" || auditField(moves[0], "after", "status") != "cancelled" {
		t.Errorf("order moves: %d rows", len(moves))
	}

	// More kinds: a tax rate, a ban and its lifting, the shop's settings.
	owner.MustPost("/admin/tax", url.Values{"country": {"gb"}, "rate": {"25"}}, http.StatusSeeOther)
	owner.MustPost("/admin/users/rita/ban", nil, http.StatusSeeOther)
	owner.MustPost("/admin/users/rita/unban", nil, http.StatusSeeOther)
	owner.MustPost("/admin/settings", url.Values{"shop_name": {"Rita's Rest"}, "currency": {"USD"}}, http.StatusSeeOther)
	tax := auditRows(owner.MustGet("/admin/audit?kind=tax.", http.StatusOK).Body)
	if len(tax) != 1 || auditField(tax[0], "after", "rate_bp") != "2500" {
		t.Errorf("tax rows: %d", len(tax))
	}
	bans := auditRows(owner.MustGet("/admin/audit?kind=user.ban", http.StatusOK).Body)
	if len(bans) != 2 || auditField(bans[0], "after", "banned") != "false" || auditField(bans[1], "after", "banned") != "true" {
		t.Errorf("ban rows: %d", len(bans))
	}
	if set := auditRows(owner.MustGet("/admin/audit?kind=settings.save", http.StatusOK).Body); len(set) != 1 || auditField(set[0], "after", "shop_name") != "Rita&#39;s Rest" {
		t.Errorf("settings rows: %d %v", len(set), set)
	}

	if rows := auditRows(owner.MustGet("/admin/audit?actor=nobody", http.StatusOK).Body); len(rows) != 0 {
		t.Errorf("another actor's filter: %d rows", len(rows))
	}
	if rows := auditRows(owner.MustGet("/admin/audit?actor=ADMIN&from=2000-01-01&to=2999-12-31", http.StatusOK).Body); len(rows) != 8 {
		t.Errorf("admin's changes: %d rows, want 8", len(rows))
	}
	if rows := auditRows(owner.MustGet("/admin/audit?to=2000-01-01", http.StatusOK).Body); len(rows) != 0 {
		t.Errorf("before 2000: %d rows", len(rows))
	}
	if res := owner.Get("/admin/audit?from=yesterday"); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("a bad date: %d", res.Status)
	}

	// Nothing under /admin/audit but the page itself; writes there change nothing.
	for _, r := range a.h.Router().Routes() {
		if strings.HasPrefix(r.Path, "/admin/audit") && r.Method != http.MethodGet && r.Method != http.MethodHead && !strings.HasPrefix(r.Method, "echo_") {
			t.Errorf("a route that could change the log: %s %s", r.Method, r.Path)
		}
	}
	before := a.auditCount("item.edit")
	for _, p := range []string{"/admin/audit", "/admin/audit/1", "/admin/audit/1/delete", "/admin/audit/1/edit"} {
		if res := owner.Post(p, url.Values{"kind": {"x"}}); res.Status < 400 {
			t.Errorf("POST %s: %d", p, res.Status)
		}
	}
	if a.auditCount("item.edit") != before {
		t.Fatal("a post changed the log")
	}
}

// TestAuditInTheChangesTransaction: the entry and its change commit or
// roll back together. A change that fails after its entry was written
// (the shipping email cannot be queued) leaves no entry and no change; an
// entry that cannot be written leaves the change undone.
func TestAuditInTheChangesTransaction(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(5, 10)
	owner := a.client()
	owner.signInAdmin()
	shopper := a.client()
	shopper.Register("rita")
	id := shopper.orderFor("rita", 5, 1)
	a.fulfil()
	owner.MustPost("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"paid"}}, http.StatusSeeOther)
	moves := a.auditCount("order.status")
	db := a.store.DB()
	rename := func(from, to string) {
		t.Helper()
		if _, err := db.ExecContext(t.Context(), `ALTER TABLE `+from+` RENAME TO `+to); err != nil {
			t.Fatal(err)
		}
	}

	rename("outbox", "outbox_away")
	res := owner.Post("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"shipped"}, "tracking": {"TRACK-1"}})
	rename("outbox_away", "outbox")
	if res.Status < 500 {
		t.Fatalf("ship without an outbox: %d", res.Status)
	}
	if a.orderStatus(id) != "paid" || a.auditCount("order.status") != moves {
		t.Fatalf("a failed move left status %s and %d entries (had %d)", a.orderStatus(id), a.auditCount("order.status"), moves)
	}

	price := a.priceOf(5)
	rename("audit_log", "audit_log_away")
	code := owner.editPrice(5, "7.77")
	rename("audit_log_away", "audit_log")
	if code < 500 || a.priceOf(5) != price {
		t.Fatalf("a change whose entry failed: %d, price %d (was %d)", code, a.priceOf(5), price)
	}

	// Both work again once the tables are back.
	owner.MustPost("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"shipped"}, "tracking": {"TRACK-1"}}, http.StatusSeeOther)
	if a.auditCount("order.status") != moves+1 {
		t.Fatal("the move's entry is missing")
	}
}
