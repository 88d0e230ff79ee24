package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestSearchBadInput(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	tests := []struct {
		name, path string
		status     int
		want       string
	}{
		{"unknown sort", "/items?sort=cheapest", 400, "Sort by"},
		{"sort injection", "/items?sort=id%3BDROP", 400, "Sort by"},
		{"bad min", "/items?min=abc", 400, "lowest price"},
		{"negative max", "/items?max=-1", 400, "highest price"},
		{"three decimals", "/items?min=1.234", 400, "lowest price"},
		{"min above max", "/items?min=50&max=10.00", 400, "lowest price is above"},
		{"bad in_stock", "/items?in_stock=maybe", 400, "in_stock"},
		{"unknown category", "/items?category=Weapons", 404, "department does not exist"},
		{"long category", "/items?category=" + strings.Repeat("x", 300), 404, "department does not exist"},
		{"q 201 chars", "/items?q=" + strings.Repeat("é", 201), 400, "200 characters"},
		{"invalid utf-8", "/items?q=%ff%fe", 422, "valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := c.Get(tc.path)
			if res.Status != tc.status {
				t.Fatalf("%s: status %d, want %d", tc.path, res.Status, tc.status)
			}
			mustContain(t, res.Body, tc.want)
		})
	}
	if res := c.Get("/items?q=" + strings.Repeat("é", 200)); res.Status != 200 {
		t.Errorf("200 characters: %d", res.Status)
	}
}

func TestSearchPageHooks(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	res := c.Get("/items?q=slate&min=10.00&max=100&in_stock=1&sort=price_asc")
	if res.Status != 200 {
		t.Fatalf("status %d", res.Status)
	}
	total, _ := strconv.Atoi(testids(res.Body, "result-count", "data-count")[0])
	if total == 0 {
		t.Fatal("no matches")
	}
	// The category facets add up to the total (no category chosen), and
	// each facet link narrows to exactly its count.
	cats := testids(res.Body, "facet", "data-value")
	counts := testids(res.Body, "facet", "data-count")
	facets := testids(res.Body, "facet", "data-facet")
	sum := 0
	for i, f := range facets {
		n, _ := strconv.Atoi(counts[i])
		if f == "category" {
			sum += n
		}
		if f == "in_stock" && n != total {
			t.Errorf("in-stock facet %d with in_stock=1, want %d", n, total)
		}
	}
	if sum != total {
		t.Errorf("category facets add to %d, total %d", sum, total)
	}
	for i, f := range facets {
		if f != "category" {
			continue
		}
		narrowed := c.Get("/items?q=slate&min=10.00&max=100&in_stock=1&sort=price_asc&category=" + url.QueryEscape(cats[i]))
		if got := testids(narrowed.Body, "result-count", "data-count")[0]; got != counts[i] {
			t.Errorf("facet %s says %s, narrowing gives %s", cats[i], counts[i], got)
		}
		// The form keeps every filter.
		mustContain(t, narrowed.Body, `name="min" value="10.00"`, `name="max" value="100"`, `value="price_asc" selected`, `name="in_stock" value="1" checked`)
	}
	prices := testids(res.Body, "item-price", "")
	if len(prices) == 0 {
		t.Fatal("no prices")
	}
	// Numbered pages: each link carries data-page and keeps the filters.
	all := c.Get("/items?sort=newest&page=3")
	pages := testids(all.Body, "pager", "")
	if len(pages) != 1 {
		t.Fatalf("%d pagers", len(pages))
	}
	mustContain(t, all.Body, `data-page="1"`, `data-page="2"`, `aria-current="page" data-page="3"`, `data-page="50"`, `href="/items?page=4&amp;sort=newest"`)
	ids := testids(all.Body, "item-card", "data-item-id")
	if ids[0] != "1152" {
		t.Errorf("newest page 3 starts with %s, want 1152", ids[0])
	}
}

func TestSearchTypoOffersDidYouMean(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	res := c.Get("/items?q=skilet&category=Kitchen")
	if res.Status != 200 {
		t.Fatalf("status %d", res.Status)
	}
	if got := textOf(res.Body, "did-you-mean"); !strings.Contains(got, "No items matched") {
		t.Errorf("did-you-mean: %q", got)
	}
	mustContain(t, res.Body, `href="/items?category=Kitchen&amp;q=skillet"`)
	cards := testids(res.Body, "item-card", "data-item-id")
	if len(cards) == 0 {
		t.Fatal("the typo found nothing")
	}
	fixed := c.Get("/items?category=Kitchen&q=skillet")
	if got := testids(fixed.Body, "item-card", "data-item-id"); !slices.Equal(got, cards) {
		t.Errorf("suggestion shows %v, corrected search %v", cards, got)
	}
	if strings.Contains(fixed.Body, `data-testid="did-you-mean"`) {
		t.Error("a correct query is offered a correction")
	}
}

// TestSearchFollowsAdminEdit: an admin's rename is searchable on the next
// request and the old name no longer finds the item.
func TestSearchFollowsAdminEdit(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	res := admin.Post("/admin/items/5", url.Values{"name": {"Gravitas Umbrella"}, "price": {"19.99"}, "stock": {"4"}, "description": {"Keeps the rain off."}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", res.Status, res.Body)
	}
	shopper := a.client()
	if got := testids(shopper.Get("/items?q=gravitas").Body, "item-card", "data-item-id"); !slices.Equal(got, []string{"5"}) {
		t.Errorf("gravitas: %v", got)
	}
	if got := testids(shopper.Get("/items?q=umbrela").Body, "item-card", "data-item-id"); !slices.Equal(got, []string{"5"}) {
		t.Errorf("umbrela (typo): %v", got)
	}
}
