package wiring_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// httpLayers is the HTTP layer's import graph as designed: each package
// under handlers/ ("" is handlers itself) and the packages of the shop it
// may import, named from the module's root. The areas (shop, board,
// account, admin, ops) share only the plumbing, handlers/web, and never
// import each other; only handlers itself builds them all, from the
// services wiring built. The store packages each area lists are the
// domains it reads: a new edge means changing this table on purpose.
var httpLayers = []struct {
	pkg     string
	imports []string
}{
	{"web", []string{"views", "store/merchant", "store/cart", "store/catalog", "store/platform", "store/sessions", "store/ratelimit", "store/media", "store/board", "store/orders", "store/pricing", "store/returns", "store/audit"}},
	{"ops", []string{"handlers/web", "static"}},
	{"shop", []string{"handlers/web", "views", "store/platform", "store/keys", "store/ratelimit", "store/catalog",
		"store/search", "store/analytics", "store/pagecache", "store/pagecache/pagebody", "store/sessions", "store/social",
		"store/reviews", "store/board", "store/cart", "store/orders", "store/pricing", "store/media", "store/addressbook", "store/stripepay", "store/returns", "store/sitemap",
		"store/merchant", "store/collections"}},
	{"board", []string{"handlers/web", "views", "store/platform", "store/keys", "store/ratelimit", "store/board",
		"store/social", "store/sessions"}},
	{"account", []string{"handlers/web", "views", "store/platform", "store/keys", "store/ratelimit", "store/sessions",
		"store/notify", "store/cart", "store/addressbook", "store/orders", "store/mail"}},
	{"admin", []string{"handlers/web", "views", "store/platform", "store/keys", "store/catalog", "store/media",
		"store/orders", "store/pricing", "store/board", "store/reviews", "store/sessions", "store/stats", "store/sales", "store/mail", "store/returns",
		"store/merchant", "store/collections", "store/audit"}},
	{"", []string{"handlers/web", "handlers/ops", "handlers/shop", "handlers/board", "handlers/account", "handlers/admin",
		"wiring", "store/media", "store/ratelimit"}},
	// Test support: starts the program and speaks HTTP to it.
	{"apptest", []string{"store/platform", "store/storetest"}},
}

// httpAreas are the packages that answer routes of their own.
var httpAreas = []string{"ops", "shop", "board", "account", "admin"}

// TestHTTPImportGraph fails when a package under handlers/ imports one
// its row of httpLayers does not name.
func TestHTTPImportGraph(t *testing.T) {
	graph, err := packageImports("..", "handlers")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range checkHTTPLayering(graph) {
		t.Error(err)
	}
}

// TestHTTPAreasStandAlone: in the table itself, no area imports another
// area or handlers itself, and the plumbing imports no package of the
// HTTP layer, so an area can be read (and changed) alone.
func TestHTTPAreasStandAlone(t *testing.T) {
	for _, l := range httpLayers {
		if l.pkg == "" {
			continue
		}
		for _, imp := range l.imports {
			if imp == "handlers/web" && l.pkg != "web" {
				continue
			}
			if imp == "handlers" || strings.HasPrefix(imp, "handlers/") || imp == "wiring" {
				t.Errorf("handlers/%s may import %s: only handlers itself builds the areas, over the wiring", l.pkg, imp)
			}
		}
	}
}

// TestHTTPImportGraphCatchesViolations: the check finds an area importing
// another, the plumbing importing an area, an area reaching a domain its
// row does not name, and a package left out of the table.
func TestHTTPImportGraphCatchesViolations(t *testing.T) {
	graph := map[string][]string{}
	for _, l := range httpLayers {
		for _, imp := range l.imports {
			graph[l.pkg] = append(graph[l.pkg], "storefront/"+imp)
		}
	}
	graph["shop"] = append(graph["shop"], "storefront/handlers/board")    // an area importing another
	graph["web"] = append(graph["web"], "storefront/handlers/admin")      // the plumbing importing an area
	graph["account"] = append(graph["account"], "storefront/store/stats") // a domain not in its row
	graph["admin"] = append(graph["admin"], "storefront/wiring")          // the wiring
	graph["newarea"] = []string{"storefront/handlers/web"}                // not in the table
	errs := checkHTTPLayering(graph)
	for _, want := range []string{"handlers/shop imports storefront/handlers/board", "handlers/web imports storefront/handlers/admin",
		"handlers/account imports storefront/store/stats", "handlers/admin imports storefront/wiring",
		"handlers/newarea is not in the layering"} {
		if !slices.ContainsFunc(errs, func(err error) bool { return strings.Contains(err.Error(), want) }) {
			t.Errorf("the check misses %q (found %v)", want, errs)
		}
	}
	if errs := checkHTTPLayering(map[string][]string{"board": {"storefront/handlers/web", "storefront/store/board", "context"}}); len(errs) != 0 {
		t.Errorf("an allowed graph fails: %v", errs)
	}
}

// checkHTTPLayering compares a graph of packages under handlers/ with
// httpLayers.
func checkHTTPLayering(graph map[string][]string) []error {
	allowed := map[string][]string{}
	for _, l := range httpLayers {
		allowed[l.pkg] = l.imports
	}
	names := make([]string, 0, len(graph))
	for pkg := range graph {
		names = append(names, pkg)
	}
	sort.Strings(names)
	var errs []error
	for _, pkg := range names {
		name := strings.TrimSuffix("handlers/"+pkg, "/")
		may, known := allowed[pkg]
		if !known {
			errs = append(errs, fmt.Errorf("%s is not in the layering: add it to httpLayers with what it may import", name))
			continue
		}
		for _, imp := range graph[pkg] {
			dep, ours := strings.CutPrefix(imp, "storefront/")
			if !ours || slices.Contains(may, dep) {
				continue
			}
			why := "which its row of httpLayers does not name"
			if slices.Contains(httpAreas, strings.TrimPrefix(dep, "handlers/")) {
				why = "another area: areas share only handlers/web"
			}
			errs = append(errs, fmt.Errorf("%s imports %s, %s", name, imp, why))
		}
	}
	return errs
}
