package web

import (
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// What every page tells search engines: its canonical URL and whether it
// may be indexed, decided here for every page from its request, so that
// no handler can forget. A page with its own rule (an item, an article)
// sets views.Chrome's fields itself.

// ArticlesFeed is the path of the board's Atom feed.
const ArticlesFeed = "/articles/feed.atom"

// ShopURL is the shop's absolute URL without a trailing slash.
func (k *Kit) ShopURL() string { return k.cfg.ShopURL }

// Absolute is path on the shop's own URL.
func (k *Kit) Absolute(path string) string { return k.cfg.ShopURL + path }

// canonicalParams are the query parameters that name another page rather
// than another view of the same one: a listing's page number (page 2 and
// on are their own pages) and the catalog's category (a category's
// listing is its own page). Sorts, searches and filters are views of the
// plain listing and canonicalise to it.
var canonicalParams = []string{"category", "page"}

// Canonical is the page's canonical URL: the shop's URL, the request's
// path, and only the parameters that name a page (canonicalParams; page 1
// is the plain listing).
func (k *Kit) Canonical(c echo.Context) string {
	r := c.Request()
	q := r.URL.Query()
	keep := url.Values{}
	for _, name := range canonicalParams {
		if v := q.Get(name); v != "" && !(name == "page" && v == "1") {
			keep.Set(name, v)
		}
	}
	out := k.cfg.ShopURL + r.URL.EscapedPath()
	if len(keep) > 0 {
		out += "?" + keep.Encode()
	}
	return out
}

// privatePrefixes are the paths search engines should not index (and
// robots.txt disallows): a visitor's own pages, the forms and the admin.
var privatePrefixes = []string{"/cart", "/checkout", "/account", "/admin", "/login", "/register", "/password",
	"/orders", "/guest-orders", "/notifications", "/feed", "/articles/new", "/comments/"}

// filterParams are the catalog's search and filters: a listing with any
// of them is a search result, not a page to index.
var filterParams = []string{"q", "min", "max", "in_stock", "sort"}

// NoIndex reports whether the page must not be indexed: a private page
// (privatePrefixes), an article's edit or report form, or a catalog
// search with filters.
func NoIndex(c echo.Context) bool {
	r := c.Request()
	path := r.URL.Path
	for _, p := range privatePrefixes {
		if path == p || strings.HasPrefix(path, p+"/") || (strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)) {
			return true
		}
	}
	if strings.HasPrefix(path, "/articles/") && (strings.HasSuffix(path, "/edit") || strings.HasSuffix(path, "/report")) {
		return true
	}
	if path == "/items" || strings.HasPrefix(path, "/c/") {
		q := r.URL.Query()
		for _, p := range filterParams {
			if q.Has(p) {
				return true
			}
		}
	}
	return false
}

// RobotsDisallow are the paths robots.txt disallows: the private pages
// and the catalog's searches and filtered listings.
func RobotsDisallow() []string {
	out := append([]string{}, privatePrefixes...)
	for _, p := range filterParams {
		out = append(out, "/items?"+p+"=", "/items?*&"+p+"=", "/c/*?"+p+"=", "/c/*?*&"+p+"=")
	}
	return out
}
