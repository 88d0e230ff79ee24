package wiring_test

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// layers is the data layer's import graph as designed: each package of
// store/ and the packages of the shop it may import (directly). A row
// imports only rows above it, so the graph points one way; a new edge
// means changing this table on purpose.
var layers = []struct {
	pkg     string
	imports []string
}{
	// The ground: no package of the shop.
	{"platform", nil},
	{"keys", nil},
	{"pagecache/pagebody", nil},
	// The audit log: written by the stores in their own transactions.
	{"audit", nil},
	// Test support: the backends, on the platform alone.
	{"storetest", []string{"platform"}},
	// Leases, worker reports, rate limits.
	{"workers", []string{"platform", "keys"}},
	{"ratelimit", []string{"platform", "keys"}},
	// Domains that need no other domain.
	{"catalog", []string{"platform", "keys", "workers", "audit"}},
	{"analytics", []string{"platform", "keys", "workers"}},
	{"notify", []string{"platform", "keys"}},
	{"cart", []string{"platform", "keys"}},
	{"board", []string{"platform", "keys"}},
	{"pricing", []string{"platform", "audit"}},
	// Domains over those.
	{"media", []string{"platform", "catalog", "audit"}},
	{"reviews", []string{"platform", "catalog", "audit"}},
	{"search", []string{"platform", "keys", "catalog", "analytics"}},
	{"sessions", []string{"platform", "keys", "workers", "ratelimit", "cart", "notify", "analytics", "audit"}},
	{"orders", []string{"platform", "keys", "workers", "catalog", "cart", "pricing", "audit"}},
	{"addressbook", []string{"platform", "orders"}},
	{"mail", []string{"platform", "keys", "workers"}},
	{"merchant", []string{"platform", "keys", "mail", "audit"}},
	{"social", []string{"platform", "keys", "workers", "notify", "sessions", "board"}},
	{"sales", []string{"platform", "catalog"}},
	{"collections", []string{"platform", "catalog"}},
	{"stripepay", []string{"orders"}},
	{"returns", []string{"platform", "catalog", "orders", "pricing", "audit"}},
	// What reads many domains at once.
	{"pagecache", []string{"platform", "keys", "pagecache/pagebody", "catalog", "media", "reviews", "analytics", "social", "sessions"}},
	{"stats", []string{"platform", "keys", "workers", "catalog", "analytics", "sessions", "pagecache"}},
	{"seed", []string{"platform", "catalog", "media", "sessions", "board", "social", "collections"}},
	{"sitemap", []string{"platform", "keys", "catalog", "board"}},
}

// forbidden are packages no package of store/ imports: the data layer
// never knows the HTTP layer, the views or how it is wired.
var forbidden = []string{"github.com/labstack/echo", "github.com/a-h/templ", "storefront/handlers", "storefront/views", "storefront/wiring", "storefront/static"}

// TestImportGraph fails when a package of store/ imports one it should not.
func TestImportGraph(t *testing.T) {
	graph, err := storeImports("..") // the module's root, from wiring/
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range checkLayering(graph) {
		t.Error(err)
	}
}

// TestLayersPointOneWay: in the table itself, every row imports only rows
// above it, so the designed graph has no cycle.
func TestLayersPointOneWay(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range layers {
		for _, imp := range l.imports {
			if !seen[imp] {
				t.Errorf("store/%s may import store/%s, which is not above it", l.pkg, imp)
			}
		}
		seen[l.pkg] = true
	}
}

// TestImportGraphCatchesViolations: the check finds a domain reaching up,
// a forbidden import and a package left out of the table.
func TestImportGraphCatchesViolations(t *testing.T) {
	graph := map[string][]string{}
	for _, l := range layers {
		for _, imp := range l.imports {
			graph[l.pkg] = append(graph[l.pkg], shopPrefix+imp)
		}
	}
	graph["catalog"] = append(graph["catalog"], shopPrefix+"pagecache")  // reaching up
	graph["cart"] = append(graph["cart"], "github.com/labstack/echo/v4") // the HTTP layer
	graph["orders"] = append(graph["orders"], "storefront/handlers")     // and the handlers
	graph["newdomain"] = []string{shopPrefix + "platform"}               // not in the table
	errs := checkLayering(graph)
	for _, want := range []string{"store/catalog imports store/pagecache", "store/cart imports github.com/labstack/echo/v4",
		"store/orders imports storefront/handlers", "store/newdomain is not in the layering"} {
		if !slices.ContainsFunc(errs, func(err error) bool { return strings.Contains(err.Error(), want) }) {
			t.Errorf("the check misses %q (found %v)", want, errs)
		}
	}
	if errs := checkLayering(map[string][]string{"cart": {shopPrefix + "keys", shopPrefix + "platform", "context"}}); len(errs) != 0 {
		t.Errorf("an allowed graph fails: %v", errs)
	}
}

// shopPrefix starts the import path of every package of store/.
const shopPrefix = "storefront/store/"

// storeImports reads, for each package under root/store (named relative
// to store/), the import paths of its non-test files.
func storeImports(root string) (map[string][]string, error) { return packageImports(root, "store") }

// packageImports reads, for each package under root/sub (named relative
// to sub, "" for sub itself), the import paths of its non-test files.
func packageImports(root, sub string) (map[string][]string, error) {
	graph := map[string][]string{}
	dir := filepath.Join(root, sub)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		pkg, err := build.ImportDir(path, 0)
		var none *build.NoGoError
		if errors.As(err, &none) || (err == nil && len(pkg.GoFiles) == 0) {
			return nil // no package here (migrations), or only tests (store/ itself)
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == "." {
			rel = ""
		}
		graph[filepath.ToSlash(rel)] = pkg.Imports
		return nil
	})
	return graph, err
}

// checkLayering compares a graph with the layers and the forbidden list.
func checkLayering(graph map[string][]string) []error {
	allowed := map[string][]string{}
	for _, l := range layers {
		allowed[l.pkg] = l.imports
	}
	names := make([]string, 0, len(graph))
	for pkg := range graph {
		names = append(names, pkg)
	}
	sort.Strings(names)
	var errs []error
	for _, pkg := range names {
		may, known := allowed[pkg]
		if !known {
			errs = append(errs, fmt.Errorf("store/%s is not in the layering: add it to layers with what it may import", pkg))
			continue
		}
		for _, imp := range graph[pkg] {
			switch {
			case slices.ContainsFunc(forbidden, func(f string) bool { return strings.HasPrefix(imp, f) }):
				errs = append(errs, fmt.Errorf("store/%s imports %s: the data layer never imports the HTTP layer, the views or the wiring", pkg, imp))
			case strings.HasPrefix(imp, shopPrefix):
				if dep := strings.TrimPrefix(imp, shopPrefix); !slices.Contains(may, dep) {
					errs = append(errs, fmt.Errorf("store/%s imports store/%s, which the layering does not allow", pkg, dep))
				}
			case strings.HasPrefix(imp, "storefront/"):
				errs = append(errs, fmt.Errorf("store/%s imports %s, outside store/", pkg, imp))
			}
		}
	}
	return errs
}
