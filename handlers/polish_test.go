package handlers_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"storefront/wiring"
)

// rawGet sends a GET (or HEAD) without the client's transparent gzip
// handling, so the test sees the bytes on the wire.
func rawGet(t *testing.T, a *app, method, path, acceptEncoding string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, a.srv.URL+path, nil)
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestPagesAndAssetsAreCompressed: every page and asset is gzip for a
// client that accepts it (once, never twice) and plain for one that does
// not; the stylesheet is the same bytes either way.
func TestPagesAndAssetsAreCompressed(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SeedArticles = true }, nil)
	_, home := rawGet(t, a, "GET", "/", "")
	css := regexp.MustCompile(`href="(/static/css/app\.[0-9a-f]+\.css)"`).FindStringSubmatch(string(home))
	if css == nil {
		t.Fatal("no stylesheet link on the home page")
	}
	for _, path := range []string{"/", "/items", "/articles", "/articles/1", "/login", "/nowhere", css[1], "/favicon.ico"} {
		gz, zb := rawGet(t, a, "GET", path, "gzip, deflate, br")
		plain, pb := rawGet(t, a, "GET", path, "")
		if gz.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: Content-Encoding %q with gzip accepted", path, gz.Header.Get("Content-Encoding"))
			continue
		}
		if plain.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: Content-Encoding %q without gzip accepted", path, plain.Header.Get("Content-Encoding"))
		}
		if got := gunzip(t, zb); got != string(pb) {
			t.Errorf("%s: the gzip body (%d bytes unpacked) differs from the plain one (%d)", path, len(got), len(pb))
		}
		if !strings.Contains(gz.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: Vary %q", path, gz.Header.Get("Vary"))
		}
	}
}

// TestHeadAnswersLikeGet: HEAD on a page is GET's status and headers
// without a body, not a 405.
func TestHeadAnswersLikeGet(t *testing.T) {
	a := newApp(t, nil, nil)
	for _, path := range []string{"/", "/items", "/items/3", "/articles", "/login", "/favicon.ico"} {
		get, _ := rawGet(t, a, "GET", path, "")
		head, body := rawGet(t, a, "HEAD", path, "")
		if head.StatusCode != get.StatusCode || head.StatusCode != http.StatusOK {
			t.Errorf("HEAD %s: %d, GET %d", path, head.StatusCode, get.StatusCode)
		}
		if len(body) != 0 {
			t.Errorf("HEAD %s: %d bytes of body", path, len(body))
		}
		if head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
			t.Errorf("HEAD %s: Content-Type %q, GET %q", path, head.Header.Get("Content-Type"), get.Header.Get("Content-Type"))
		}
	}
	if res, _ := rawGet(t, a, "HEAD", "/nowhere", ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("HEAD /nowhere: %d", res.StatusCode)
	}
	// Admin pages too: the same answer as GET, never a 405.
	for _, path := range []string{"/admin", "/admin/items", "/admin/orders"} {
		get, _ := rawGet(t, a, "GET", path, "")
		head, _ := rawGet(t, a, "HEAD", path, "")
		if head.StatusCode != get.StatusCode || head.StatusCode == http.StatusMethodNotAllowed {
			t.Errorf("HEAD %s: %d, GET %d", path, head.StatusCode, get.StatusCode)
		}
	}
}

// TestFavicon: the icon is served as an icon, and every page links it.
func TestFavicon(t *testing.T) {
	a := newApp(t, nil, nil)
	res, b := rawGet(t, a, "GET", "/favicon.ico", "")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/x-icon" || !bytes.HasPrefix(b, []byte{0, 0, 1, 0}) {
		t.Fatalf("favicon: %d %q, %d bytes", res.StatusCode, res.Header.Get("Content-Type"), len(b))
	}
	mustContain(t, a.client().Get("/items").Body, `<link rel="icon" href="/favicon.ico"`)
}

// TestListingPagerAndPageDescriptions: a listing on one page has no pager,
// a longer one has, and every page has its meta description.
func TestListingPagerAndPageDescriptions(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	one := c.Get("/items?q=pruning+shears")
	if strings.Contains(one.Body, `data-testid="pager"`) {
		t.Error("a one-page search shows a pager")
	}
	many := c.Get("/items")
	mustContain(t, many.Body, `data-testid="pager"`, "Page 1 of")
	for _, path := range []string{"/", "/items", "/articles", "/login", "/cart"} {
		mustContain(t, c.Get(path).Body, `<meta name="description" content="`)
	}
}

// TestBoardReadsRight: rows show points and vote counts, not the raw
// score; titles link to the discussion with the external link marked; the
// vote buttons are named after the article; the article page has an h1.
func TestBoardReadsRight(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SeedArticles = true }, nil)
	c := a.client()
	list := c.Get("/articles")
	if strings.Contains(list.Body, "score <") || strings.Contains(list.Body, "score-text") {
		t.Error("the listing shows the raw score")
	}
	first := regexp.MustCompile(`data-article-id="(\d+)"[^>]*data-up="(\d+)" data-down="(\d+)"`).FindStringSubmatch(list.Body)
	if first == nil {
		t.Fatal("no article on the board")
	}
	id := first[1]
	mustContain(t, list.Body,
		`<h2 class="article-title"><a href="/articles/`+id+`-`,
		`<span class="visually-hidden">, external link</span>`,
		`aria-label="Vote up: `,
		`data-testid="article-points"`,
	)
	page := c.Get("/articles/" + id)
	if page.Status != 200 {
		t.Fatalf("article page: %d", page.Status)
	}
	mustContain(t, page.Body, `<h1 class="article-title">`)
	if strings.Count(page.Body, "<h1") != 1 {
		t.Errorf("the article page has %d h1", strings.Count(page.Body, "<h1"))
	}
}
