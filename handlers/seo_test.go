package handlers_test

import (
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"storefront/handlers/apptest"
	"storefront/store/catalog"
	"storefront/views"
	"storefront/wiring"
)

// shopURL is SHOP_URL in tests (its default).
const shopURL = wiring.DefaultShopURL

// sitemapNS is the namespace every sitemaps.org file declares.
const sitemapNS = "http://www.sitemaps.org/schemas/sitemap/0.9"

type smEntry struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod"`
}

type smIndex struct {
	XMLName xml.Name
	Maps    []smEntry `xml:"sitemap"`
}

type smSet struct {
	XMLName xml.Name
	URLs    []smEntry `xml:"url"`
}

// checkEntry holds an entry to the sitemaps.org rules: an absolute URL on
// the shop of at most 2,048 characters, and a W3C datetime lastmod.
func checkEntry(t *testing.T, e smEntry) {
	t.Helper()
	u, err := url.Parse(e.Loc)
	if err != nil || !u.IsAbs() || !strings.HasPrefix(e.Loc, shopURL+"/") || len(e.Loc) > 2048 {
		t.Errorf("loc %q is not an absolute URL on the shop of at most 2,048 characters", e.Loc)
	}
	if _, err := time.Parse(time.RFC3339, e.LastMod); err != nil {
		t.Errorf("lastmod %q of %s is not a W3C datetime", e.LastMod, e.Loc)
	}
}

// readSitemaps reads the index and every file it names, checking each
// against the sitemaps.org rules, and returns every URL listed.
func readSitemaps(t *testing.T, c *client, perFile int) map[string]bool {
	t.Helper()
	res := c.MustGet("/sitemap.xml", http.StatusOK)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/xml") {
		t.Errorf("sitemap index Content-Type %q", ct)
	}
	var idx smIndex
	if err := xml.Unmarshal([]byte(res.Body), &idx); err != nil {
		t.Fatalf("sitemap index: %v", err)
	}
	if idx.XMLName.Space != sitemapNS || idx.XMLName.Local != "sitemapindex" || len(idx.Maps) == 0 {
		t.Fatalf("sitemap index root %v with %d files", idx.XMLName, len(idx.Maps))
	}
	urls := map[string]bool{}
	for _, m := range idx.Maps {
		checkEntry(t, m)
		body := c.MustGet(strings.TrimPrefix(m.Loc, shopURL), http.StatusOK).Body
		var set smSet
		if err := xml.Unmarshal([]byte(body), &set); err != nil {
			t.Fatalf("%s: %v", m.Loc, err)
		}
		if set.XMLName.Space != sitemapNS || set.XMLName.Local != "urlset" {
			t.Errorf("%s: root %v", m.Loc, set.XMLName)
		}
		if len(set.URLs) == 0 || len(set.URLs) > perFile || len(set.URLs) > 50_000 {
			t.Errorf("%s holds %d URLs, want 1 to %d", m.Loc, len(set.URLs), perFile)
		}
		for _, u := range set.URLs {
			checkEntry(t, u)
			if urls[u.Loc] {
				t.Errorf("%s is listed twice", u.Loc)
			}
			urls[u.Loc] = true
		}
	}
	return urls
}

// robots.txt keeps crawlers out of the private pages and the filtered
// searches and names the sitemap index; the index and its files follow
// the sitemaps.org rules, files split at the limit, list every item on
// sale, every category and every article; a rename or an archive shows at
// once (the cached sitemaps are built afresh).
func TestRobotsAndSitemaps(t *testing.T) {
	const perFile = 500
	a := newApp(t, func(o *wiring.Options) { o.SitemapURLs = perFile }, nil)
	c := a.client()
	poster := a.client()
	poster.Register("mapper")
	article := poster.postText("Sitemaps & <you>", "", "Read me.")
	robots := c.MustGet("/robots.txt", http.StatusOK).Body
	for _, want := range []string{"User-agent: *", "Disallow: /cart\n", "Disallow: /checkout\n", "Disallow: /account\n",
		"Disallow: /admin\n", "Disallow: /login\n", "Disallow: /items?q=\n", "Disallow: /items?*&sort=\n",
		"Sitemap: " + shopURL + "/sitemap.xml\n"} {
		if !strings.Contains(robots, want) {
			t.Errorf("robots.txt lacks %q:\n%s", want, robots)
		}
	}

	urls := readSitemaps(t, c, perFile)
	items, err := a.store.Catalog.Stamps(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if !urls[shopURL+views.ItemURL(it.ID, it.Name)] {
			t.Fatalf("the sitemaps lack item %d at %s", it.ID, views.ItemURL(it.ID, it.Name))
		}
	}
	// Every category of the tree with items on sale, the groups the demo
	// nests its departments in too.
	tree, err := a.store.Catalog.Tree(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cats := tree.All()
	for _, cat := range cats {
		if !urls[shopURL+views.CategoryPath(cat.Path)] {
			t.Errorf("the sitemaps lack category %q", cat.Path)
		}
	}
	collections := 0
	for u := range urls {
		if strings.HasPrefix(u, shopURL+"/collections/") {
			collections++
		}
	}
	articles := 0
	for u := range urls {
		if strings.HasPrefix(u, shopURL+"/articles/") {
			articles++
		}
	}
	if !urls[shopURL+fmt.Sprintf("/articles/%d-sitemaps-you", article)] {
		t.Error("the sitemaps lack the article")
	}
	if want := len(items) + len(cats) + collections + articles; len(urls) != want || articles == 0 || len(items) <= perFile {
		t.Errorf("%d URLs: %d items, %d categories, %d articles", len(urls), len(items), len(cats), articles)
	}

	// Rename item 5 and archive item 6: the next read shows both.
	ctx := t.Context()
	old, _ := a.store.Catalog.Item(ctx, 5)
	if _, err := a.store.Catalog.UpdateItem(ctx, 5, catalog.ItemEdit{Name: "Renamed Teapot", PriceCents: old.PriceCents,
		Stock: old.Stock, Category: old.Category, Description: old.Description}); err != nil {
		t.Fatal(err)
	}
	gone, _ := a.store.Catalog.Item(ctx, 6)
	if _, err := a.store.Catalog.SetItemArchived(ctx, 6, true); err != nil {
		t.Fatal(err)
	}
	urls = readSitemaps(t, c, perFile)
	if !urls[shopURL+"/items/5-renamed-teapot"] || urls[shopURL+views.ItemURL(5, old.Name)] {
		t.Error("the sitemaps do not follow a rename")
	}
	if urls[shopURL+views.ItemURL(6, gone.Name)] {
		t.Error("an archived item stays in the sitemaps")
	}
	c.MustGet("/sitemaps/nothing-1.xml", http.StatusNotFound)
	c.MustGet("/sitemaps/index.xml", http.StatusNotFound)
}

// The readable URLs: an item's and an article's page answer at
// /<kind>/<id>-<slug>; the bare id and an old or wrong slug move there
// with 301, keeping the query string; the shop's links use them; a
// rename moves the page, and the page cache keys on the id, so the new
// URL is a hit as soon as the page is stored again.
func TestReadableURLs(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	ctx := t.Context()
	it, _ := a.store.Catalog.Item(ctx, 12)
	page := views.ItemURL(12, it.Name)
	if !regexp.MustCompile(`^/items/12-[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(page) {
		t.Fatalf("item URL %q", page)
	}
	for _, from := range []string{"/items/12", "/items/12-wrong-words", "/items/12?variant=3&utm_source=news"} {
		res := c.GetExact(from)
		want := page
		if _, q, ok := strings.Cut(from, "?"); ok {
			want += "?" + q
		}
		if res.Status != http.StatusMovedPermanently || res.Header.Get("Location") != want {
			t.Errorf("GET %s: %d to %q, want 301 to %q", from, res.Status, res.Header.Get("Location"), want)
		}
	}
	if res := c.GetExact(page); res.Status != http.StatusOK {
		t.Fatalf("GET %s: %d", page, res.Status)
	}
	home := c.MustGet("/items?category="+url.QueryEscape(it.Category), http.StatusOK).Body
	if strings.Contains(home, `href="/items/`+itoa(it.ID)+`"`) || !strings.Contains(home, `href="`+page+`"`) {
		t.Error("the listing does not link the readable URL")
	}
	apptest.Eventually(t, "the page is a hit", func() bool { return c.Get(page).Header.Get("X-Cache") == "HIT" })
	// The move of a page held in process is a hit's cost: nothing stored
	// changes, and the page is still a hit after it.
	if res := c.GetExact("/items/12"); res.Status != http.StatusMovedPermanently {
		t.Fatalf("bare id of a cached page: %d", res.Status)
	}
	if x := c.Get(page).Header.Get("X-Cache"); x != "HIT" {
		t.Errorf("after the move the page is %s", x)
	}

	// A rename: the old URL moves to the new one.
	if _, err := a.store.Catalog.UpdateItem(ctx, 12, catalog.ItemEdit{Name: "Crème Brûlée Dish", PriceCents: it.PriceCents,
		Stock: it.Stock, Category: it.Category, Description: it.Description}); err != nil {
		t.Fatal(err)
	}
	if res := c.GetExact(page); res.Status != http.StatusMovedPermanently || res.Header.Get("Location") != "/items/12-creme-brulee-dish" {
		t.Errorf("old slug after a rename: %d to %q", res.Status, res.Header.Get("Location"))
	}
	res := c.MustGet(page, http.StatusOK)
	if res.URL != "/items/12-creme-brulee-dish" {
		t.Errorf("the old URL ends at %s", res.URL)
	}

	// Articles.
	poster := a.client()
	poster.Register("slugger")
	id := poster.postText("Caring for Linen: 5 Tips!", "", "Wash cool, dry flat.")
	want := fmt.Sprintf("/articles/%d-caring-for-linen-5-tips", id)
	for _, from := range []string{fmt.Sprintf("/articles/%d", id), fmt.Sprintf("/articles/%d-old?utm_medium=x", id)} {
		res := c.GetExact(from)
		loc := want
		if _, q, ok := strings.Cut(from, "?"); ok {
			loc += "?" + q
		}
		if res.Status != http.StatusMovedPermanently || res.Header.Get("Location") != loc {
			t.Errorf("GET %s: %d to %q, want 301 to %q", from, res.Status, res.Header.Get("Location"), loc)
		}
	}
	board := c.MustGet("/articles?sort=new", http.StatusOK).Body
	if !strings.Contains(board, `href="`+want+`"`) {
		t.Error("the board does not link the readable URL")
	}
	c.MustGet(want, http.StatusOK)

	// No page links an item or an article by its bare id.
	bare := regexp.MustCompile(`href="/(items|articles)/\d+["?#/]`)
	for _, path := range []string{"/", "/items", "/articles", "/articles?sort=new", want, views.ItemURL(8, "x"), "/users/slugger"} {
		body := c.MustGet(path, http.StatusOK).Body
		for _, m := range bare.FindAllString(body, -1) {
			t.Errorf("%s links %s", path, m)
		}
	}
}

func TestSlug(t *testing.T) {
	for name, want := range map[string]string{
		"Crème Brûlée Dish":           "creme-brulee-dish",
		"  --Hello, World!!  ":        "hello-world",
		"日本":                          "",
		"A</script>B\u2028C":          "a-script-b-c",
		strings.Repeat("word ", 40):   strings.TrimSuffix(strings.Repeat("word-", 16), "-"),
		"Ärger über Öl und Straße 42": "arger-uber-ol-und-stra-e-42",
	} {
		if got := views.Slug(name); got != want || !views.SlugMatches(name, want) {
			t.Errorf("Slug(%q) = %q, want %q", name, got, want)
		}
	}
}

// canonicalOf and robotsOf read a page's canonical link and robots meta.
func canonicalOf(body string) string {
	m := regexp.MustCompile(`<link rel="canonical" href="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

func noindexOf(body string) bool {
	return strings.Contains(body, `<meta name="robots" content="noindex">`)
}

// Every page has a canonical link: sorted and filtered listings point to
// the plain listing, page 2 and on to themselves, a category's listing to
// itself; private pages and searches carry noindex.
func TestCanonicalAndNoIndex(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("canon")
	c.MustPost("/cart", url.Values{"item": {"3"}, "qty": {"1"}}, http.StatusSeeOther)
	it, _ := a.store.Catalog.Item(t.Context(), 3)
	cat := url.QueryEscape(it.Category)
	for _, tc := range []struct {
		path, canonical string
		noindex         bool
	}{
		{"/", "/", false},
		{"/items", "/items", false},
		{"/items?sort=price_asc", "/items", true},
		{"/items?q=lamp&page=2", "/items?page=2", true},
		{"/items?page=2", "/items?page=2", false},
		{"/items?page=1", "/items", false},
		// The catalog's department listing names the tree's page.
		{"/items?category=" + cat, "/c/leisure/books", false},
		{"/items?category=" + cat + "&min=1&in_stock=1", "/c/leisure/books", true},
		{"/c/leisure/books?sort=price_asc", "/c/leisure/books", true},
		{"/c/leisure/books?page=2", "/c/leisure/books?page=2", false},
		{views.ItemURL(3, it.Name), views.ItemURL(3, it.Name), false},
		{views.ItemURL(3, it.Name) + "?utm_source=x", views.ItemURL(3, it.Name), false},
		{"/articles", "/articles", false},
		{"/articles?sort=new&page=2", "/articles?page=2", false},
		{"/cart", "/cart", true},
		{"/checkout", "/checkout", true},
		{"/account", "/account", true},
		{"/orders", "/orders", true},
		{"/admin", "", true}, // not the admin: 403, still no index
		{"/users/canon", "/users/canon", false},
	} {
		res := c.Get(tc.path)
		if res.Status != http.StatusOK && tc.path != "/admin" {
			t.Errorf("GET %s: %d", tc.path, res.Status)
			continue
		}
		if tc.canonical != "" && canonicalOf(res.Body) != shopURL+tc.canonical {
			t.Errorf("GET %s: canonical %q, want %q", tc.path, canonicalOf(res.Body), shopURL+tc.canonical)
		}
		if noindexOf(res.Body) != tc.noindex {
			t.Errorf("GET %s: noindex %v, want %v", tc.path, noindexOf(res.Body), tc.noindex)
		}
	}
	guest := a.client()
	if body := guest.MustGet("/login", http.StatusOK).Body; !noindexOf(body) || canonicalOf(body) != shopURL+"/login" {
		t.Error("the sign-in page is indexable or has no canonical link")
	}
}

// A form's redirect may name an item or article by its bare id: the flash
// message it left must survive the move to the readable URL and show on
// the page at its end, not be spent on the 301.
func TestFlashSurvivesTheMoveToTheReadableURL(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SeedArticles = true }, nil)
	for _, path := range []string{"/items/12", "/articles/1"} {
		c := a.client()
		c.SetCookie("flash", base64.RawURLEncoding.EncodeToString([]byte("Saved your change")))
		res := c.Get(path)
		if res.Status != http.StatusOK || res.URL == path {
			t.Fatalf("GET %s: %d at %q, want the readable URL", path, res.Status, res.URL)
		}
		if got := textOf(res.Body, "flash"); got != "Saved your change" {
			t.Errorf("GET %s: flash %q on the page after the move, want the message", path, got)
		}
		if got := textOf(c.Get(res.URL).Body, "flash"); got != "" {
			t.Errorf("GET %s: the flash %q shows a second time", path, got)
		}
	}
}
