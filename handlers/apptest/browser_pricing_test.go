package apptest_test

import (
	"strings"
	"testing"

	"storefront/handlers/apptest"
)

// TestBrowserBuyWithCodeToTaxedCountry: the admin creates a discount code
// in Chromium; a guest with JavaScript on and another with it off each add
// an item, apply the code (in lower case) on the cart, check out to the
// United Kingdom (20% tax, included in the prices) and see the discount,
// the tax the total includes and the total on the review and the order.
func TestBrowserBuyWithCodeToTaxedCountry(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"})

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
			// Item 8 has 26 in stock in the demo catalog.
			tb.navigate("/items/8")
			tb.fill("#qty", "2")
			tb.click("form.buy button[type=submit]")
			if scripts {
				tb.waitText(`[data-testid="cart-count"]`, "2")
				tb.navigate("/cart")
			} else {
				tb.waitPath("/cart") // the form's answer is the cart page
			}
			tb.waitFor("#code")
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
			tb.screenshot("order-" + name)
		})
	}
	admin.navigate("/admin/discounts")
	admin.waitAttr(`[data-testid="admin-discount-row"][data-code="WELCOME"]`, "data-used", "2")
}
