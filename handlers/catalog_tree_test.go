package handlers_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"storefront/handlers"
)

// crumbsOf is the visible breadcrumbs' text.
func crumbsOf(body string) string {
	m := regexp.MustCompile(`(?s)data-testid="breadcrumbs"[^>]*>(.*?)</nav>`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[1], ""))), " ")
}

// categoryID is the id of the category items name so.
func (a *app) categoryID(name string) int64 {
	a.t.Helper()
	tree, err := a.store.Catalog.Tree(a.t.Context())
	if err != nil {
		a.t.Fatal(err)
	}
	n, ok := tree.ByName(name)
	if !ok {
		a.t.Fatalf("no category %q", name)
	}
	return n.ID
}

// The demo tree nests three levels: a department's page lists the items
// of every category below it, with breadcrumbs (visible and as a
// BreadcrumbList) and its subcategories as facets counting their whole
// subtree under the page's filters; a department moved into a group
// answers 301 from its old path; the catalog's ?category= names the
// same page as its canonical URL.
func TestCatalogTreePages(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	leisure := c.MustGet("/c/leisure", http.StatusOK).Body
	if n := testids(leisure, "result-count", "data-count"); len(n) != 1 || n[0] != "480" {
		t.Errorf("Leisure holds %v items, want Toys, Books, Outdoors and Sports: 480", n)
	}
	mustContain(t, leisure, `data-category-path="leisure"`, `data-testid="category-tree"`, `data-testid="breadcrumbs"`)
	facets := map[string]string{}
	values, counts, kinds := testids(leisure, "facet", "data-value"), testids(leisure, "facet", "data-count"), testids(leisure, "facet", "data-facet")
	for i := range values {
		if kinds[i] == "category" {
			facets[values[i]] = counts[i]
		}
	}
	if facets["Active"] != "240" || facets["Toys"] != "120" || facets["Books"] != "120" || len(facets) != 3 {
		t.Errorf("Leisure's facets %v, want Active 240, Books 120, Toys 120", facets)
	}

	sports := c.MustGet("/c/leisure/active/sports?max=50&in_stock=1", http.StatusOK).Body
	if got := crumbsOf(sports); got != "Shop › Leisure › Active › Sports" {
		t.Errorf("breadcrumbs %q", got)
	}
	if !noindexOf(sports) {
		t.Error("a filtered category page may be indexed")
	}
	for _, id := range testids(sports, "item-card", "data-item-id") {
		n, _ := strconv.ParseInt(id, 10, 64)
		if (n-1)%10 != 9 {
			t.Errorf("item %d on the Sports page is no sports item", n)
		}
	}
	plain := c.MustGet("/c/leisure/active/sports", http.StatusOK).Body
	var crumbs []any
	for _, doc := range jsonLD(t, plain) {
		if doc["@type"] == "BreadcrumbList" {
			crumbs = doc["itemListElement"].([]any)
		}
	}
	if len(crumbs) != 4 || crumbs[3].(map[string]any)["item"] != shopURL+"/c/leisure/active/sports" {
		t.Errorf("BreadcrumbList %v", crumbs)
	}
	if got := canonicalOf(c.MustGet("/items?category=Sports", http.StatusOK).Body); got != shopURL+"/c/leisure/active/sports" {
		t.Errorf("the catalog's Sports listing canonical %q", got)
	}
	item := c.MustGet("/items/10", http.StatusOK).Body // item 10 is in Sports
	if got := crumbsOf(item); !strings.HasPrefix(got, "Shop › Leisure › Active › Sports › ") {
		t.Errorf("item breadcrumbs %q", got)
	}
	if res := c.GetExact("/c/kitchen?sort=price_asc"); res.Status != http.StatusMovedPermanently ||
		res.Header.Get("Location") != "/c/home-living/kitchen?sort=price_asc" {
		t.Errorf("old path: %d to %q", res.Status, res.Header.Get("Location"))
	}
	c.MustGet("/c/no-such-thing", http.StatusNotFound)
	c.MustGet("/c/leisure/toys/../../kitchen", http.StatusNotFound)
}

// The admin renames and moves categories: the old paths (the category's
// and those below it) answer 301 to the new ones and the item pages show
// the new trail at once; a move into its own subtree or deeper than
// three levels, and a fourth level, are 422s that change nothing.
func TestCategoryMoveAndRename(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	shopper := a.client()
	shopper.MustGet("/items/10", http.StatusOK) // cached with the old trail
	active, leisure, kitchen, sports := a.categoryID("Active"), a.categoryID("Leisure"), a.categoryID("Kitchen"), a.categoryID("Sports")
	for _, bad := range []struct {
		id     int64
		title  string
		parent int64
		says   string
	}{
		{leisure, "Leisure", active, "into itself"},
		{active, "Active", kitchen, "deeper"},
		{sports, "", leisure, "Give the category a name"},
	} {
		res := admin.Post("/admin/categories/"+itoa(bad.id), url.Values{"title": {bad.title}, "parent": {itoa(bad.parent)}})
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, bad.says) {
			t.Errorf("move %d under %d: %d, want 422 saying %q", bad.id, bad.parent, res.Status, bad.says)
		}
	}
	if res := admin.Post("/admin/categories", url.Values{"title": {"Balls"}, "parent": {itoa(sports)}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("a fourth level: %d", res.Status)
	}
	shopper.MustGet("/c/leisure/active/sports", http.StatusOK)

	if res := admin.Post("/admin/categories/"+itoa(active), url.Values{"title": {"Out & About"}, "parent": {"0"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("rename and move: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	if res := shopper.GetExact("/c/leisure/active/sports"); res.Status != http.StatusMovedPermanently || res.Header.Get("Location") != "/c/out-about/sports" {
		t.Errorf("old child path: %d to %q", res.Status, res.Header.Get("Location"))
	}
	if res := shopper.GetExact("/c/leisure/active"); res.Header.Get("Location") != "/c/out-about" {
		t.Errorf("old path: %d to %q", res.Status, res.Header.Get("Location"))
	}
	page := shopper.MustGet("/c/out-about/sports", http.StatusOK).Body
	if got := crumbsOf(page); got != "Shop › Out & About › Sports" {
		t.Errorf("breadcrumbs after the move %q", got)
	}
	if got := crumbsOf(shopper.MustGet("/items/10", http.StatusOK).Body); !strings.HasPrefix(got, "Shop › Out & About › Sports › ") {
		t.Errorf("the item page kept its old trail: %q", got)
	}
	if n := testids(shopper.MustGet("/c/leisure", http.StatusOK).Body, "result-count", "data-count"); n[0] != "240" {
		t.Errorf("Leisure after the move holds %v", n)
	}
	// A new category may take a path that once moved away.
	if res := admin.Post("/admin/categories", url.Values{"title": {"Active"}, "parent": {itoa(leisure)}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("a second category named Active: %d", res.Status) // names are the items' keys: unique
	}
	if res := admin.Post("/admin/categories", url.Values{"title": {"Activities"}, "parent": {itoa(leisure)}}); res.Status != http.StatusSeeOther {
		t.Errorf("new category: %d", res.Status)
	}
	admins := admin.MustGet("/admin/categories", http.StatusOK).Body
	mustContain(t, admins, `data-category-path="leisure/activities"`, `data-category-path="out-about/sports"`)
	if a.client().Get("/admin/categories").Status == http.StatusOK {
		t.Error("a guest sees the admin's categories")
	}
}

// Collections: a hand-picked one lists its items in the merchant's
// order, a rule one every item matching all its rules, a page at a time;
// the admin makes them (a bad rule is a 422 that saves nothing) and puts
// one on the home page; the sitemaps list category and collection pages.
func TestCollections(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) { c.ItemsPerPage = 12 })
	c := a.client()
	picks := c.MustGet("/collections/staff-picks", http.StatusOK).Body
	if got := strings.Join(testids(picks, "item-card", "data-item-id"), ","); got != "12,3,25,48,7,60,91,104,130,222" {
		t.Errorf("staff picks in order %s", got)
	}
	gifts := c.MustGet("/collections/gifts-under-30", http.StatusOK).Body
	total, _ := strconv.Atoi(testids(gifts, "result-count", "data-count")[0])
	var want int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM items WHERE id % 7 = 0 AND price_cents <= 3000`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if total != want || want <= 12 {
		t.Fatalf("gifts under $30: %d, want %d (more than a page)", total, want)
	}
	if n := len(testids(gifts, "item-card", "data-item-id")); n != 12 {
		t.Errorf("first page holds %d cards", n)
	}
	second := c.MustGet("/collections/gifts-under-30?page=2", http.StatusOK).Body
	for _, id := range testids(second, "item-card", "data-item-id") {
		if n, _ := strconv.Atoi(id); n%7 != 0 {
			t.Errorf("item %d is no gift", n)
		}
	}
	c.MustGet("/collections/nothing-here", http.StatusNotFound)

	admin := a.client()
	admin.signInAdmin()
	bad := url.Values{"title": {"Mid-price"}, "kind": {"rule"}, "min": {"50.00"}, "max": {"20.00"}}
	if res := admin.Post("/admin/collections", bad); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("min above max: %d", res.Status)
	}
	if res := admin.Post("/admin/collections", url.Values{"title": {"Nothing"}, "kind": {"rule"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("no rule: %d", res.Status)
	}
	if res := admin.Post("/admin/collections", url.Values{"title": {"Ghosts"}, "kind": {"manual"}, "items": {"3, 999999"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("unknown item: %d", res.Status)
	}
	if n := a.tableCount("collections"); n != 2 {
		t.Fatalf("refusals saved: %d collections", n)
	}
	res := admin.Post("/admin/collections", url.Values{"title": {"Mid-price new"}, "kind": {"rule"}, "min": {"20.00"}, "max": {"50.00"}, "new_days": {"30"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("new rule collection: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	mid := c.MustGet("/collections/mid-price-new", http.StatusOK).Body
	if n := testids(mid, "result-count", "data-count"); n[0] == "0" {
		t.Error("a new shop's items are not new")
	}

	if res := admin.Post("/admin/home", url.Values{"hero_title": {"Hi"}, "collection": {"no-such"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("home with an unknown collection: %d", res.Status)
	}
	if res := admin.Post("/admin/home", url.Values{"hero_title": {"Hi"}, "collection": {"staff-picks"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("home with a collection: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	home := c.MustGet("/", http.StatusOK).Body
	mustContain(t, home, `data-testid="collection-grid" data-collection="staff-picks"`, `href="/collections/staff-picks"`)

	urls := readSitemaps(t, c, 50000)
	for _, u := range []string{"/c/leisure", "/c/leisure/active/sports", "/c/home-living/kitchen", "/collections/staff-picks", "/collections/mid-price-new"} {
		if !urls[shopURL+u] {
			t.Errorf("the sitemaps lack %s", u)
		}
	}
}
