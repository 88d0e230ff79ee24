package handlers_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"storefront/handlers/apptest"
	"storefront/store/keys"
)

// TestRequireSignIn: every members-only route sends a guest to sign in the
// same way: pages get a 303 to /login with the escaped page (path and
// query) and a flash; JSON clients get a 401 with the login link. Nothing
// is written for the guest.
func TestRequireSignIn(t *testing.T) {
	a := newApp(t, nil, nil)
	guest := a.client()
	for _, tc := range []struct{ method, path, next string }{
		{"GET", "/orders?page=2", "/orders?page=2"},
		{"GET", "/orders/7", "/orders/7"},
		{"GET", "/feed", "/feed"},
		{"GET", "/notifications", "/notifications"},
		{"GET", "/articles/new", "/articles/new"},
		{"POST", "/items/5/like", "/items/5"},
		{"POST", "/users/ann%20b/follow", "/users/ann%20b"},
		{"POST", "/articles", "/articles/new"},
		{"POST", "/articles/3/vote", "/articles/3"},
		{"POST", "/articles/3/comments", "/articles/3#comments"},
		{"GET", "/articles/3/edit", "/articles/3/edit"},
		{"POST", "/articles/3/edit", "/articles/3/edit"},
		{"POST", "/articles/3/delete", "/articles/3/edit"},
		{"GET", "/comments/3-1/edit", "/comments/3-1/edit"},
		{"POST", "/comments/3-1/delete", "/comments/3-1/edit"},
		{"GET", "/articles/3/report", "/articles/3/report"},
		{"POST", "/comments/3-1/report", "/comments/3-1/report"},
	} {
		var res apptest.Response
		if tc.method == "GET" {
			res = guest.Get(tc.path)
		} else {
			res = guest.Post(tc.path, url.Values{"dir": {"up"}, "body": {"hi"}})
		}
		want := "/login?next=" + url.QueryEscape(tc.next)
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("%s %s: %d to %q, want 303 to %q", tc.method, tc.path, res.Status, res.Header.Get("Location"), want)
			continue
		}
		if guest.Cookie("flash") == "" {
			t.Errorf("%s %s: no flash saying why", tc.method, tc.path)
		}
		guest.Get("/login") // shows and clears the flash

		if tc.method == "GET" {
			res = guest.Get(tc.path, "Accept", "application/json")
		} else {
			res = guest.postJSON(tc.path, url.Values{"dir": {"up"}, "body": {"hi"}}, nil)
		}
		var body struct{ Error, Login string }
		if res.Status != http.StatusUnauthorized || json.Unmarshal([]byte(res.Body), &body) != nil || body.Login != want || body.Error == "" {
			t.Errorf("%s %s as JSON: %d %q, want 401 with login %q", tc.method, tc.path, res.Status, res.Body, want)
		}
	}
	if n := a.sessions(); n != 0 {
		t.Errorf("guests were sent to sign in, yet %d sessions exist", n)
	}
}

// TestRouteGroupsSessions: operations routes never touch the session
// (a waiting flash survives them), pages read it, and a 404 for an
// unknown path still shows who is signed in.
func TestRouteGroupsSessions(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("groupie")
	c.Post("/cart", url.Values{"item": {"1"}, "qty": {"1"}})
	flash := c.Cookie("flash")
	if flash == "" {
		t.Fatal("adding to the cart left no flash to watch")
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/api/items/1"} {
		req, _ := http.NewRequest("GET", a.srv.URL+p, nil)
		req.Header.Set("Authorization", "Bearer "+testMetricsToken) // /metrics wants it
		if res := c.Do(req); res.Status != http.StatusOK || setCookieFor(res, "flash") != "" || setCookieFor(res, "sid") != "" {
			t.Errorf("%s: %d, set-cookie %v: an operations route touched the session", p, res.Status, res.Header.Values("Set-Cookie"))
		}
	}
	if c.Cookie("flash") != flash {
		t.Error("an operations route took the flash")
	}
	res := c.Get("/no-such-page")
	if res.Status != http.StatusNotFound || signedInAs(res.Body) != "groupie" {
		t.Errorf("404 page: %d, signed in as %q, want groupie", res.Status, signedInAs(res.Body))
	}
	if res := c.Get("/items/1"); res.Status != http.StatusOK || signedInAs(res.Body) != "groupie" {
		t.Errorf("item page (reads its own session): %d, signed in as %q", res.Status, signedInAs(res.Body))
	}
}

// TestFormRoutesTakeFormsOnly: every POST route is a form route and
// answers 415 with a clear message to a JSON (or any other non-form) body,
// before it signs anyone in, registers, posts or changes anything; form
// bodies (urlencoded and multipart) and empty posts still work, and JSON
// answers for Accept: application/json are unchanged.
func TestFormRoutesTakeFormsOnly(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	ctx := t.Context()
	articlesBefore := a.rdb().ZCard(ctx, keys.ArticleTimes).Val()

	var posts []string
	for _, r := range a.h.Router().Routes() {
		// Stripe's webhook is no form: it takes Stripe's signed JSON
		// (payments_test.go).
		if r.Method == http.MethodPost && r.Path != "/webhooks/stripe" {
			posts = append(posts, r.Path)
		}
	}
	if len(posts) < 20 {
		t.Fatalf("only %d POST routes found: %v", len(posts), posts)
	}
	fill := strings.NewReplacer(":id", "1", ":name", "admin", ":n", "0")
	bodies := []struct{ ctype, body string }{
		{"application/json", `{"username":"jason","password":"correct horse battery","title":"T","link":"https://example.com/","item":"1","qty":"1"}`},
		{"application/json; charset=utf-8", `{"username":"jason"}`},
		{"text/plain", "username=jason&password=correct horse battery"},
		{"application/xml", "<username>jason</username>"},
	}
	for _, p := range posts {
		for _, b := range bodies {
			for _, accept := range []string{"text/html", "application/json"} {
				req, _ := http.NewRequest("POST", a.srv.URL+fill.Replace(p), strings.NewReader(b.body))
				req.Header.Set("Content-Type", b.ctype)
				req.Header.Set("Accept", accept)
				req.Header.Set("Origin", a.srv.URL)
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				res := admin.Do(req)
				if res.Status != http.StatusUnsupportedMediaType || !strings.Contains(res.Body, "form") {
					t.Errorf("POST %s (%s, Accept %s): %d, want 415 with a message: %.200s", p, b.ctype, accept, res.Status, res.Body)
				}
				if accept == "application/json" && !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
					t.Errorf("POST %s (Accept JSON): answered %s", p, res.Header.Get("Content-Type"))
				}
			}
		}
	}
	// Nothing happened: no account, no sign-in, no article.
	if _, err := a.store.Sessions.UserByName(ctx, "jason"); err == nil {
		t.Error("a JSON body registered an account")
	}
	if n := a.rdb().ZCard(ctx, keys.ArticleTimes).Val(); n != articlesBefore {
		t.Errorf("a JSON body posted an article: %d articles, was %d", n, articlesBefore)
	}

	// Forms still work: urlencoded, multipart, an empty post.
	guest := a.client()
	if res := guest.Post("/register", url.Values{"username": {"jason"}, "password": {"correct horse battery"}, "email": {"jason@example.com"}}); res.Status != http.StatusSeeOther {
		t.Errorf("register with a form: %d", res.Status)
	}
	var mp bytes.Buffer
	w := multipart.NewWriter(&mp)
	_ = w.WriteField("username", "jason")
	_ = w.WriteField("password", "correct horse battery")
	_ = w.Close()
	req, _ := http.NewRequest("POST", a.srv.URL+"/login", &mp)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Origin", a.srv.URL)
	if res := a.client().Do(req); res.Status != http.StatusSeeOther {
		t.Errorf("sign in with a multipart form: %d %s", res.Status, res.Body)
	}
	req, _ = http.NewRequest("POST", a.srv.URL+"/logout", nil)
	req.Header.Set("Origin", a.srv.URL)
	if res := admin.Do(req); res.Status != http.StatusSeeOther {
		t.Errorf("an empty post without a content type: %d", res.Status)
	}
	// JSON answers for JSON clients are as they were.
	var cart struct {
		Count int `json:"count"`
	}
	if res := guest.postJSON("/cart", url.Values{"item": {"8"}, "qty": {"1"}}, &cart); res.Status != http.StatusOK {
		t.Errorf("a form post asking for JSON: %d", res.Status)
	}
}
