package apptest_test

import (
	"strings"
	"testing"

	"storefront/handlers/apptest"
)

// TestE2EShopBrowse opens the home page, searches and opens an item.
func TestE2EShopBrowse(t *testing.T) {
	apptest.Parallel(t)
	tb := newBrowser(t).tab(startBrowserApp(t, nil))
	tb.navigate("/")
	tb.waitFor(`[data-testid="popular"]`)
	if n := tb.count(`[data-testid="item-card"]`); n == 0 {
		t.Fatal("the home page shows no items")
	}
	tb.screenshot("home")

	tb.fill("#site-search", "tent")
	tb.click(`form.search button[type="submit"]`)
	tb.waitFor(`[data-testid="result-count"]`)
	if p := tb.path(); p != "/items?q=tent" {
		t.Fatalf("search went to %s", p)
	}
	tb.screenshot("search")
	names := eval[[]string](tb, `Array.from(document.querySelectorAll('[data-testid="item-card"] .card-title a'), a => a.textContent)`)
	if len(names) == 0 {
		t.Fatal("a search for tent found nothing")
	}
	for _, n := range names {
		if !strings.Contains(strings.ToLower(n), "tent") {
			t.Errorf("%q does not match the search", n)
		}
	}

	tb.click(`[data-testid="item-card"] .card-title a`)
	tb.waitFor(`[data-testid="item"]`)
	if got := tb.text(`[data-testid="item"] h1`); got != names[0] {
		t.Errorf("opened %q, want %q", got, names[0])
	}
	if price := tb.text(`[data-testid="item"] [data-testid="item-price"]`); !strings.HasPrefix(price, "$") {
		t.Errorf("price %q", price)
	}
	tb.screenshot("item")
}
