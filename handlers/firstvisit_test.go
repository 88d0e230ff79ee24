package handlers_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/store/keys"
	"storefront/store/sessions"
	"storefront/store/storetest"
	"storefront/wiring"
)

// forgeVisitToken builds a first visit's token made at made, with its
// MAC under hashKey, as the shop makes them.
func forgeVisitToken(hashKey []byte, made time.Time) string {
	r := sessions.TokenBody(made, true)
	m := hmac.New(sha256.New, hashKey)
	m.Write([]byte("sid:" + r))
	return r + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// twoInstances is two shops on one Redis and database whose writes
// behind go only when the test flushes them.
func twoInstances(t *testing.T) (*app, *app) {
	a := newApp(t, func(o *wiring.Options) { o.WriteBehind = time.Hour }, nil)
	st2 := wiring.New(a.store.Redis(), a.store.DB(), a.store.Options(), storetest.Logger(t))
	t.Cleanup(st2.Close)
	h2, err := handlers.New(testConfig(t), st2, storetest.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	return a, &app{t: t, store: st2, h: h2, srv: httptestServer(t, h2)}
}

// TestFirstVisitBeforeItsSessionIsWritten: a first visit's session is
// created behind, so the visitor's next requests can come before Redis
// knows it, on the same instance or another. On the same instance the
// waiting creation is written first; on another the token's signature and
// age say it is a new session: its pages show an empty guest session, its
// cookie is kept, and a cart write creates the session at once, so that
// nothing the visitor did is lost.
func TestFirstVisitBeforeItsSessionIsWritten(t *testing.T) {
	a, b := twoInstances(t)
	ctx := t.Context()
	rdb := a.store.Redis()
	onA := a.client()
	onA.view(3)
	tok := onA.Cookie("sid")
	if tok == "" {
		t.Fatal("no token on a first visit")
	}
	if err := rdb.ZScore(ctx, keys.Recent, keys.OfSession(tok).ID).Err(); err == nil {
		t.Fatal("the first visit's session was written before the answer; want it behind")
	}

	onB := onA.on(b)
	res := onB.Get("/items/4")
	if res.Status != 200 || setCookieFor(res, "sid") != "" {
		t.Fatalf("another instance before the creation: %d, Set-Cookie %q; want the token kept", res.Status, setCookieFor(res, "sid"))
	}
	if onB.Cookie("sid") != tok {
		t.Fatal("the token changed")
	}
	if res := onB.Post("/cart", url.Values{"item": {"5"}, "qty": {"2"}}); res.Status != 303 {
		t.Fatalf("cart write on the other instance: %d", res.Status)
	}
	if onB.Cookie("sid") != tok {
		t.Fatal("the cart write changed the token")
	}
	if err := rdb.ZScore(ctx, keys.Recent, keys.OfSession(tok).ID).Err(); err != nil {
		t.Fatalf("the cart write did not create the session: %v", err)
	}
	for _, s := range []*app{a, b} {
		if err := s.store.Pages.FlushWrites(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]*client{"A": onA, "B": onB} {
		home := c.home()
		if cartCount(home.Body) != "2" {
			t.Errorf("on %s: cart %q, want 2", name, cartCount(home.Body))
		}
		// Both views, in the order the two instances' writes went.
		got := listItems(t, home.Body, "recently-viewed")
		slices.Sort(got)
		if !slices.Equal(got, []string{"3", "4"}) {
			t.Errorf("on %s: recently viewed %v, want 3 and 4", name, got)
		}
	}
	if n := storetest.Must(rdb.ZCard(ctx, keys.Recent).Result())(t); n != 1 {
		t.Errorf("%d sessions, want the one", n)
	}

	// On the same instance, a cart write right after the first visit
	// writes the waiting session first and keeps the token and its view.
	c := a.client()
	c.view(6)
	tok = c.Cookie("sid")
	if res := c.Post("/cart", url.Values{"item": {"7"}, "qty": {"1"}}); res.Status != 303 || c.Cookie("sid") != tok {
		t.Fatalf("cart write after a first visit: %d, token kept %v", res.Status, c.Cookie("sid") == tok)
	}
	home := c.home()
	if cartCount(home.Body) != "1" || strings.Join(listItems(t, home.Body, "recently-viewed"), ",") != "6" {
		t.Errorf("same instance: cart %q, recently viewed %v", cartCount(home.Body), listItems(t, home.Body, "recently-viewed"))
	}
}

// TestOldUnknownFirstVisitTokenIsDropped: a first visit's token Redis does
// not know, made longer ago than sessions.PendingAge, is a session that
// ended (evicted, or its creation refused): it is dropped, and the
// visitor gets a new token. A young one is kept as the new session it is.
func TestOldUnknownFirstVisitTokenIsDropped(t *testing.T) {
	a := newApp(t, nil, nil)
	key := testHashKey(t)
	old := forgeVisitToken(key, time.Now().Add(-sessions.PendingAge-time.Second))
	c := a.client()
	c.SetCookie("sid", old)
	res := c.Get("/items/3")
	if res.Status != 200 || c.Cookie("sid") == old || c.Cookie("sid") == "" {
		t.Fatalf("an old unknown token: %d, token kept %v", res.Status, c.Cookie("sid") == old)
	}
	if a.known(old) {
		t.Error("the old token's session was made")
	}
	young := forgeVisitToken(key, time.Now())
	c = a.client()
	c.SetCookie("sid", young)
	if res := c.Get("/items/3"); res.Status != 200 || c.Cookie("sid") != young {
		t.Fatalf("a young unknown token: %d, token kept %v", res.Status, c.Cookie("sid") == young)
	}
	if !a.known(young) {
		t.Error("the young token's session was not created behind")
	}
	// A token of the shop's that is not a first visit's (made with its
	// session, at sign-in or a cart write) is never taken for a new one.
	stray := forgeToken(key, "made with a session that ended")
	c = a.client()
	c.SetCookie("sid", stray)
	c.Get("/items/3")
	if c.Cookie("sid") == stray || a.known(stray) {
		t.Error("an ended session's token was taken for a first visit's")
	}
}
