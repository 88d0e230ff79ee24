package handlers_test

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/storetest"
)

// browserResolve is what a browser does with a Location value (the URL
// standard's parser): drop leading and trailing C0 controls and spaces,
// remove every tab and newline, read backslashes as slashes (http is a
// special scheme), then resolve against the page's URL.
func browserResolve(t *testing.T, base, loc string) *url.URL {
	t.Helper()
	loc = strings.TrimFunc(loc, func(r rune) bool { return r <= 0x20 })
	loc = strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(loc)
	b, _ := url.Parse(base)
	u, err := b.Parse(loc)
	if err != nil {
		return b // unparsable: the browser stays
	}
	return u
}

// TestNextIsAlwaysSameSite: next= values that a browser would clean up
// into another site's URL fall back to the default.
func TestNextIsAlwaysSameSite(t *testing.T) {
	a := newApp(t, nil, nil)
	a.client().Register("ivan")
	for _, next := range []string{
		"/\t/evil.example", "/%09/evil.example", "/\t\\evil.example", "/\\evil.example", "\\/evil.example",
		"/\n/evil.example", "/\r\n/evil.example", " //evil.example", "//evil.example", "\t//evil.example",
		"https://evil.example/", "/\\\\evil.example", "/\x00/evil.example", "/\x0b/evil.example", "/\u00a0/x",
		"javascript:alert(1)", "/" + strings.Repeat("a", 600),
	} {
		raw := next
		if strings.HasPrefix(next, "/%") {
			raw, _ = url.PathUnescape(next) // as a query string would decode it
		}
		c := a.client()
		res := c.Post("/login", url.Values{"username": {"ivan"}, "password": {"correct horse battery"}, "next": {raw}})
		if res.Status != 303 {
			t.Fatalf("next %q: status %d", next, res.Status)
		}
		loc := res.Header.Get("Location")
		if u := browserResolve(t, a.srv.URL+"/login", loc); u.Host != strings.TrimPrefix(a.srv.URL, "http://") {
			t.Errorf("next %q: Location %q takes the browser to %s", next, loc, u)
		}
		if loc != "/" && next != "/\u00a0/x" {
			t.Errorf("next %q: Location %q, want the fallback /", next, loc)
		}
		// The sign-in form carries it only after the same check.
		if page := a.client().Get("/login?next=" + url.QueryEscape(raw)); strings.Contains(page.Body, "evil.example") {
			t.Errorf("next %q echoed into the sign-in form", next)
		}
	}
	// Plain same-site paths still work, query and all.
	res := a.client().Post("/login", url.Values{"username": {"ivan"}, "password": {"correct horse battery"}, "next": {"/items?q=a%2Fb&page=2"}})
	if loc := res.Header.Get("Location"); loc != "/items?q=a%2Fb&page=2" {
		t.Errorf("same-site next: %q", loc)
	}
}

// TestRequestIDFromClient: a client's X-Request-Id is kept only when it is
// 1-64 characters of [A-Za-z0-9-_.]; anything else is replaced.
func TestRequestIDFromClient(t *testing.T) {
	a := newApp(t, nil, nil)
	for _, tc := range []struct {
		sent string
		keep bool
	}{
		{"abc-123_x.y", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{strings.Repeat("<b>", 2800), false},
		{"<script>alert(1)</script>", false},
		{"a b", false},
		{"é", false},
		{"a\"b", false},
	} {
		req := newRequest(t, "GET", a.srv.URL+"/healthz")
		req.Header.Set("X-Request-Id", tc.sent)
		res := a.client().Do(req)
		got := res.Header.Get("X-Request-Id")
		if tc.keep && got != tc.sent {
			t.Errorf("sent %q: got %q, want it kept", tc.sent, got)
		}
		if !tc.keep && (got == tc.sent || !requestIDRE.MatchString(got)) {
			t.Errorf("sent %.40q: got %.40q, want a fresh id", tc.sent, got)
		}
	}
	if got := a.client().Get("/healthz").Header.Get("X-Request-Id"); !requestIDRE.MatchString(got) {
		t.Errorf("no id sent: got %q", got)
	}
}

var requestIDRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func newRequest(t *testing.T, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestMetricsNeedAdminOrToken: /metrics answers only the admin session or
// the bearer token; without a token configured only the admin.
func TestMetricsNeedAdminOrToken(t *testing.T) {
	for _, token := range []string{testMetricsToken, ""} {
		a := newApp(t, nil, func(c *handlers.Config) { c.MetricsToken = token })
		shopper := a.client()
		shopper.Register("mallory")
		admin := a.client()
		admin.signInAdmin()
		get := func(c *client, auth string) apptest.Response {
			req := newRequest(t, "GET", a.srv.URL+"/metrics")
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			return c.Do(req)
		}
		for _, tc := range []struct {
			name   string
			c      *client
			auth   string
			status int
		}{
			{"anonymous", a.client(), "", 401},
			{"wrong token", a.client(), "Bearer nope", 401},
			{"empty bearer", a.client(), "Bearer ", 401},
			{"basic", a.client(), "Basic " + testMetricsToken, 401},
			{"shopper", shopper, "", 403},
			{"admin", admin, "", 200},
			{"token", a.client(), "Bearer " + token, map[bool]int{true: 200, false: 401}[token != ""]},
		} {
			res := get(tc.c, tc.auth)
			if res.Status != tc.status {
				t.Errorf("token %q, %s: %d, want %d", token, tc.name, res.Status, tc.status)
			}
			if leaked := strings.Contains(res.Body, "storefront_sessions"); leaked != (tc.status == 200) {
				t.Errorf("token %q, %s: series shown %v", token, tc.name, leaked)
			}
		}
	}
}

// TestChunkedBodyOverLimit: a body over the limit is 413 whether it
// announces its length or is sent chunked, and nothing is stored.
func TestChunkedBodyOverLimit(t *testing.T) {
	a := newApp(t, nil, nil)
	big := "username=" + strings.Repeat("a", 70<<10) + "&password=correct+horse+battery"
	// The shop's start may move its generations (search, pages, sitemaps):
	// only what the refused requests write counts.
	before := storetest.Must(a.store.Redis().DBSize(t.Context()).Result())(t)
	for _, path := range []string{"/register", "/login", "/cart", "/articles"} {
		for _, chunked := range []bool{false, true} {
			c := a.client()
			var body io.Reader = strings.NewReader(big)
			if chunked {
				body = io.MultiReader(strings.NewReader(big)) // unknown length: sent chunked
			}
			req, _ := http.NewRequest("POST", a.srv.URL+path, body)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", a.srv.URL)
			if chunked && req.ContentLength != 0 {
				t.Fatal("the request would not be chunked")
			}
			res := c.Do(req)
			if res.Status != http.StatusRequestEntityTooLarge {
				t.Errorf("%s chunked=%v: %d, want 413", path, chunked, res.Status)
			}
		}
	}
	if after := storetest.Must(a.store.Redis().DBSize(t.Context()).Result())(t); after != before {
		t.Errorf("%d keys written by refused requests", after-before)
	}
}

// TestInvalidUTF8Everywhere: text that is not valid UTF-8, in any form
// field or query parameter (passwords and admin item names included), is
// a 422 and changes nothing.
func TestInvalidUTF8Everywhere(t *testing.T) {
	a := newApp(t, nil, nil)
	judy := a.client()
	judy.Register("judy")
	admin := a.client()
	admin.signInAdmin()
	item, err := a.store.Catalog.Item(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	bad := "ok\xffno"
	rdb := a.store.Redis()
	before, err := rdb.DBSize(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    *client
		path string
		form url.Values // nil: a GET
	}{
		{"register password", a.client(), "/register", url.Values{"username": {"kim_1"}, "password": {"correct horse " + bad}, "email": {"kim@example.com"}}},
		{"register name", a.client(), "/register", url.Values{"username": {"kim\xff"}, "password": {"correct horse battery"}, "email": {"kim@example.com"}}},
		{"login password", a.client(), "/login", url.Values{"username": {"judy"}, "password": {"correct horse battery" + bad}}},
		{"admin item name", admin, "/admin/items/1", url.Values{"name": {"Lamp " + bad}, "price": {"12.34"}, "stock": {"5"}, "description": {"d"}}},
		{"admin item price", admin, "/admin/items/1", url.Values{"name": {"Lamp"}, "price": {"1\xff"}, "stock": {"5"}, "description": {"d"}}},
		{"article title", judy, "/articles", url.Values{"title": {"Hi " + bad}, "link": {"https://example.com/"}, "group": {"redis"}}},
		{"comment", judy, "/articles/1/comments", url.Values{"body": {bad}}},
		{"cart", judy, "/cart", url.Values{"item": {"1\xff"}, "qty": {"1"}}},
		{"next", judy, "/items/1/like", url.Values{"dir": {"like"}, "next": {"/items/1" + bad}}},
		{"search", a.client(), "/items?q=" + url.QueryEscape(bad), nil},
		{"query on any page", a.client(), "/articles?sort=" + url.QueryEscape(bad), nil},
	} {
		var res apptest.Response
		if tc.form == nil {
			res = tc.c.Get(tc.path)
		} else {
			res = tc.c.Post(tc.path, tc.form)
		}
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "UTF-8") {
			t.Errorf("%s: %d, want 422 naming UTF-8", tc.name, res.Status)
		}
	}
	if after, err := rdb.DBSize(t.Context()).Result(); err != nil || after != before {
		t.Errorf("Redis keys %d -> %d (%v)", before, after, err)
	}
	if _, err := a.store.Sessions.UserByName(t.Context(), "kim_1"); err == nil {
		t.Error("registered with a bad password")
	}
	if now, err := a.store.Catalog.Item(t.Context(), 1); err != nil || now.Name != item.Name {
		t.Errorf("item name %q -> %q (%v)", item.Name, now.Name, err)
	}
}

// TestSignedInPagesAreNotStored: every page that shows who is signed in
// (the header carries the name, cart and unread counts) is private and not
// stored, or, for cached item pages, the page cache's private policy.
func TestSignedInPagesAreNotStored(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("kate")
	a.client().Register("leo")
	c.Post("/cart", url.Values{"item": {"2"}, "qty": {"1"}})
	for _, p := range []string{"/", "/items", "/items?q=lamp", "/items?category=Books", "/items?page=2", "/items/3",
		"/cart", "/orders", "/articles", "/articles?sort=new", "/articles/new", "/groups/making", "/users/leo",
		"/feed", "/notifications", "/login", "/register", "/nowhere", "/items/999999"} {
		res := c.Get(p)
		if !strings.Contains(res.Body, "kate") {
			t.Fatalf("%s: the page does not show who is signed in (%d)", p, res.Status)
		}
		cc := res.Header.Get("Cache-Control")
		if cc != "private, no-store" && !(strings.HasPrefix(p, "/items/") && cc == "private, no-cache") {
			t.Errorf("%s: Cache-Control %q", p, cc)
		}
	}
}

// TestHealthAndDraining: /healthz fails only when the app says it cannot
// heal; /readyz is 503 once draining, while pages are still served.
func TestHealthAndDraining(t *testing.T) {
	var broken error
	a := newApp(t, nil, func(c *handlers.Config) { c.Health = func() error { return broken } })
	c := a.client()
	if res := c.Get("/healthz"); res.Status != 200 {
		t.Errorf("healthz: %d", res.Status)
	}
	broken = errors.New("the embedded redis-server cannot be restarted")
	if res := c.Get("/healthz"); res.Status != 503 || !strings.Contains(res.Body, "cannot be restarted") {
		t.Errorf("healthz when the app cannot heal: %d %q", res.Status, res.Body)
	}
	if res := c.Get("/readyz"); res.Status != 200 {
		t.Errorf("readyz before draining: %d", res.Status)
	}
	a.h.Drain()
	if res := c.Get("/readyz"); res.Status != 503 || res.Header.Get("Retry-After") == "" {
		t.Errorf("readyz while draining: %d", res.Status)
	}
	if res := c.Get("/items/1"); res.Status != 200 {
		t.Errorf("a page while draining: %d", res.Status)
	}
}
