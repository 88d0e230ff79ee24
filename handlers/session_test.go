package handlers_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/handlers/web"
	"storefront/store/keys"
	"storefront/store/sessions"
	"storefront/store/storetest"
	"storefront/wiring"
)

func TestSessionStartsOnFirstItemView(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	for _, p := range []string{"/", "/items", "/items?q=tent", "/login", "/register", "/items/999999", "/items/abc"} {
		res := c.Get(p)
		if res.Status != 200 && res.Status != 404 {
			t.Fatalf("GET %s: %d", p, res.Status)
		}
		if c.Cookie("sid") != "" || setCookieFor(res, "sid") != "" || a.sessions() != 0 {
			t.Fatalf("GET %s started a session", p)
		}
	}
	c.view(5)
	tok := c.Cookie("sid")
	if tok == "" || !a.known(tok) || a.sessions() != 1 {
		t.Fatalf("first item view: token %q, %d sessions", tok, a.sessions())
	}
	ck := setCookieFor(c.Get("/items/6"), "sid")
	if ck != "" {
		t.Errorf("a known token is set again: %s", ck)
	}
	c.view(7)
	if c.Cookie("sid") != tok || a.sessions() != 1 {
		t.Error("a second view started another session")
	}
}

func TestSessionCookieFlags(t *testing.T) {
	a := newApp(t, nil, nil)
	res := a.client().Get("/items/5")
	ck := setCookieFor(res, "sid")
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="} {
		if !strings.Contains(ck, want) {
			t.Errorf("sid cookie %q lacks %s", ck, want)
		}
	}
	if strings.Contains(ck, "Secure") {
		t.Errorf("sid cookie on plain HTTP is Secure: %q", ck)
	}
	// auto: Secure when a trusted proxy says the request came over HTTPS.
	trusted := a.sharing(func(c *handlers.Config) { c.TrustedProxies = cidrs(t, "127.0.0.0/8") })
	res = trusted.client().Get("/items/5", "X-Forwarded-Proto", "https")
	if ck := setCookieFor(res, "sid"); !strings.Contains(ck, "Secure") {
		t.Errorf("behind a trusted HTTPS proxy: %q", ck)
	}
	res = a.client().Get("/items/5", "X-Forwarded-Proto", "https")
	if ck := setCookieFor(res, "sid"); strings.Contains(ck, "Secure") {
		t.Errorf("X-Forwarded-Proto believed from an untrusted peer: %q", ck)
	}
	always := a.sharing(func(c *handlers.Config) { c.CookieSecure = web.SecureAlways })
	if ck := setCookieFor(always.client().Get("/items/5"), "sid"); !strings.Contains(ck, "Secure") {
		t.Errorf("COOKIE_SECURE=true: %q", ck)
	}
}

func TestRecentlyViewedKeepsNewest25(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	for id := 1; id <= 26; id++ {
		c.view(id)
	}
	var want []string
	for id := 26; id >= 2; id-- {
		want = append(want, fmt.Sprint(id))
	}
	if got := listItems(t, c.home().Body, "recently-viewed"); !slices.Equal(got, want) {
		t.Fatalf("home recently viewed %v, want %v", got, want)
	}
	if got := a.viewedList(c.Cookie("sid")); !slices.Equal(got, want) {
		t.Fatalf("viewed:<token> %v, want %v", got, want)
	}
	// The item page lists the others: the visitor is looking at the item
	// itself (it is still kept first in the list).
	if got := listItems(t, c.Get("/items/26").Body, "recently-viewed"); !slices.Equal(got, want[1:]) {
		t.Errorf("item page recently viewed %v, want %v", got, want)
	}
}

func TestViewingAgainMovesToFront(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.view(1, 2, 3, 1)
	want := []string{"1", "3", "2"}
	if got := listItems(t, c.home().Body, "recently-viewed"); !slices.Equal(got, want) {
		t.Fatalf("recently viewed %v, want %v", got, want)
	}
	if got := a.viewedList(c.Cookie("sid")); !slices.Equal(got, want) {
		t.Fatalf("viewed:<token> %v, want %v", got, want)
	}
	if got := listItems(t, c.Get("/items/2").Body, "recently-viewed"); !slices.Equal(got, []string{"1", "3"}) {
		t.Errorf("item page recently viewed %v (the item itself is not listed)", got)
	}
}

func TestNonItemPagesLeaveViewsAlone(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.view(4, 5, 6, 5)
	ctx, rdb := t.Context(), a.rdb()
	tok := c.Cookie("sid")
	before := storetest.Must(sessions.ReadViewed(ctx, rdb, tok))(t)
	popular := storetest.Must(rdb.ZRangeWithScores(ctx, keys.ViewRanking, 0, -1).Result())(t)
	for _, p := range []string{"/", "/items", "/items?page=2", "/items?q=lamp", "/items?category=Books", "/login", "/register",
		"/items/999999", "/items/0", "/items/abc", "/nowhere", "/healthz", "/metrics"} {
		c.Get(p)
	}
	if after := storetest.Must(sessions.ReadViewed(ctx, rdb, tok))(t); !slices.Equal(after, before) {
		t.Errorf("viewed:<token> changed: %v -> %v", before, after)
	}
	if after := storetest.Must(rdb.ZRangeWithScores(ctx, keys.ViewRanking, 0, -1).Result())(t); !slices.Equal(after, popular) {
		t.Errorf("viewed: changed: %v -> %v", popular, after)
	}
	if s := rdb.ZScore(ctx, keys.ViewRanking, "5").Val(); s != -2 {
		t.Errorf("item 5 viewed %v times, want 2", -s)
	}
}

func TestSessionLimitEvictsLeastRecent(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SessionLimit = 2 }, nil)
	A, B, C := a.client(), a.client(), a.client()
	A.view(1)
	B.view(2)
	C.view(3)
	for _, c := range []*client{A, B, C} {
		a.putCart(c, 10, 1)
	}
	A.view(4) // A is back: B is now the least recently seen
	bTok := B.Cookie("sid")
	a.flushWrites() // the first visits' sessions and A's touch are written behind
	if n, err := a.store.Sessions.CleanSessions(t.Context()); n != 1 || err != nil {
		t.Fatalf("evicted %d, %v; want 1", n, err)
	}
	if a.known(bTok) || storetest.Must(a.rdb().Exists(t.Context(), keys.OfSession(bTok).Cart, keys.OfSession(bTok).Viewed).Result())(t) != 0 {
		t.Fatal("B's session, cart or viewed list survived")
	}
	for name, c := range map[string]*client{"A": A, "C": C} {
		res := c.home()
		if cartCount(res.Body) != "1" || len(listItems(t, res.Body, "recently-viewed")) == 0 {
			t.Errorf("%s lost its cart or recently viewed items", name)
		}
	}
	// B is an anonymous visitor now, and its next item view starts afresh
	// (with a new token, or, its first visit's token being younger than
	// sessions.PendingAge, with that one as a new empty session).
	res := B.home()
	if cartCount(res.Body) != "0" || len(listItems(t, res.Body, "recently-viewed")) != 0 {
		t.Error("B still sees its evicted session")
	}
	B.view(5)
	if tok := B.Cookie("sid"); tok == "" || !a.known(tok) {
		t.Error("B did not get a new session")
	}
	if got := strings.Join(listItems(t, B.home().Body, "recently-viewed"), ","); got != "5" || cartCount(B.home().Body) != "0" {
		t.Errorf("B's new session shows %q viewed, cart %s; want only item 5 and an empty cart", got, cartCount(B.home().Body))
	}
}

func TestSignedInShopperSurvivesAFlood(t *testing.T) {
	const limit = 5
	a := newApp(t, func(o *wiring.Options) { o.SessionLimit = limit }, nil)
	shopper := a.client()
	shopper.Register("shopper")
	shopper.view(11, 12)
	a.putCart(shopper, 11, 1)
	a.putCart(shopper, 12, 1)
	var wg sync.WaitGroup
	for i := range 10 * limit {
		wg.Go(func() {
			if res := a.client().Get(fmt.Sprint("/items/", 100+i)); res.Status != 200 {
				t.Errorf("visitor %d: %d", i, res.Status)
			}
		})
		if i%limit == limit-1 {
			wg.Wait()
			a.flushWrites() // the first visits' sessions are created behind
			if _, err := a.store.Sessions.CleanSessions(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	res := shopper.home()
	if signedInAs(res.Body) != "shopper" || cartCount(res.Body) != "2" {
		t.Fatalf("shopper: signed in as %q with %q in the cart", signedInAs(res.Body), cartCount(res.Body))
	}
	if got := listItems(t, res.Body, "recently-viewed"); !slices.Equal(got, []string{"12", "11"}) {
		t.Errorf("shopper's recently viewed: %v", got)
	}
	if n := a.sessions(); n != limit {
		t.Errorf("%d sessions, want %d", n, limit)
	}
}

func TestSignInRotatesTokenAndKeepsSession(t *testing.T) {
	a := newApp(t, nil, nil)
	a.client().Register("carol")
	c := a.client()
	c.view(3, 4)
	old := c.Cookie("sid")
	a.putCart(c, 3, 1)
	res := c.login("Carol")
	if res.Status != 303 {
		t.Fatalf("login: %d", res.Status)
	}
	tok := c.Cookie("sid")
	if tok == old || tok == "" {
		t.Fatal("the token was not rotated")
	}
	home := c.home()
	if signedInAs(home.Body) != "carol" || cartCount(home.Body) != "1" {
		t.Errorf("after sign-in: user %q, cart %q", signedInAs(home.Body), cartCount(home.Body))
	}
	if got := listItems(t, home.Body, "recently-viewed"); !slices.Equal(got, []string{"4", "3"}) {
		t.Errorf("recently viewed after sign-in: %v", got)
	}
	if a.known(old) || storetest.Must(a.rdb().Exists(t.Context(), keys.OfSession(old).Cart, keys.OfSession(old).Viewed).Result())(t) != 0 {
		t.Error("the old token still has server state")
	}
	u := storetest.Must(a.store.Sessions.UserByName(t.Context(), "carol"))(t)
	if id := a.rdb().HGet(t.Context(), keys.Login, keys.OfSession(tok).ID).Val(); id != fmt.Sprint(u.ID) {
		t.Errorf("login: maps the new token to %q, want %d", id, u.ID)
	}
	// Replaying the old token gives an anonymous visitor.
	replay := a.client()
	replay.SetCookie("sid", old)
	res = replay.home()
	if signedInAs(res.Body) != "" || cartCount(res.Body) != "0" || a.known(old) {
		t.Error("the old token still works")
	}
	if ck := setCookieFor(res, "sid"); !strings.Contains(ck, "Max-Age=0") {
		t.Errorf("the dead token is not cleared: %q", ck)
	}
}

func TestSignOutEndsSession(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("dan")
	c.view(8)
	tok, user := c.Cookie("sid"), c.Cookie("user")
	a.putCart(c, 8, 1)
	res := c.Post("/logout", nil)
	if res.Status != 303 {
		t.Fatalf("logout: %d", res.Status)
	}
	for _, name := range []string{"sid", "user"} {
		if ck := setCookieFor(res, name); !strings.Contains(ck, "Max-Age=0") {
			t.Errorf("%s cookie not cleared: %q", name, ck)
		}
	}
	if a.known(tok) || storetest.Must(a.rdb().Exists(t.Context(), keys.OfSession(tok).Cart, keys.OfSession(tok).Viewed).Result())(t) != 0 || storetest.Must(a.rdb().HExists(t.Context(), keys.Login, keys.OfSession(tok).ID).Result())(t) {
		t.Fatal("the session survived sign-out")
	}
	res = c.home()
	if signedInAs(res.Body) != "" || !strings.Contains(res.Body, "signed out") {
		t.Errorf("after sign-out: user %q", signedInAs(res.Body))
	}
	// Replaying both old cookies: an anonymous visitor, no error, nothing created.
	replay := a.client()
	replay.SetCookie("sid", tok)
	replay.SetCookie("user", user)
	before := a.sessions()
	res = replay.home()
	if signedInAs(res.Body) != "" || cartCount(res.Body) != "0" || a.sessions() != before || a.known(tok) {
		t.Error("replayed cookies after sign-out still work")
	}
	if res := replay.Post("/logout", nil); res.Status != 303 {
		t.Errorf("logout with dead cookies: %d", res.Status)
	}
}

func TestConcurrentViewsInOneSession(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.view(1)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			if res := c.Get(fmt.Sprint("/items/", 2+i)); res.Status != 200 {
				t.Errorf("view %d: %d", i, res.Status)
			}
		})
	}
	wg.Wait()
	if got := a.viewedList(c.Cookie("sid")); len(got) != 25 {
		t.Errorf("%d items kept, want 25", len(got))
	}
	if a.sessions() != 1 {
		t.Errorf("%d sessions, want 1", a.sessions())
	}
	var total float64
	for _, z := range a.rdb().ZRangeWithScores(t.Context(), keys.ViewRanking, 0, -1).Val() {
		total -= z.Score
	}
	if total != 41 {
		t.Errorf("viewed: counts %v views, want 41", total)
	}
}

func TestSessionMetrics(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SessionLimit = 1 }, nil)
	a.client().view(1)
	a.client().view(2)
	a.flushWrites() // the first visits' sessions are created behind
	if _, err := a.store.Sessions.CleanSessions(t.Context()); err != nil {
		t.Fatal(err)
	}
	res := apptest.Response{Body: a.scrape(t)}
	mustContain(t, res.Body, "\nstorefront_sessions 1\n", "\nstorefront_sessions_evicted_total 1\n")
}
