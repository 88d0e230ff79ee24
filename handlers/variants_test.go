package handlers_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"storefront/wiring"
)

// variantApp is an app whose demo catalog has its options and variants:
// item 8 (Apparel) in sizes S, M, L and XL.
func variantApp(t *testing.T) *app {
	return newApp(t, func(o *wiring.Options) {
		o.SeedVariants = true
		o.PageCacheTTL, o.PageCacheTop = time.Minute, 10000
	}, nil)
}

// variantIDs reads the picker's choices of an item page: value -> variant id.
func variantIDs(t *testing.T, body string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`<option value="([^"]*)" data-variant-id="([0-9]+)"`).FindAllStringSubmatch(body, -1) {
		out[m[1]] = m[2]
	}
	return out
}

func (a *app) variantStock(sku string) int64 {
	a.t.Helper()
	var n int64
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT stock FROM item_variants WHERE sku = $1`, sku).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// A shopper picks a size without JavaScript, puts it in the cart and
// buys it: the cart, the review and the order carry the variant and its
// SKU, and the variant's stock (and the item's sum) go down.
func TestBuyAVariantThroughTheShop(t *testing.T) {
	a := variantApp(t)
	c := a.client()
	page := c.MustGet("/items/8", http.StatusOK)
	mustContain(t, page.Body, `data-testid="variant-picker"`, `name="option-Size"`, `data-testid="item-sku"`)
	ids := variantIDs(t, page.Body)
	if len(ids) != 4 || ids["S"] == "" || ids["XL"] == "" {
		t.Fatalf("picker choices %v, want S, M, L, XL", ids)
	}
	res := c.Get("/items/8?option-Size=M")
	if res.Status != http.StatusSeeOther || unslug(res.Header.Get("Location")) != "/items/8?variant="+ids["M"] {
		t.Fatalf("picking M: %d to %q", res.Status, res.Header.Get("Location"))
	}
	m := c.MustGet("/items/8?variant="+ids["M"], http.StatusOK)
	if got := testids(m.Body, "item-sku", "data-sku"); len(got) != 1 || got[0] != "SF-000008-M" {
		t.Errorf("SKU on M's page %v", got)
	}
	mustContain(t, m.Body, `name="variant" value="`+ids["M"]+`"`)
	xl := c.MustGet("/items/8?variant="+ids["XL"], http.StatusOK)
	if textOf(xl.Body, "item-price") == textOf(m.Body, "item-price") {
		t.Errorf("XL has its own price, got %q like M", textOf(xl.Body, "item-price"))
	}

	before := a.variantStock("SF-000008-M")
	if before < 2 {
		if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE item_variants SET stock = 5 WHERE sku = 'SF-000008-M'`); err != nil {
			t.Fatal(err)
		}
		if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE items SET stock = (SELECT SUM(stock) FROM item_variants WHERE item_id = 8) WHERE id = 8`); err != nil {
			t.Fatal(err)
		}
		before = 5
	}
	sum := a.stockOf(8)
	c.MustPost("/cart", url.Values{"item": {"8"}, "variant": {ids["M"]}, "qty": {"2"}}, http.StatusSeeOther)
	cartPage := c.MustGet("/cart", http.StatusOK)
	if v, s := testids(cartPage.Body, "cart-line", "data-variant-id"), testids(cartPage.Body, "cart-line", "data-sku"); len(v) != 1 || v[0] != ids["M"] || s[0] != "SF-000008-M" {
		t.Fatalf("cart lines: variants %v skus %v", v, s)
	}
	if got := c.cartHash(); len(got) != 1 || got["8:"+ids["M"]] != "2" {
		t.Errorf("cart hash %v", got)
	}
	review, _ := c.review()
	if got := testids(review.Body, "review-line", "data-sku"); len(got) != 1 || got[0] != "SF-000008-M" {
		t.Errorf("review lines %v", got)
	}
	res = c.checkout(nil)
	if res.Status != http.StatusSeeOther || !strings.Contains(res.Header.Get("Location"), "orders/") {
		t.Fatalf("checkout: %d to %q: %s", res.Status, res.Header.Get("Location"), textOf(res.Body, "flash"))
	}
	order := c.MustGet(res.Header.Get("Location"), http.StatusOK)
	if v, s := testids(order.Body, "order-line", "data-variant-id"), testids(order.Body, "order-line", "data-sku"); len(v) != 1 || v[0] != ids["M"] || s[0] != "SF-000008-M" {
		t.Errorf("order lines: variants %v skus %v", v, s)
	}
	mustContain(t, order.Body, "Size: M")
	if got := a.variantStock("SF-000008-M"); got != before-2 {
		t.Errorf("M stock %d, want %d", got, before-2)
	}
	if got := a.stockOf(8); got != sum-2 {
		t.Errorf("item stock %d, want %d", got, sum-2)
	}
}

// POST /cart refuses what it cannot take and changes nothing: no variant
// for an item with options, an unknown variant, another item's variant (422),
// a variant that is not a number (400).
func TestCartRefusesBadVariants(t *testing.T) {
	a := variantApp(t)
	c := a.client()
	ids := variantIDs(t, c.MustGet("/items/8", http.StatusOK).Body)
	other := variantIDs(t, c.MustGet("/items/18", http.StatusOK).Body)
	c.MustPost("/cart", url.Values{"item": {"7"}, "qty": {"1"}}, http.StatusSeeOther)
	want := c.cartHash()
	for name, tc := range map[string]struct {
		form   url.Values
		status int
		msg    string
	}{
		"no variant":         {url.Values{"item": {"8"}, "qty": {"1"}}, 422, "Choose size"},
		"unknown variant":    {url.Values{"item": {"8"}, "variant": {"999999"}, "qty": {"1"}}, 422, "not one of"},
		"another item's":     {url.Values{"item": {"8"}, "variant": {other["S"]}, "qty": {"1"}}, 422, "not one of"},
		"variant, no option": {url.Values{"item": {"7"}, "variant": {ids["S"]}, "qty": {"1"}}, 422, "not one of"},
		"not a number":       {url.Values{"item": {"8"}, "variant": {"M"}, "qty": {"1"}}, 400, "variant"},
		"twice":              {url.Values{"item": {"8"}, "variant": {ids["S"], ids["M"]}, "qty": {"1"}}, 400, "once"},
	} {
		res := c.Post("/cart", tc.form)
		if res.Status != tc.status || !strings.Contains(res.Body, tc.msg) {
			t.Errorf("%s: %d, want %d with %q", name, res.Status, tc.status, tc.msg)
		}
		if got := c.cartHash(); len(got) != len(want) || got["7"] != want["7"] {
			t.Errorf("%s: cart changed to %v", name, got)
		}
	}
}

// Each variant has its own cached page, and an id that is not one of the
// item's variants is a 404 that is never stored.
func TestPageCacheServesTheChosenVariant(t *testing.T) {
	a := variantApp(t)
	c := a.client()
	ids := variantIDs(t, c.MustGet("/items/8", http.StatusOK).Body)
	for _, size := range []string{"M", "L", "M", "L"} {
		res := c.MustGet("/items/8?variant="+ids[size], http.StatusOK)
		if got := testids(res.Body, "item-sku", "data-sku"); len(got) != 1 || got[0] != "SF-000008-"+size {
			t.Fatalf("%s page (X-Cache %s) shows SKU %v", size, res.Header.Get("X-Cache"), got)
		}
	}
	if x := c.Get("/items/8?variant=" + ids["M"]).Header.Get("X-Cache"); x != "HIT" {
		t.Errorf("M's page again: X-Cache %q, want HIT", x)
	}
	for range 2 {
		if res := c.Get("/items/8?variant=999999"); res.Status != http.StatusNotFound {
			t.Errorf("unknown variant: %d, want 404", res.Status)
		}
	}
	// A sale purges every variant page of the item.
	c.MustPost("/cart", url.Values{"item": {"8"}, "variant": {ids["L"]}, "qty": {"1"}}, http.StatusSeeOther)
	if res := c.checkout(nil); res.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d", res.Status)
	}
	if x := c.Get("/items/8?variant=" + ids["M"]).Header.Get("X-Cache"); x == "HIT" {
		t.Error("M's page survived the sale of L")
	}
}

// A cart line stored before variants (the field is the item id) still
// works: the cart shows it, the checkout sells it as the item's implicit
// variant, and the order line carries the item's SKU.
func TestCartLinesFromBeforeVariantsStillSell(t *testing.T) {
	a := variantApp(t)
	c := a.client()
	a.setStock(7, 5)
	c.MustPost("/cart", url.Values{"item": {"7"}, "qty": {"1"}}, http.StatusSeeOther)
	if got := c.cartHash(); got["7"] != "1" {
		t.Fatalf("cart hash %v, want the old field format", got)
	}
	if err := a.store.Redis().HSet(t.Context(), c.cartKey(), "7", "2").Err(); err != nil {
		t.Fatal(err)
	}
	res := c.checkout(nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d", res.Status)
	}
	order := c.MustGet(res.Header.Get("Location"), http.StatusOK)
	if v, s := testids(order.Body, "order-line", "data-variant-id"), testids(order.Body, "order-line", "data-sku"); len(v) != 1 || v[0] != "0" || s[0] != "SF-000007" {
		t.Errorf("order lines: variants %v skus %v", v, s)
	}
	if got := a.stockOf(7); got != 3 {
		t.Errorf("stock %d, want 3", got)
	}
}
