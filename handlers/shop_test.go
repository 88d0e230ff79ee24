package handlers_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"storefront/handlers/apptest"
)

func TestShopPages(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	tests := []struct {
		name   string
		path   string
		status int
		want   []string
		cards  int
	}{
		{"home", "/", 200, []string{`data-testid="popular"`, `data-testid="recently-viewed"`, `data-testid="cart-count"`, "Storefront"}, 8},
		{"listing", "/items", 200, []string{"All items", `rel="next"`, "1200 items"}, 24},
		{"second page", "/items?page=2", 200, []string{`rel="prev"`, "Page 2 of 50"}, 24},
		{"last page", "/items?page=50", 200, []string{"Page 50 of 50"}, 24},
		{"past the end", "/items?page=51", 200, []string{"No items here"}, 0},
		{"absurd page", "/items?page=999999999999", 200, []string{"No items here"}, 0},
		{"category", "/items?category=Books", 200, []string{"120 items", `aria-current="page"`}, 24},
		{"unknown category", "/items?category=Nope", 404, []string{"department does not exist"}, 0},
		{"search", "/items?q=pruning+shears", 200, []string{"Results for"}, -1},
		{"search escapes", "/items?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E", 200, []string{"&lt;script&gt;alert(1)&lt;/script&gt;"}, 0},
		{"search like chars", "/items?q=%25_", 200, []string{"0 items"}, 0},
		{"page zero", "/items?page=0", 400, []string{"page number"}, 0},
		{"page negative", "/items?page=-1", 400, []string{"page number"}, 0},
		{"page abc", "/items?page=abc", 400, []string{"page number"}, 0},
		{"page overflow", "/items?page=99999999999999999999999", 400, []string{"page number"}, 0},
		{"long query", "/items?q=" + strings.Repeat("a", 201), 400, []string{"200 characters"}, 0},
		{"item", "/items/7", 200, []string{`data-testid="item-price"`, `data-testid="item-stock"`, `action="/cart"`}, 0},
		{"unknown item", "/items/999999", 404, []string{"Page not found"}, 0},
		{"non-numeric item", "/items/abc", 404, []string{"no item with that number"}, 0},
		{"negative item", "/items/-3", 404, nil, 0},
		{"huge item", "/items/99999999999999999999999999", 404, nil, 0},
		// One address per item: other spellings of 7 name nothing.
		{"item with a sign", "/items/+7", 404, []string{"no item with that number"}, 0},
		{"item with leading zeros", "/items/007", 404, []string{"no item with that number"}, 0},
		{"article with leading zeros", "/articles/01", 404, nil, 0},
		{"no such page", "/nowhere", 404, []string{"Page not found", "Back to the shop"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := c.Get(tc.path)
			if res.Status != tc.status {
				t.Fatalf("GET %s: status %d, want %d", tc.path, res.Status, tc.status)
			}
			mustContain(t, res.Body, tc.want...)
			if strings.Contains(res.Body, "goroutine") || strings.Contains(res.Body, ".go:") {
				t.Errorf("response leaks internals")
			}
			if tc.cards >= 0 {
				if got := len(testids(res.Body, "item-card", "data-item-id")); got != tc.cards {
					t.Errorf("%d item cards, want %d", got, tc.cards)
				}
			}
		})
	}
}

func TestSearchFindsByNameAndCategory(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	res := c.Get("/items?q=TENT")
	if res.Status != 200 {
		t.Fatalf("status %d", res.Status)
	}
	names := regexp.MustCompile(`<h2 class="card-title"><a href="/items/\d+-[a-z0-9-]+">([^<]+)</a>`).FindAllStringSubmatch(res.Body, -1)
	if len(names) == 0 {
		t.Fatal("a search for TENT found nothing")
	}
	for _, n := range names {
		if !strings.Contains(strings.ToLower(n[1]), "tent") {
			t.Errorf("%q does not match tent", n[1])
		}
	}
	res = c.Get("/items?category=Outdoors&q=tent")
	for _, id := range testids(res.Body, "item-card", "data-item-id") {
		if id == "" {
			t.Fatal("card without data-item-id")
		}
	}
	mustContain(t, res.Body, `value="tent"`)
}

func TestItemPageShowsItem(t *testing.T) {
	a := newApp(t, nil, nil)
	it, err := a.store.Catalog.Item(t.Context(), 12)
	if err != nil {
		t.Fatal(err)
	}
	res := a.client().Get("/items/12")
	if res.Status != 200 {
		t.Fatalf("status %d", res.Status)
	}
	mustContain(t, res.Body, it.Name, it.Description)
	if got := textOf(res.Body, "item-price"); !strings.HasPrefix(got, "$") {
		t.Errorf("price %q", got)
	}
}

func TestOperations(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	if res := c.Get("/healthz"); res.Status != 200 {
		t.Errorf("healthz %d", res.Status)
	}
	if res := c.Get("/readyz"); res.Status != 200 {
		t.Errorf("readyz %d", res.Status)
	}
	c.Get("/items/3")
	res := apptest.Response{Body: a.scrape(t)}
	mustContain(t, res.Body, `storefront_http_requests_total{method="GET",route="/items/:id",status="200"} 1`,
		"storefront_http_request_duration_seconds_bucket")

	home := c.Get("/")
	css := regexp.MustCompile(`href="(/static/css/app\.[0-9a-f]{12}\.css)"`).FindStringSubmatch(home.Body)
	if css == nil {
		t.Fatal("no hashed stylesheet link")
	}
	res = c.Get(css[1])
	if res.Status != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/css") {
		t.Errorf("stylesheet: %d %q %q", res.Status, res.Header.Get("Cache-Control"), res.Header.Get("Content-Type"))
	}
	if res := c.Get("/static/css/app.000000000000.css"); strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
		t.Error("a stale hash must not be cached for good")
	}
	if res := c.Get("/static/nope.js"); res.Status != 404 {
		t.Errorf("missing static file: %d", res.Status)
	}
	h := home.Header
	for _, k := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "X-Request-Id"} {
		if h.Get(k) == "" {
			t.Errorf("missing header %s", k)
		}
	}
}

func TestHostileRequests(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	req, _ := http.NewRequest("POST", a.srv.URL+"/login", strings.NewReader("username=a&password=b"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	if res := c.Do(req); res.Status != 403 {
		t.Errorf("cross-origin POST: %d, want 403", res.Status)
	}
	req, _ = http.NewRequest("POST", a.srv.URL+"/login", strings.NewReader("username=a&password=b"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if res := c.Do(req); res.Status != 403 {
		t.Errorf("cross-site POST: %d, want 403", res.Status)
	}
	big := url.Values{"username": {strings.Repeat("x", 100_000)}}
	if res := c.Post("/login", big); res.Status != 413 {
		t.Errorf("huge body: %d, want 413", res.Status)
	}
	req, _ = http.NewRequest("DELETE", a.srv.URL+"/items/1", nil)
	if res := c.Do(req); res.Status != 405 {
		t.Errorf("DELETE: %d, want 405", res.Status)
	}
	res := c.Get("/items?q=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
	if strings.Contains(res.Body, "<img src=x") {
		t.Error("query reflected unescaped")
	}
}
