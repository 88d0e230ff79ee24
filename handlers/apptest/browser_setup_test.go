package apptest_test

import (
	"fmt"
	"strings"
	"testing"
)

// homeState is what the home page shows of the merchant's own shop: the
// header's name, the title, the headline and the featured cards with
// their prices.
const homeState = `JSON.stringify({
	name: document.querySelector('[data-testid=shop-name]').textContent.trim(),
	title: document.title,
	hero: (document.querySelector('[data-testid=hero-title]') || {}).textContent || '',
	featured: [...document.querySelectorAll('[data-testid=featured] [data-testid=item-card]')].map(c => c.dataset.itemId + ' ' +
		c.textContent.replace(/\s+/g, ' ').trim().match(/[€$£¥][0-9.,]+/))
})`

// TestBrowserMerchantSetsUpTheShop: an admin in Chromium, at each width,
// names the shop, picks euros and writes the home page's headline and
// featured items through the settings and home forms; the very next home
// page, with JavaScript on and off alike, shows the new name in the
// header and the title, the headline, and the featured items in that
// order with prices in euros.
func TestBrowserMerchantSetsUpTheShop(t *testing.T) {
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"})
	for i, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			tb := b.freshTab(t, app)
			tb.signInAdmin(app) // at the desktop width, where the account's links show
			tb.size(s)
			name := fmt.Sprintf("Atelier Nord %d", i+1)
			tb.navigate("/admin/settings")
			tb.fill("#shop_name", name)
			tb.choose("#currency", "EUR")
			tb.click(`[data-testid=settings-form] button[type=submit]`)
			tb.waitText(`[data-testid=shop-name]`, name)

			tb.navigate("/admin/home")
			tb.fill("#hero_title", "Autumn at "+name)
			tb.fill("#featured", "7, 5")
			tb.click(`[data-testid=home-form] button[type=submit]`)
			tb.waitFor(`[data-testid=flash]`)

			plain := tb.plainTab(t, s)
			tb.navigate("/")
			tb.waitFor(`[data-testid=hero-title]`)
			got := sameAsServer(t, tb, plain, "/", homeState, "the merchant's home page")
			for _, want := range []string{`"name":"` + name + `"`, `· ` + name + `"`, `"hero":"Autumn at ` + name + `"`, `"featured":["7 €`, `","5 €`} {
				if !strings.Contains(got, want) {
					t.Errorf("the home page lacks %s: %s", want, got)
				}
			}
			tb.screenshot("merchant-home-" + s.name)
		})
	}
}
