package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"storefront/handlers/apptest"
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
