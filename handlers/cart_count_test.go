package handlers_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"storefront/store/catalog"
)

// The header's cart count counts only the lines that can be bought: a
// line of an archived item, of a variant the item does not sell, or one
// sold out is not counted, on every page (cached ones too), the cart page
// and the cart's JSON answer; lines that can be bought again count again.
func TestHeaderCartCountsWhatCanBeBought(t *testing.T) {
	a := variantApp(t)
	ctx := t.Context()
	c := a.client()
	for item, qty := range map[string]string{"1": "2", "2": "3", "3": "4"} {
		if res := c.setQty(item, qty); res.Status != http.StatusSeeOther {
			t.Fatalf("add %s: %d", item, res.Status)
		}
	}
	var m int64
	if err := a.store.DB().QueryRowContext(ctx, `SELECT id FROM item_variants WHERE sku = 'SF-000008-M'`).Scan(&m); err != nil {
		t.Fatal(err)
	}
	if res := c.Post("/cart", url.Values{"item": {"8"}, "variant": {strconv.FormatInt(m, 10)}, "qty": {"5"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("add M: %d %.300s", res.Status, res.Body)
	}
	if got := textOf(c.Get("/").Body, "cart-count"); got != "14" {
		t.Fatalf("header before: %q, want 14", got)
	}
	// Item 2 is archived, item 3 sold out, the variant M sold out.
	if _, err := a.store.Catalog.SetItemArchived(ctx, 2, true); err != nil {
		t.Fatal(err)
	}
	it, err := a.store.Catalog.Item(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.Catalog.UpdateItem(ctx, 3, catalog.ItemEdit{Name: it.Name, PriceCents: it.PriceCents, Stock: 0, Category: it.Category}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.DB().ExecContext(ctx, `UPDATE item_variants SET stock = 0 WHERE id = $1`, m); err != nil {
		t.Fatal(err)
	}
	if err := a.store.Catalog.Changed(ctx, catalog.Change{IDs: []int64{8}}); err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"/", "/items/1", "/items/5", "/cart"} {
		if got := textOf(c.Get(page).Body, "cart-count"); got != "2" {
			t.Errorf("header on %s: %q, want 2 (only item 1 can be bought)", page, got)
		}
	}
	res := c.setQty("1", "3", "Accept", "application/json")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `"cart_count":3`) {
		t.Errorf("JSON answer: %d %s", res.Status, res.Body)
	}
	if _, err := a.store.Catalog.SetItemArchived(ctx, 2, false); err != nil {
		t.Fatal(err)
	}
	if got := textOf(c.Get("/").Body, "cart-count"); got != "6" {
		t.Errorf("header once item 2 is back: %q, want 6", got)
	}
}
