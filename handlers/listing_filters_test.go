package handlers_test

import (
	"net/http"
	"regexp"
	"testing"

	"storefront/handlers/apptest"
)

// TestListingFiltersSummary: the listing's filters are a <details> sent
// folded (a phone shows only its summary; a wide screen's stylesheet
// shows the contents), whose summary names every filter and the sort in
// force, in the words the filter form uses. The filters inside keep their
// hooks.
func TestListingFiltersSummary(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	folded := regexp.MustCompile(`<details class="filters-fold" data-testid="filters">`)
	for path, want := range map[string]string{
		"/items":                               "All departments",
		"/items?category=Kitchen":              "Kitchen",
		"/items?min=10":                        "All departments · From $10",
		"/items?q=slate&max=20.50&sort=newest": "All departments · Up to $20.50 · Newest",
		"/items?category=Kitchen&min=5&max=80&in_stock=1&sort=price_asc": "Kitchen · $5 to $80 · In stock only · Price: low to high",
		"/items?q=slate&sort=relevance":                                  "All departments",
	} {
		body := c.MustGet(path, http.StatusOK).Body
		if !folded.MatchString(body) {
			t.Errorf("%s: the filters are not a folded <details>", path)
		}
		if got := apptest.TextOf(body, "active-filters"); got != want {
			t.Errorf("%s: the filters' summary says %q, want %q", path, got, want)
		}
		if n := len(apptest.AttrsOf(body, "facet", "data-facet")); n < 2 {
			t.Errorf("%s: %d facets inside the filters", path, n)
		}
	}
}
