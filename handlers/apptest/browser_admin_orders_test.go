package apptest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"storefront/handlers/apptest"
	"storefront/wiring"
)

// TestBrowserAdminOrderPage: the merchant's order page at a phone's width
// and a laptop's says what to pack (each line's options, SKU and picture:
// a variant's own where it has one), where it goes and what it cost
// (delivery to the country, tax, total), fits the screen and passes axe.
// Shipping without a tracking number comes back to the page with the
// error beside the status form and the choice kept; with the number it
// ships, and the page shows it. The options editor fits 1280 px and names
// its columns after the options; the discount, shipping and tax forms show
// the hints their fields are described by.
func TestBrowserAdminOrderPage(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"}, func(o *wiring.Options) { o.SeedVariants = true })
	ids := dressVariants(t, app)
	shopper := app.client(t)
	for _, line := range []url.Values{
		{"item": {"28"}, "option-Size": {"M"}, "option-Colour": {"Amber"}, "qty": {"1"}},
		{"item": {"28"}, "option-Size": {"XL"}, "option-Colour": {"Black"}, "qty": {"2"}},
	} {
		shopper.MustPost("/cart", line, http.StatusSeeOther)
	}
	loc := placeOrder(t, shopper, shopper, http.StatusSeeOther).Header.Get("Location")
	order := "/admin/orders/" + regexp.MustCompile(`orders/([0-9]+)`).FindStringSubmatch(loc)[1]
	line := func(values string) string {
		return fmt.Sprintf(`[data-testid="admin-order-lines"] [data-testid="admin-order-line"][data-line-id="%d-%s"]`, pickItem, ids.id(values))
	}

	admin := b.tab(app)
	admin.signInAdmin(app)
	for i, s := range screens {
		admin.size(s)
		admin.navigate(order)
		if n := admin.count(`[data-testid="admin-order-line"]`); n != 2 {
			t.Fatalf("%s: the order page lists %d lines, want 2", s.name, n)
		}
		for values, want := range map[string]string{"M/Amber": "Size: M, Colour: Amber", "XL/Black": "Size: XL, Colour: Black"} {
			if got := admin.text(line(values) + ` [data-testid="line-variant"]`); got != want {
				t.Errorf("%s: line %s names %q", s.name, values, got)
			}
			if got := admin.text(line(values) + ` [data-testid="line-sku"]`); got != "SF-000028-"+strings.ToUpper(strings.ReplaceAll(values, "/", "-")) {
				t.Errorf("%s: line %s's SKU %q", s.name, values, got)
			}
		}
		if own, main := admin.attr(line("M/Amber")+` img`, "src"), admin.attr(line("XL/Black")+` img`, "src"); own == "" || own == main {
			t.Errorf("%s: M in Amber shows picture %q, XL in Black %q: the variant's own picture should show", s.name, own, main)
		}
		for _, sel := range []string{`[data-testid="tax-line"]`, `[data-testid="shipping-cost"]`, `[data-testid="order-total"]`, `[data-testid="order-status-form"]`} {
			if !shown(admin, sel) {
				t.Errorf("%s: %s is not shown", s.name, sel)
			}
		}
		if got := eval[string](admin, `document.querySelector('[data-testid="admin-order-lines"] tfoot').textContent`); !strings.Contains(got, "(Standard delivery to United Kingdom)") {
			t.Errorf("%s: the delivery line does not name the country: %q", s.name, got)
		}
		if wide := tooWide(admin); wide != "" {
			t.Errorf("%s: the order page is wider than the screen: %s", s.name, wide)
		}
		if found := axeViolations(admin, order); found != "" {
			t.Errorf("%s: axe on the order page: %s", s.name, found)
		}
		admin.screenshot("admin-order-" + s.name)
		if i > 0 {
			continue
		}
		// Ship without a tracking number: the page again, the error inline.
		admin.fill("#order-move", "shipped")
		admin.click(`[data-testid="order-status-form"] button[type=submit]`)
		admin.waitFor(`[data-testid="order-status-form"] [role="alert"]`)
		if got := admin.text(`[data-testid="order-status-form"] [role="alert"]`); !strings.Contains(got, "tracking number") {
			t.Errorf("the refused move says %q", got)
		}
		if got := admin.attr("#order-move", "value"); eval[string](admin, `document.querySelector("#order-move").value`) != "shipped" {
			t.Errorf("the refused form forgot the status chosen (%q)", got)
		}
		if admin.count(`[data-testid="admin-order-line"]`) != 2 {
			t.Error("the refused move's page does not show the order")
		}
		admin.screenshot("admin-order-refused")
		admin.fill("#order-tracking", "1Z 999 AA1")
		admin.click(`[data-testid="order-status-form"] button[type=submit]`)
		admin.waitText(`[data-testid="order-tracking"]`, "1Z 999 AA1")
		if got := admin.path(); got != order {
			t.Errorf("after shipping the admin is at %s, want the order's page", got)
		}
	}

	// The options editor at a laptop's width.
	admin.size(screens[1])
	admin.navigate(fmt.Sprintf("/admin/items/%d/variants", pickItem))
	if got := strings.Join(admin.attrsText(`[data-testid="option-column"]`), ","); got != "Size,Colour,Option 3" {
		t.Errorf("the options editor's columns: %s", got)
	}
	if wide := tooWide(admin); wide != "" {
		t.Errorf("the options editor is wider than 1280 px: %s", wide)
	}
	if over := eval[string](admin, `(() => { const s = document.querySelector(".table-scroll"); return s.scrollWidth > s.clientWidth ? s.scrollWidth + " > " + s.clientWidth : ""; })()`); over != "" {
		t.Errorf("the options editor's table scrolls at 1280 px: %s", over)
	}
	admin.screenshot("admin-variants-1280px")

	// Every described field's hint is on screen.
	for _, s := range screens {
		admin.size(s)
		for _, path := range []string{"/admin/discounts", "/admin/shipping", "/admin/tax", fmt.Sprintf("/admin/items/%d/variants", pickItem)} {
			admin.navigate(path)
			if bad := eval[string](admin, `[...document.querySelectorAll("[aria-describedby]")].flatMap(e =>
				e.getAttribute("aria-describedby").split(/\s+/).filter(id => { const d = document.getElementById(id);
					return !d || !d.checkVisibility() || !d.textContent.trim(); })).join(", ")`); bad != "" {
				t.Errorf("%s, %s: fields are described by %s, not shown on the page", s.name, path, bad)
			}
			if found := axeViolations(admin, path); found != "" {
				t.Errorf("%s, axe on %s: %s", s.name, path, found)
			}
		}
	}
	admin.screenshot("admin-variants-390px")
}

// attrsText is the text of every element matching the selector, as
// written (before a style sheet's capitals).
func (tb *e2eTab) attrsText(sel string) []string {
	tb.t.Helper()
	return eval[[]string](tb, fmt.Sprintf("Array.from(document.querySelectorAll(%q), e => e.textContent.trim())", sel))
}
