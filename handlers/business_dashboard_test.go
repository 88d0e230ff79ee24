package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"storefront/store/orders"
	"storefront/wiring"
)

// setupSteps reads the checklist as step -> done ("true"/"false").
func setupSteps(body string) map[string]string {
	out := map[string]string{}
	keys, done := testids(body, "setup-step", "data-step"), testids(body, "setup-step", "data-done")
	for i, k := range keys {
		out[k] = done[i]
	}
	return out
}

// The dashboard opens with the business: orders to send (paid or
// processed, not shipped), today's sales and low stock per variant; the
// engineering numbers are on /admin/system.
func TestDashboardOpensWithTheBusiness(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SeedVariants = true }, nil)
	admin := a.client()
	admin.signInAdmin()
	dash := admin.MustGet("/admin", http.StatusOK).Body
	if got := testids(dash, "orders-to-fulfil", "data-count"); len(got) != 1 || got[0] != "0" {
		t.Fatalf("orders to fulfil %v, want 0", got)
	}
	mustContain(t, dash, `data-testid="sales-today"`, `href="/admin/system"`, `href="/admin/settings"`)

	shopper := a.client()
	shopper.Register("ann")
	a.setStock(7, 10)
	first := shopper.orderFor("ann", 7, 1)
	second := shopper.orderFor("ann", 7, 2)
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE orders SET status = $1 WHERE id = $2`, orders.OrderProcessed, first); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE orders SET status = $1 WHERE id = $2`, orders.OrderPaid, second); err != nil {
		t.Fatal(err)
	}
	dash = admin.MustGet("/admin", http.StatusOK).Body
	if got := testids(dash, "fulfil-order", "data-order-id"); strings.Join(got, ",") != itoa(first)+","+itoa(second) {
		t.Errorf("orders to send %v, want %d,%d", got, first, second)
	}
	if got := testids(dash, "sales-today", "data-orders"); len(got) != 1 || got[0] != "2" {
		t.Errorf("orders today %v, want 2", got)
	}
	if _, err := a.store.Orders.ShipOrder(t.Context(), first, "TRACK1", orders.AdminActor("admin")); err != nil {
		t.Fatal(err)
	}
	dash = admin.MustGet("/admin", http.StatusOK).Body
	if got := testids(dash, "orders-to-fulfil", "data-count"); len(got) != 1 || got[0] != "1" {
		t.Errorf("after shipping one: %v, want 1", got)
	}

	// Low stock per variant: one variant of an item with options runs low
	// while its item's total stock is plenty.
	var itemID, variantID int64
	var sku string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT item_id, id, sku FROM item_variants ORDER BY id LIMIT 1`).Scan(&itemID, &variantID, &sku); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`UPDATE items SET stock = 50`, `UPDATE item_variants SET stock = 50`} {
		if _, err := a.store.DB().ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE item_variants SET stock = 1 WHERE id = $1`, variantID); err != nil {
		t.Fatal(err)
	}
	dash = admin.MustGet("/admin", http.StatusOK).Body
	skus, stocks := testids(dash, "low-stock", "data-sku"), testids(dash, "low-stock", "data-stock")
	found := false
	for i, s := range skus {
		found = found || (s == sku && stocks[i] == "1")
	}
	if !found {
		t.Errorf("the low variant %s is not listed: %v", sku, skus)
	}
	for _, id := range []string{"cache-stats", "session-stats", "workers"} {
		if strings.Contains(dash, `data-testid="`+id+`"`) {
			t.Errorf("the dashboard still shows %s", id)
		}
	}
}

// An empty shop's dashboard shows the setup checklist; its steps tick as
// they are done, and it goes once all are.
func TestSetupChecklistTicks(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.NoDemo = true }, nil)
	admin := a.client()
	admin.signInAdmin()
	steps := setupSteps(admin.MustGet("/admin", http.StatusOK).Body)
	want := map[string]string{"settings": "false", "item": "false", "shipping": "false", "payment": "false", "home": "false"}
	for k, v := range want {
		if steps[k] != v {
			t.Errorf("empty shop: step %s %q, want %q (%v)", k, steps[k], v, steps)
		}
	}
	if res := admin.Post("/admin/settings", settingsForm("Harbour Goods", "GBP")); res.Status != http.StatusSeeOther {
		t.Fatalf("settings: %d", res.Status)
	}
	if res := admin.Post("/admin/items/new", url.Values{"name": {"Oak stool"}, "price": {"45.00"}, "stock": {"3"}, "category": {"Home"},
		"description": {"A stool."}}); res.Status != http.StatusSeeOther {
		t.Fatalf("new item: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	steps = setupSteps(admin.MustGet("/admin", http.StatusOK).Body)
	if steps["settings"] != "true" || steps["item"] != "true" || steps["shipping"] != "false" {
		t.Errorf("after settings and an item: %v", steps)
	}
	if res := admin.Post("/admin/shipping", url.Values{"name": {"Nigeria"}, "countries": {"NG"}, "standard": {"3.00"}, "express": {"9.00"},
		"free_over": {"0"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("zone: %d %s", res.Status, res.Body)
	}
	if steps = setupSteps(admin.MustGet("/admin", http.StatusOK).Body); steps["shipping"] != "true" {
		t.Errorf("after a zone: %v", steps)
	}
}
