package handlers_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/store/keys"
	"storefront/store/ratelimit"
	"storefront/store/storetest"
	"storefront/wiring"
)

// TestCookielessViewsAreCapped: a client that never keeps cookies makes a
// new session on every item view; per client address only SESSION_RATE of
// them are stored, the pages still work, and the views still count.
func TestCookielessViewsAreCapped(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SessionRate = ratelimit.Rate{{N: 20, Per: time.Minute}} },
		func(c *handlers.Config) { c.TrustedProxies = cidrs(t, "127.0.0.0/8") })
	rdb := a.store.Redis()
	ctx := t.Context()
	for i := range 300 {
		c := a.client() // a fresh cookie jar: a cookieless client
		res := c.Do(withXFF(newRequest(t, "GET", a.srv.URL+"/items/3"), "203.0.113.5"))
		if res.Status != 200 {
			t.Fatalf("view %d: %d", i, res.Status)
		}
	}
	if n := a.sessions(); n != 20 { // created behind, counted against the cap there
		t.Errorf("%d sessions stored for one address, want 20", n)
	}
	if n := rdb.ZScore(ctx, keys.ViewRanking, "3").Val(); n != -300 {
		t.Errorf("viewed: score %v, want -300 (every view counts)", n)
	}
	// Another address is not held back.
	c := a.client()
	c.Do(withXFF(newRequest(t, "GET", a.srv.URL+"/items/3"), "198.51.100.5"))
	if n := a.sessions(); n != 21 {
		t.Errorf("another address: %d sessions, want 21", n)
	}
	if c.Cookie("sid") == "" {
		t.Error("no cookie for a new address")
	}
	// A cart write needs a session: over the cap it is 429, nothing stored.
	req := withXFF(newRequest(t, "POST", a.srv.URL+"/cart"), "203.0.113.5")
	req.Body, req.ContentLength = nopBody(url.Values{"item": {"2"}, "qty": {"1"}}.Encode())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res := a.client().Do(req)
	if res.Status != 429 || res.Header.Get("Retry-After") == "" {
		t.Errorf("cart write over the cap: %d %q", res.Status, res.Header.Get("Retry-After"))
	}
	if n := a.sessions(); n != 21 {
		t.Errorf("after the refused cart write: %d sessions", n)
	}
	if keys := storetest.Must(rdb.Keys(ctx, keys.GuestCartPrefix+"*").Result())(t); len(keys) != 0 {
		t.Errorf("carts stored: %v", keys)
	}
}

func withXFF(req *http.Request, ip string) *http.Request {
	req.Header.Set("X-Forwarded-For", ip)
	return req
}

func nopBody(s string) (io.ReadCloser, int64) {
	return io.NopCloser(strings.NewReader(s)), int64(len(s))
}
