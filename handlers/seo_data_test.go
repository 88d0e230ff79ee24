package handlers_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"storefront/store/catalog"
	"storefront/views"
	"storefront/wiring"
)

// jsonLD parses every JSON-LD script of a page.
func jsonLD(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`).FindAllStringSubmatch(body, -1) {
		var doc map[string]any
		if err := json.Unmarshal([]byte(m[1]), &doc); err != nil {
			t.Fatalf("JSON-LD does not parse: %v\n%s", err, m[1])
		}
		if doc["@context"] != "https://schema.org" {
			t.Errorf("JSON-LD context %v", doc["@context"])
		}
		out = append(out, doc)
	}
	return out
}

// required are the properties each schema.org type must carry here (what
// search engines need for a rich result, and what the shop promises).
var required = map[string][]string{
	"Product":         {"name", "sku", "image", "description", "offers", "url"},
	"Offer":           {"price", "priceCurrency", "availability", "url", "sku"},
	"AggregateRating": {"ratingValue", "reviewCount"},
	"Review":          {"author", "reviewRating", "reviewBody"},
	"BreadcrumbList":  {"itemListElement"},
	"ListItem":        {"position", "name", "item"},
	"Article":         {"headline", "author", "datePublished"},
	"Organization":    {"name", "url"},
	"WebSite":         {"name", "url", "potentialAction"},
	"SearchAction":    {"target", "query-input"},
}

// checkTypes walks a document and checks every typed node's required
// properties; it returns the types met, counted.
func checkTypes(t *testing.T, page string, v any, seen map[string]int) {
	t.Helper()
	switch n := v.(type) {
	case map[string]any:
		if typ, ok := n["@type"].(string); ok {
			seen[typ]++
			for _, p := range required[typ] {
				if x, ok := n[p]; !ok || x == "" || x == nil {
					t.Errorf("%s: %s lacks %s", page, typ, p)
				}
			}
			for _, p := range []string{"url", "item"} {
				if s, ok := n[p].(string); ok && !strings.HasPrefix(s, shopURL+"/") {
					t.Errorf("%s: %s.%s %q is not absolute on the shop", page, typ, p, s)
				}
			}
			if typ == "Offer" {
				if !regexp.MustCompile(`^\d+\.\d\d$`).MatchString(fmt.Sprint(n["price"])) || n["priceCurrency"] != "USD" {
					t.Errorf("%s: offer price %v %v", page, n["price"], n["priceCurrency"])
				}
			}
		}
		for _, x := range n {
			checkTypes(t, page, x, seen)
		}
	case []any:
		for _, x := range n {
			checkTypes(t, page, x, seen)
		}
	}
}

// Every page's structured data parses and carries what its types need:
// Product with offers per variant, its rating and reviews, and a
// breadcrumb on items; BreadcrumbList on categories; Article and a
// breadcrumb on posts; Organization and WebSite with a SearchAction on
// the home page. No name can end the script element: an item named with
// "</script>" and U+2028 stays inside it and reads back as written.
func TestStructuredData(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SeedImages = true }, nil)
	ctx := t.Context()
	c := a.client()
	c.Register("ld_buyer")
	sizes := a.giveSizes(8)
	c.MustPost("/items/9/reviews", url.Values{"rating": {"4"}, "body": {"Sturdy, bright and </script> honest."}}, http.StatusSeeOther)
	poster := a.client()
	poster.Register("ld_poster")
	article := poster.postText("Oiling a board", "", "Once a month.")
	it, _ := a.store.Catalog.Item(ctx, 10)
	hostile := "Kettle </script><script>alert(1)</script> \u2028 <!-- end"
	if _, err := a.store.Catalog.UpdateItem(ctx, 10, catalog.ItemEdit{Name: hostile, PriceCents: it.PriceCents,
		Stock: it.Stock, Category: it.Category, Description: "Boils </script> water\u2029 fast."}); err != nil {
		t.Fatal(err)
	}
	cat, _ := a.store.Catalog.Item(ctx, 9)
	pages := map[string][]string{
		"/":         {"Organization", "WebSite", "SearchAction"},
		"/items/8":  {"Product", "Offer", "BreadcrumbList", "ListItem"},
		"/items/9":  {"Product", "Offer", "AggregateRating", "Review", "BreadcrumbList"},
		"/items/10": {"Product", "Offer", "BreadcrumbList"},
		"/items?category=" + url.QueryEscape(cat.Category): {"BreadcrumbList", "ListItem"},
		fmt.Sprintf("/articles/%d", article):               {"Article", "BreadcrumbList"},
	}
	for path, want := range pages {
		body := c.MustGet(path, http.StatusOK).Body
		seen := map[string]int{}
		docs := jsonLD(t, body)
		for _, d := range docs {
			checkTypes(t, path, d, seen)
		}
		for _, typ := range want {
			if seen[typ] == 0 {
				t.Errorf("%s: no %s in its structured data (%v)", path, typ, seen)
			}
		}
		switch path {
		case "/items/8":
			if seen["Offer"] != len(sizes) {
				t.Errorf("/items/8: %d offers for %d variants", seen["Offer"], len(sizes))
			}
		case "/items/10":
			if strings.Count(body, "</script>") != strings.Count(body, "<script") {
				t.Error("a name closed a script element")
			}
			scripts := regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`).FindAllString(body, -1)
			if strings.ContainsAny(strings.Join(scripts, ""), "\u2028\u2029") {
				t.Error("U+2028 is written raw in the structured data")
			}
			if docs[0]["name"] != hostile || !strings.Contains(fmt.Sprint(docs[0]["description"]), "</script>") {
				t.Errorf("the name reads back as %q", docs[0]["name"])
			}
		}
	}
}

// metaContent reads <meta property|name="key" content="...">.
func metaContent(body, key string) string {
	m := regexp.MustCompile(`<meta (?:property|name)="` + regexp.QuoteMeta(key) + `" content="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return strings.NewReplacer("&amp;", "&", "&#39;", "'", "&quot;", `"`).Replace(m[1])
}

// Items, articles and categories carry Open Graph and Twitter card tags
// (title, description, an absolute picture 1,200 px wide or more, URL,
// the item's price); an item's meta description is its own text, cut at a
// word near 155 characters.
func TestOpenGraph(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SeedImages = true }, nil)
	ctx := t.Context()
	c := a.client()
	it, _ := a.store.Catalog.Item(ctx, 4)
	long := strings.Repeat("Hand-thrown stoneware, glazed twice. ", 8)
	if _, err := a.store.Catalog.UpdateItem(ctx, 4, catalog.ItemEdit{Name: it.Name, PriceCents: 1299, Stock: it.Stock,
		Category: it.Category, Description: long}); err != nil {
		t.Fatal(err)
	}
	page := views.ItemURL(4, it.Name)
	body := c.MustGet(page, http.StatusOK).Body
	desc := metaContent(body, "description")
	if len([]rune(desc)) > 156 || len([]rune(desc)) < 120 || !strings.HasSuffix(desc, "…") || !strings.HasPrefix(long, strings.TrimSuffix(desc, "…")) {
		t.Errorf("meta description %q", desc)
	}
	if strings.HasSuffix(strings.TrimSuffix(desc, "…"), "-") || strings.Contains(long, strings.TrimSuffix(desc, "…")+"w") {
		t.Errorf("the description is not cut at a word: %q", desc)
	}
	for key, want := range map[string]string{
		"og:type": "product", "og:title": it.Name, "og:url": shopURL + page, "og:description": desc,
		"product:price:amount": "12.99", "product:price:currency": "USD", "twitter:card": "summary_large_image",
		"twitter:title": it.Name,
	} {
		if got := metaContent(body, key); got != want {
			t.Errorf("item %s = %q, want %q", key, got, want)
		}
	}
	img := metaContent(body, "og:image")
	if !strings.HasPrefix(img, shopURL+"/media/") || metaContent(body, "twitter:image") != img {
		t.Errorf("og:image %q", img)
	}
	res := c.MustGet(strings.TrimPrefix(img, shopURL), http.StatusOK)
	if w := metaContent(body, "og:image:width"); w == "" || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/") {
		t.Errorf("og:image width %q, %s", w, res.Header.Get("Content-Type"))
	}
	other := c.MustGet(views.ItemURL(5, "x"), http.StatusOK).Body
	if metaContent(other, "description") == desc || metaContent(other, "description") == "" {
		t.Error("items share a description")
	}

	poster := a.client()
	poster.Register("og_poster")
	id := poster.postText("Repairing a chair", "", "Glue, clamp and wait a night.")
	art := c.MustGet(fmt.Sprintf("/articles/%d", id), http.StatusOK).Body
	for key, want := range map[string]string{"og:type": "article", "og:title": "Repairing a chair",
		"og:url": shopURL + fmt.Sprintf("/articles/%d-repairing-a-chair", id), "og:description": "Glue, clamp and wait a night."} {
		if got := metaContent(art, key); got != want {
			t.Errorf("article %s = %q, want %q", key, got, want)
		}
	}
	listing := c.MustGet("/items?category="+url.QueryEscape(it.Category), http.StatusOK).Body
	if metaContent(listing, "og:title") == "" || !strings.HasPrefix(metaContent(listing, "og:image"), shopURL+"/media/") ||
		!strings.HasPrefix(metaContent(listing, "og:url"), shopURL+"/c/") {
		t.Errorf("category tags: %q %q %q", metaContent(listing, "og:title"), metaContent(listing, "og:image"), metaContent(listing, "og:url"))
	}
}

type atomFeed struct {
	XMLName xml.Name
	ID      string `xml:"id"`
	Title   string `xml:"title"`
	Updated string `xml:"updated"`
	Links   []struct {
		Href string `xml:"href,attr"`
		Rel  string `xml:"rel,attr"`
	} `xml:"link"`
	Entries []struct {
		ID      string `xml:"id"`
		Title   string `xml:"title"`
		Updated string `xml:"updated"`
		Link    struct {
			Href string `xml:"href,attr"`
		} `xml:"link"`
		Author struct {
			Name string `xml:"name"`
		} `xml:"author"`
		Content string `xml:"content"`
	} `xml:"entry"`
}

// The board's Atom feed is valid Atom (the elements RFC 4287 requires of
// a feed and its entries), lists the newest articles at their readable
// URLs, and every board page links to it.
func TestAtomFeed(t *testing.T) {
	a := newApp(t, nil, nil)
	poster := a.client()
	poster.Register("atom_poster")
	first := poster.postText("First <post>", "", "Hello & welcome.")
	second := poster.postText("Second post", "https://example.com/x", "")
	c := a.client()
	res := c.MustGet("/articles/feed.atom", http.StatusOK)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/atom+xml") {
		t.Errorf("Content-Type %q", ct)
	}
	var f atomFeed
	if err := xml.Unmarshal([]byte(res.Body), &f); err != nil {
		t.Fatalf("the feed does not parse: %v", err)
	}
	if f.XMLName.Space != "http://www.w3.org/2005/Atom" || f.XMLName.Local != "feed" || f.ID == "" || f.Title == "" {
		t.Fatalf("feed %v id %q title %q", f.XMLName, f.ID, f.Title)
	}
	if _, err := time.Parse(time.RFC3339, f.Updated); err != nil {
		t.Errorf("feed updated %q: %v", f.Updated, err)
	}
	links := map[int64]string{}
	for _, e := range f.Entries {
		if e.ID == "" || e.Title == "" || e.Author.Name != "atom_poster" {
			t.Errorf("entry %+v lacks id, title or author", e)
		}
		if _, err := time.Parse(time.RFC3339, e.Updated); err != nil {
			t.Errorf("entry updated %q: %v", e.Updated, err)
		}
		var id int64
		fmt.Sscanf(strings.TrimPrefix(e.Link.Href, shopURL+"/articles/"), "%d", &id)
		links[id] = e.Link.Href
		if id == first && (e.Title != "First <post>" || !strings.Contains(e.Content, "Hello &amp; welcome.")) {
			t.Errorf("first entry %q: content %q", e.Title, e.Content)
		}
	}
	if links[first] != fmt.Sprintf("%s/articles/%d-first-post", shopURL, first) || links[second] == "" {
		t.Errorf("entries link %v", links)
	}
	for _, path := range []string{"/articles", "/articles?sort=new", fmt.Sprintf("/articles/%d-first-post", first)} {
		if body := c.MustGet(path, http.StatusOK).Body; !strings.Contains(body, `<link rel="alternate" type="application/atom+xml" title="Storefront articles" href="/articles/feed.atom">`) {
			t.Errorf("%s does not link the feed", path)
		}
	}
}
