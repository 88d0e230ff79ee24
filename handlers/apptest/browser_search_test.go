package apptest_test

import (
	"fmt"
	"strings"
	"testing"

	"storefront/handlers/apptest"
)

// TestE2ESearchTypoAndFilter searches with a misspelt word, narrows to
// items in stock with the filter form, and follows the suggestion; the
// cards' generated pictures load.
func TestE2ESearchTypoAndFilter(t *testing.T) {
	apptest.Parallel(t)
	tb := newBrowser(t).tab(startBrowserApp(t, nil))
	tb.navigate("/")
	tb.fill("#site-search", "skilet")
	tb.click(`form.search button[type="submit"]`)
	tb.waitFor(`[data-testid="did-you-mean"]`)
	all := eval[int](tb, `Number(document.querySelector('[data-testid="result-count"]').dataset.count)`)
	if all == 0 {
		t.Fatal("the misspelt search found nothing")
	}

	tb.click(`.search-filters input[name="in_stock"]`)
	tb.click(`.search-filters button[type="submit"]`)
	tb.waitUntil("the in-stock filter applied", e2eStepTimeout, func() (bool, string, error) {
		p, err := peek[string](tb, `location.pathname + location.search`) // the page may be changing
		return err == nil && strings.Contains(p, "in_stock=1"), p, err
	})
	tb.waitFor(`[data-testid="did-you-mean"]`)
	tb.screenshot("search-typo-in-stock")
	inStock := eval[int](tb, `Number(document.querySelector('[data-testid="result-count"]').dataset.count)`)
	if inStock == 0 || inStock > all {
		t.Fatalf("in stock: %d of %d", inStock, all)
	}
	names := eval[[]string](tb, `Array.from(document.querySelectorAll('[data-testid="item-card"] .card-title a'), a => a.textContent)`)
	stock := eval[[]string](tb, `Array.from(document.querySelectorAll('[data-testid="item-card"] [data-testid="item-stock"]'), e => e.textContent)`)
	for i, n := range names {
		if !strings.Contains(n, "Skillet") || stock[i] == "Out of stock" {
			t.Errorf("%q (%s) shown for skilet, in stock only", n, stock[i])
		}
	}
	tb.waitUntil("the thumbnails loaded", e2eStepTimeout, func() (bool, string, error) {
		// Thumbnails load lazily: bring each one still loading into view.
		state, err := peek[[]int](tb, `Array.from(document.querySelectorAll('[data-testid="item-thumb"]'), i => {
			if (!i.complete) i.scrollIntoView();
			return i.complete ? i.naturalWidth : -1;
		})`)
		if err != nil {
			return false, "", err
		}
		for _, w := range state {
			if w <= 0 {
				return false, fmt.Sprint(state), nil
			}
		}
		return len(state) == len(names), fmt.Sprint(state), nil
	})

	tb.click(`[data-testid="did-you-mean"] a`)
	tb.waitUntil("the suggestion followed", e2eStepTimeout, func() (bool, string, error) {
		p, err := peek[string](tb, `location.pathname + location.search`)
		return err == nil && strings.Contains(p, "q=skillet") && strings.Contains(p, "in_stock=1"), p, err
	})
	tb.waitFor(`[data-testid="result-count"]`)
	if n := tb.count(`[data-testid="did-you-mean"]`); n != 0 {
		t.Error("the corrected search is offered a correction")
	}
	if got := eval[int](tb, `Number(document.querySelector('[data-testid="result-count"]').dataset.count)`); got != inStock {
		t.Errorf("corrected search: %d, typo search %d", got, inStock)
	}
}
