package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// variantForm is the admin's variants form for item 7: option Size and
// the rows given as sku, value, price, stock.
func variantForm(rows ...[4]string) url.Values {
	f := url.Values{"option1": {"Size"}, "option2": {""}, "option3": {""}}
	for _, r := range rows {
		f.Add("id", "")
		f.Add("sku", r[0])
		f.Add("value1", r[1])
		f.Add("value2", "")
		f.Add("value3", "")
		f.Add("price", r[2])
		f.Add("compare_at", "")
		f.Add("stock", r[3])
		f.Add("picture", "")
	}
	return f
}

// The admin gives an item sizes; bad forms are refused with 422 and
// change nothing; the item page then offers the sizes.
func TestAdminEditsVariants(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.signInAdmin()
	c.MustGet("/admin/items/7/variants", http.StatusOK)
	stock := a.stockOf(7)
	for name, f := range map[string]url.Values{
		"negative price": variantForm([4]string{"V-S", "S", "-1", "3"}),
		"absurd price":   variantForm([4]string{"V-S", "S", "99999999999", "3"}),
		"negative stock": variantForm([4]string{"V-S", "S", "", "-3"}),
		"absurd stock":   variantForm([4]string{"V-S", "S", "", "1000000000"}),
		"duplicate sku":  variantForm([4]string{"V-S", "S", "", "3"}, [4]string{"v-s", "M", "", "3"}),
		"item's sku":     variantForm([4]string{"SF-000008", "S", "", "3"}),
		"no value":       variantForm([4]string{"V-S", "", "", "3"}),
	} {
		res := c.Post("/admin/items/7/variants", f)
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `data-testid="field-error"`) {
			t.Errorf("%s: %d, want 422 with the reason", name, res.Status)
		}
		var n int
		if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM item_variants`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if opts := a.itemField(7, "option_names"); n != 0 || opts != "" || a.stockOf(7) != stock {
			t.Errorf("%s: changed something: %d variants, options %q", name, n, opts)
		}
	}
	res := c.Post("/admin/items/7/variants", variantForm([4]string{"V-S", "S", "", "3"}, [4]string{"V-M", "M", "12.50", "4"}))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("save: %d", res.Status)
	}
	page := c.MustGet("/admin/items/7/variants", http.StatusOK)
	if skus, stocks := testids(page.Body, "admin-variant-row", "data-sku"), testids(page.Body, "admin-variant-row", "data-stock"); len(skus) < 2 ||
		skus[0] != "V-S" || skus[1] != "V-M" || stocks[0] != "3" || stocks[1] != "4" {
		t.Errorf("rows %v stocks %v", skus, stocks)
	}
	if a.stockOf(7) != 7 {
		t.Errorf("item stock %d, want the sum 7", a.stockOf(7))
	}
	ids := variantIDs(t, c.MustGet("/items/7", http.StatusOK).Body)
	m := c.MustGet("/items/7?variant="+ids["M"], http.StatusOK)
	if textOf(m.Body, "item-price") != "$12.50" {
		t.Errorf("M's price %q", textOf(m.Body, "item-price"))
	}
}
