package apptest_test

import (
	"strings"
	"testing"

	"storefront/handlers/apptest"
)

// addressState is what a person sees of the checkout's address: the
// country, the region's label, choices and value, the phone, and the
// review's delivery row (lower-cased: the table's heads are styled in
// capitals) and total.
var addressState = stateJS(`{
	country: val("#country"),
	regionLabel: text('label[for="region"]'),
	regionGroups: [...document.querySelectorAll("#region optgroup")].map(g => g.label),
	regions: document.querySelectorAll("#region option").length,
	region: val("#region"),
	phone: val("#phone"),
	delivery: text('[data-testid="delivery-zone"]').toLowerCase(), cost: text('[data-testid="shipping-cost"]'),
	total: text('[data-testid="order-total"]'), form: val('[data-checkout-total]')
}`)

// fillIllinois fills the checkout's address but the country and region.
func fillIllinois(tb *e2eTab) {
	tb.t.Helper()
	tb.fill("#email", "ivy@example.com")
	tb.fill("#name", "Ivy Park")
	tb.fill("#line1", "233 S Wacker Dr")
	tb.fill("#city", "Chicago")
	tb.fill("#postcode", "60606")
	tb.fill("#phone", "+1 (312) 555-0199")
}

// TestBrowserCheckoutWithARegion: a guest buys to Illinois at 390 and
// 1280 px. Before a country the review shows no delivery and the region
// offers every region-country's list, grouped; choosing the United States
// (the script asks for the review again) shows its states and the US
// delivery, exactly as the server renders them with JavaScript off after
// "Update the review"; the order's page shows the state and the phone.
// Without JavaScript the one-step form works too: the country and the
// state chosen from the groups, the order is placed after the review with
// delivery that the refused first total brings.
func TestBrowserCheckoutWithARegion(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"})
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			tb := b.freshTab(t, app)
			tb.size(s)
			plain := tb.plainTab(t, s)
			addLineInBrowser(tb, "8")

			tb.navigate("/checkout")
			tb.waitFor(`[data-testid="checkout-form"]`)
			before := sameAsServer(t, tb, plain, "/checkout", addressState, "before a country")
			if !strings.Contains(before, `"regionGroups":["Australia","Canada","United States"]`) || !strings.Contains(before, `"delivery":"delivery"`) ||
				!strings.Contains(before, `"cost":"Choose a country"`) {
				t.Errorf("before a country: %s", before)
			}

			fillIllinois(tb)
			tb.choose("#country", "US")
			tb.waitFor(`[data-testid="region-field"][data-country="US"]`)
			fillIllinois(plain)
			plain.fill("#country", "US")
			plain.click(`[data-testid="review-again"]`)
			plain.waitFor(`[data-testid="region-field"][data-country="US"]`)
			tb.fill("#region", "IL")
			plain.fill("#region", "IL")
			got, want := eval[string](tb, addressState), eval[string](plain, addressState)
			if got != want {
				t.Errorf("the US review shows, after its script ran:\n\t%s\nthe server renders:\n\t%s", got, want)
			}
			if !strings.Contains(got, `"regionLabel":"State"`) || !strings.Contains(got, `"regionGroups":[]`) || !strings.Contains(got, `"region":"IL"`) ||
				!strings.Contains(got, `"delivery":"delivery (united states)"`) || !strings.Contains(got, `"phone":"+1 (312) 555-0199"`) {
				t.Errorf("the US review: %s", got)
			}
			tb.screenshot("checkout-region-" + s.name)
			tb.click(`[data-testid="checkout-form"] button[type=submit]`)
			tb.waitPath("/guest-orders/")
			tb.waitFor(`[data-testid="order-address"]`)
			if addr := tb.text(`[data-testid="order-address"]`); !strings.Contains(addr, "Chicago, IL 60606") || !strings.Contains(addr, "+1 (312) 555-0199") {
				t.Errorf("order address %q", addr)
			}

			// Without JavaScript in one step: country and state from the
			// groups; the first total had no delivery, so the review asks to
			// confirm the total with it, and then the order goes through.
			other := b.freshTab(t, app)
			other.size(s)
			addLineInBrowser(other, "8")
			bare := other.plainTab(t, s)
			bare.navigate("/checkout")
			fillIllinois(bare)
			bare.fill("#country", "US")
			bare.fill("#region", "IL")
			bare.click(`[data-testid="checkout-form"] button[type=submit]`)
			bare.waitFor(`[data-testid="region-field"][data-country="US"]`)
			if got := eval[string](bare, addressState); !strings.Contains(got, `"region":"IL"`) || !strings.Contains(got, `"delivery":"delivery (united states)"`) {
				t.Errorf("the review after the first try without JavaScript: %s", got)
			}
			bare.click(`[data-testid="checkout-form"] button[type=submit]`)
			bare.waitPath("/guest-orders/")
			if addr := bare.text(`[data-testid="order-address"]`); !strings.Contains(addr, "Chicago, IL 60606") {
				t.Errorf("order address without JavaScript %q", addr)
			}
		})
	}
}
