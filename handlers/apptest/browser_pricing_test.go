package apptest_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"storefront/handlers/apptest"
	"storefront/views"
	"storefront/wiring"
)

// TestBrowserBuyWithCodeToTaxedCountry: the admin creates a discount code
// in Chromium; a guest with JavaScript on and another with it off each
// choose a size of an Apparel item (in place with JavaScript, through
// "Show this choice" without), add two of that variant, apply the code
// (in lower case) on the cart, check out to the United Kingdom (20% tax,
// included in the prices) and see the discount, the tax the total
// includes and the total on the review and the order. The order's line
// names the variant, its amounts are the ones the database stored (and
// follow the rounding rules), and the variant's stock went down by two.
func TestBrowserBuyWithCodeToTaxedCountry(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"}, func(o *wiring.Options) { o.SeedVariants = true })

	admin := b.tab(app)
	admin.navigate("/login?next=/admin/discounts")
	admin.fill("#username", "admin")
	admin.fill("#password", app.AdminPassword)
	admin.click(`form[action="/login"] button[type=submit]`)
	admin.waitFor(`[data-testid="discount-form"]`)
	admin.fill("#code", "WELCOME")
	admin.fill("#kind", "percent")
	admin.fill("#value", "10")
	admin.fill("#max_uses", "5")
	admin.click(`[data-testid="discount-form"] button[type=submit]`)
	admin.waitAttr(`[data-testid="admin-discount-row"][data-code="WELCOME"]`, "data-used", "0")
	admin.screenshot("admin-discounts")

	for _, scripts := range []bool{true, false} {
		name := map[bool]string{true: "javascript", false: "no-javascript"}[scripts]
		t.Run(name, func(t *testing.T) {
			tb := b.freshTab(t, app)
			if !scripts {
				tb.disableScripts()
			}
			// Item 8 is Apparel, 26 in stock over sizes S-XL in the demo
			// catalog (6 or 7 of each): each mode buys its own size.
			size := map[bool]string{true: "M", false: "L"}[scripts]
			v := variantOf(t, app, 8, "SF-000008-"+size)
			item8 := app.readable(t, "/items/8")
			tb.navigate(item8)
			if scripts {
				tb.choose("#option-Size", size) // the page switches to the size in place
			} else {
				tb.fill("#option-Size", size)
				tb.click(`[data-show-choice]`) // "Show this choice" leads to the variant's page
			}
			tb.waitPath(fmt.Sprintf("%s?variant=%d", item8, v.id))
			tb.waitAttr(`[data-testid="item-sku"]`, "data-sku", v.sku)
			tb.fill("#qty", "2")
			tb.click("form.buy button[type=submit]")
			if scripts {
				tb.waitText(`[data-testid="cart-count"]`, "2")
				tb.navigate("/cart")
			} else {
				tb.waitPath("/cart") // the form's answer is the cart page
			}
			tb.waitFor("#code")
			if got := tb.attrs(`[data-testid="cart-line"]`, "data-sku"); fmt.Sprint(got) != fmt.Sprint([]string{v.sku}) {
				t.Errorf("cart lines %v, want one of %s", got, v.sku)
			}
			tb.fill("#code", "welcome")
			tb.click(`[data-testid="discount-apply"]`)
			tb.waitFor(`[data-testid="discount-line"]`)
			if got := tb.attr(`[data-testid="discount-line"]`, "data-code"); got != "WELCOME" {
				t.Errorf("cart discount code %q", got)
			}
			cartDiscount := tb.attr(`[data-testid="discount-line"]`, "data-amount")

			tb.click(`[data-testid="checkout-link"]`)
			tb.waitFor(`[data-testid="checkout-form"]`)
			tb.fill("#email", name+"@example.com")
			tb.fill("#name", "Ada Lovelace")
			tb.fill("#line1", "12 St James's Square")
			tb.fill("#city", "London")
			tb.fill("#postcode", "SW1Y 4JH")
			if scripts {
				// Choosing the country prices the review again by itself.
				eval[bool](tb, `(() => { const s = document.querySelector("#country"); s.value = "GB";
					s.dispatchEvent(new Event("change", {bubbles: true})); return true })()`)
			} else {
				tb.fill("#country", "GB")
				tb.click(`[data-testid="review-again"]`)
			}
			tb.waitFor(`[data-testid="tax-line"]`)
			tax := strings.ToLower(tb.text(`[data-testid="tax-line"]`)) // the table's heads are styled in capitals
			if !strings.Contains(tax, "includes $") || !strings.Contains(tax, "20%") || !strings.Contains(tax, "united kingdom") {
				t.Errorf("review tax line %q", tax)
			}
			if got := tb.attr(`[data-testid="discount-line"]`, "data-amount"); got != cartDiscount {
				t.Errorf("review discount %s, cart said %s", got, cartDiscount)
			}
			if got := tb.attrs(`[data-testid="review-line"]`, "data-sku"); fmt.Sprint(got) != fmt.Sprint([]string{v.sku}) {
				t.Errorf("review lines %v, want one of %s", got, v.sku)
			}
			total := tb.text(`[data-testid="order-total"]`)
			if got := tb.attr(`#email`, "value"); got != name+"@example.com" {
				t.Errorf("the email typed became %q after the review", got)
			}
			tb.screenshot("review-" + name)
			tb.click(`[data-testid="checkout-form"] button[type=submit]`)
			tb.waitPath("/guest-orders/")
			tb.waitFor(`[data-testid="order-link"]`)
			if got := tb.text(`[data-testid="order-total"]`); got != total {
				t.Errorf("order total %q, review said %q", got, total)
			}
			if got := tb.attr(`[data-testid="discount-line"]`, "data-code"); got != "WELCOME" {
				t.Errorf("order discount code %q", got)
			}
			if got := tb.attr(`[data-testid="tax-line"]`, "data-amount"); got == "" || got == "0.00" {
				t.Errorf("order tax %q", got)
			}
			checkVariantOrder(t, tb, app, v, size)
			tb.screenshot("order-" + name)
		})
	}
	admin.navigate("/admin/discounts")
	admin.waitAttr(`[data-testid="admin-discount-row"][data-code="WELCOME"]`, "data-used", "2")
}

// soldVariant is a variant as the pricing browser test buys it: its id,
// SKU and stock before the order.
type soldVariant struct {
	id, item int64
	sku      string
	stock    int64
}

// variantOf reads the item's variant of that SKU and its stock from the
// app's database.
func variantOf(t *testing.T, app *browserApp, item int64, sku string) soldVariant {
	t.Helper()
	v := soldVariant{item: item, sku: sku}
	if err := app.DB.QueryRowContext(t.Context(), `SELECT id, stock FROM item_variants WHERE item_id = $1 AND sku = $2`, item, sku).
		Scan(&v.id, &v.stock); err != nil {
		t.Fatalf("variant %s of item %d: %v", sku, item, err)
	}
	if v.stock < 2 {
		t.Fatalf("variant %s has %d in stock, the test buys 2", sku, v.stock)
	}
	return v
}

// checkVariantOrder checks the order page the tab shows against the
// database: one line of two of variant v, named by its SKU and size; the
// discount (10%), the tax (20% included, per line after the discount and
// on the delivery, half away from zero), the delivery and the total as the
// order stored them; and v's stock down by two.
func checkVariantOrder(t *testing.T, tb *e2eTab, app *browserApp, v soldVariant, size string) {
	t.Helper()
	line := `[data-testid="order-line"]`
	if n := tb.count(line); n != 1 {
		t.Fatalf("the order shows %d lines, want 1", n)
	}
	if got := tb.attr(line, "data-sku"); got != v.sku {
		t.Errorf("order line SKU %q, want %s", got, v.sku)
	}
	if got := tb.attr(line, "data-variant-id"); got != strconv.FormatInt(v.id, 10) {
		t.Errorf("order line variant %q, want %d", got, v.id)
	}
	if got := tb.attr(line, "data-qty"); got != "2" {
		t.Errorf("order line quantity %q, want 2", got)
	}
	if tb.count(line+` [data-testid="line-variant"]`) != 1 {
		t.Errorf("the order line does not name its options")
	} else if got := tb.text(line + ` [data-testid="line-variant"]`); got != "Size: "+size {
		t.Errorf("order line options %q, want Size: %s", got, size)
	}
	id, err := strconv.ParseInt(tb.attr(`[data-order-id]`, "data-order-id"), 10, 64)
	if err != nil {
		t.Fatalf("order id on the page: %v", err)
	}
	ctx := t.Context()
	var sub, discount, tax, shipping, total int64
	if err := app.DB.QueryRowContext(ctx, `SELECT subtotal_cents, discount_cents, tax_cents, shipping_cents, total_cents FROM orders WHERE id = $1`, id).
		Scan(&sub, &discount, &tax, &shipping, &total); err != nil {
		t.Fatalf("order %d: %v", id, err)
	}
	var lineSKU, label string
	var lineVariant, qty, price int64
	if err := app.DB.QueryRowContext(ctx, `SELECT variant_id, sku, variant, qty, price_cents FROM order_lines WHERE order_id = $1 AND item_id = $2`, id, v.item).
		Scan(&lineVariant, &lineSKU, &label, &qty, &price); err != nil {
		t.Fatalf("order %d's line: %v", id, err)
	}
	if lineVariant != v.id || lineSKU != v.sku || label != "Size: "+size || qty != 2 {
		t.Errorf("stored line: variant %d, SKU %s, %q, qty %d; want %d, %s, Size: %s, 2", lineVariant, lineSKU, label, qty, v.id, v.sku, size)
	}
	half := func(n, d int64) int64 { return (n + d/2) / d } // half away from zero, n >= 0
	if sub != 2*price || discount != half(sub*10, 100) || discount == 0 {
		t.Errorf("stored subtotal %d and discount %d: want 2 x %d and 10%% of it", sub, discount, price)
	}
	if want := half((sub-discount)*20, 120) + half(shipping*20, 120); tax != want || tax == 0 {
		t.Errorf("stored tax %d, want %d (20%% included in %d of goods and %d of delivery)", tax, want, sub-discount, shipping)
	}
	if total != sub-discount+shipping {
		t.Errorf("stored total %d, want %d - %d + %d (tax included)", total, sub, discount, shipping)
	}
	cents := func(n int64) string { return fmt.Sprintf("%d.%02d", n/100, n%100) }
	if got := tb.attr(`[data-testid="discount-line"]`, "data-amount"); got != cents(discount) {
		t.Errorf("order page discount %s, stored %d", got, discount)
	}
	if got := tb.attr(`[data-testid="tax-line"]`, "data-amount"); got != cents(tax) {
		t.Errorf("order page tax %s, stored %d", got, tax)
	}
	wantShipping := "Free"
	if shipping != 0 {
		wantShipping = views.DefaultShop.Currency.Format(shipping)
	}
	if got := tb.text(`[data-testid="shipping-cost"]`); got != wantShipping {
		t.Errorf("order page delivery %q, stored %d", got, shipping)
	}
	if got := tb.text(`[data-testid="order-total"]`); got != views.DefaultShop.Currency.Format(total) {
		t.Errorf("order page total %q, stored %d", got, total)
	}
	var stock int64
	if err := app.DB.QueryRowContext(ctx, `SELECT stock FROM item_variants WHERE id = $1`, v.id).Scan(&stock); err != nil {
		t.Fatal(err)
	}
	if stock != v.stock-2 {
		t.Errorf("%s stock %d after the order, want %d", v.sku, stock, v.stock-2)
	}
}
