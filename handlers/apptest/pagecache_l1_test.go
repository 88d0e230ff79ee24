package apptest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/handlers/web"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// eventually polls cond with a generous deadline (no timing is asserted).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

// TestPageCacheCoherenceAcrossInstances: two app processes on one Redis
// each hold the page in process; an edit, a stock change (a checkout) and
// a purge made on one are served by the other once it has heard the
// purge, and the old page never comes back.
func TestPageCacheCoherenceAcrossInstances(t *testing.T) {
	sh := sharedEnv(t, nil)
	ps := startInstances(t, 2, sh.env)
	a, b := ps[0].URL, ps[1].URL
	accounts := newAccountMaker(t, sh.env)
	const item = "/items/77"
	guest := apptest.NewClient(t, a)
	get := func(base string) apptest.Response { return guest.At(base).MustGet(item, http.StatusOK) }
	warm := func() {
		t.Helper()
		for _, base := range []string{a, b} {
			eventually(t, "the page is a hit on "+base, func() bool { return get(base).Header.Get("X-Cache") == "HIT" })
		}
	}
	// neverStale checks the other instance serves the new page once, and
	// then every time (the in-process copy never brings the old one back).
	neverStale := func(base, what string, fresh func(apptest.Response) bool) {
		t.Helper()
		eventually(t, what+" on "+base, func() bool { return fresh(get(base)) })
		for range 20 {
			if r := get(base); !fresh(r) {
				t.Fatalf("%s: the old page came back on %s (X-Cache %s)", what, base, r.Header.Get("X-Cache"))
			}
		}
	}
	warm()

	admin := apptest.NewClient(t, a)
	admin.MustPost("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}, http.StatusSeeOther)
	admin.MustPost("/admin/items/77", url.Values{"name": {"Coherent Kettle"}, "price": {"43.21"}, "stock": {"9"},
		"description": {"Edited on A."}}, http.StatusSeeOther)
	neverStale(b, "the edit", func(r apptest.Response) bool {
		return apptest.TextOf(r.Body, "item-price") == "$43.21" && strings.Contains(r.Body, "Coherent Kettle")
	})

	warm()
	buyer := signIn(t, accounts, a, "coherent_buyer")
	buyer.At(a).MustPost("/cart", url.Values{"item": {"77"}, "qty": {"2"}}, http.StatusSeeOther)
	placeOrder(t, buyer.At(a), buyer.At(a), http.StatusSeeOther)
	neverStale(b, "the stock change", func(r apptest.Response) bool { return strings.Contains(apptest.TextOf(r.Body, "item-stock"), "7") })

	warm()
	admin.MustPost("/admin/cache/purge", url.Values{"item": {"77"}}, http.StatusSeeOther)
	eventually(t, "the purge reaches B", func() bool { return get(b).Header.Get("X-Cache") != "HIT" })
	warm()
	admin.At(b).MustPost("/admin/cache/purge", url.Values{"all": {"1"}}, http.StatusSeeOther)
	eventually(t, "purging all reaches A", func() bool { return get(a).Header.Get("X-Cache") != "HIT" })
}

// TestHitWritesAndSIGKILL: hits' writes, and a first visit's session,
// wait in process for WRITE_BEHIND (an hour here, so nothing is flushed
// on the clock): a SIGKILL loses those views and the first visit's
// session, whose token still works: the guest's next request, to the
// restarted shop, is that session again, and its cart write lands. The
// signed-in session and the cart were written before their responses. A
// SIGTERM flushes everything.
func TestHitWritesAndSIGKILL(t *testing.T) {
	sh := sharedEnv(t, map[string]string{"WRITE_BEHIND": "1h"})
	ctx := t.Context()
	accounts := newAccountMaker(t, sh.env)
	known := func(tok string) bool {
		_, err := sh.rdb.ZScore(ctx, keys.Recent, keys.OfSession(tok).ID).Result()
		return err == nil
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		p := apptest.Start(t, sh.env)
		base := p.URL
		s := signIn(t, accounts, base, "killed_"+strconv.Itoa(int(sig)))
		s.At(base).MustPost("/cart", url.Values{"item": {"5"}, "qty": {"3"}}, http.StatusSeeOther)
		eventually(t, "item 88 is cached", func() bool {
			return s.At(base).MustGet("/items/88", http.StatusOK).Header.Get("X-Cache") == "HIT"
		})
		before := storetest.Must(sh.rdb.ZScore(ctx, keys.ViewRanking, "88").Result())(t)
		const hits = 10
		for range hits {
			if x := s.At(base).MustGet("/items/88", http.StatusOK).Header.Get("X-Cache"); x != "HIT" {
				t.Fatalf("X-Cache %s", x)
			}
		}
		guest := apptest.NewClient(t, base)
		if x := guest.MustGet("/items/88", http.StatusOK).Header.Get("X-Cache"); x != "HIT" {
			t.Fatalf("first visit: X-Cache %s", x)
		}
		buffered := hits + 2 // and the hit that ended the wait, and the first visit
		token, guestToken := s.At(base).Cookie("sid"), guest.Cookie("sid")
		if guestToken == "" || known(guestToken) {
			t.Fatalf("first visit: token %q, session written before the answer %v; want it behind", guestToken, known(guestToken))
		}
		_ = p.Signal(sig)
		_ = p.Wait()
		if !known(token) {
			t.Errorf("%v: the signed-in session is gone", sig)
		}
		// A signed-in shopper's cart is the account's.
		uid := storetest.Must(sh.rdb.HGet(ctx, keys.Login, keys.OfSession(token).ID).Result())(t)
		if q := storetest.Must(sh.rdb.HGet(ctx, keys.AccountCart(parseID(uid)), "5").Result())(t); q != "3" {
			t.Errorf("%v: cart line %q, want 3", sig, q)
		}
		after := storetest.Must(sh.rdb.ZScore(ctx, keys.ViewRanking, "88").Result())(t)
		lost := buffered - int(before-after)
		switch {
		case sig == syscall.SIGKILL && (lost < 0 || lost > buffered):
			t.Errorf("SIGKILL: %d views lost of %d buffered", lost, buffered)
		case sig == syscall.SIGTERM && lost != 0:
			t.Errorf("SIGTERM: %d buffered views were not flushed on shutdown", lost)
		case sig == syscall.SIGTERM && !known(guestToken):
			t.Error("SIGTERM: the first visit's session was not flushed on shutdown")
		}
		if sig == syscall.SIGKILL {
			if known(guestToken) {
				t.Fatal("SIGKILL: the first visit's session was written; want it lost with the buffer")
			}
			p2 := apptest.Start(t, sh.env)
			g := guest.At(p2.URL)
			g.MustPost("/cart", url.Values{"item": {"5"}, "qty": {"1"}}, http.StatusSeeOther)
			if g.Cookie("sid") != guestToken || !known(guestToken) {
				t.Errorf("after SIGKILL the guest's token changed (%v) or its session was not made again (%v)", g.Cookie("sid") != guestToken, known(guestToken))
			}
			if got := apptest.TextOf(g.MustGet("/", http.StatusOK).Body, "cart-count"); got != "1" {
				t.Errorf("after SIGKILL the guest's cart counts %q, want 1", got)
			}
			_ = p2.Signal(syscall.SIGTERM)
			_ = p2.Wait()
		}
		t.Logf("%v: %d of %d buffered views lost", sig, lost, buffered)
	}
}

// roundTrips counts what reaches Redis: one per command sent alone, one
// per pipeline.
type roundTrips struct{ n, cmds int64 }

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.n++; return next(ctx, cmd) }
}
func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.n++; return next(ctx, cmds) }
}

// TestCachedHitZeroRoundTrips: on one Redis server (DB 0, RESP3) a
// returning visitor's hit makes no blocking Redis round trip: the page is
// in process, the holes' reads are answered by go-redis's client-side
// cache, the writes go behind. A change to the visitor's cart shows on
// the next hit.
func TestCachedHitZeroRoundTrips(t *testing.T) {
	storetest.OnePass(t) // a Redis server of its own: nothing to learn from a second backend
	t.Parallel()
	rdb, cached, st, srv := cachedApp(t)
	ctx := t.Context()
	s := apptest.NewClient(t, srv.URL)
	hits := 0 // views buffered
	view := func() apptest.Response {
		r := s.MustGet("/items/61", http.StatusOK)
		if r.Header.Get("X-Cache") == "HIT" {
			hits++
		}
		return r
	}
	s.MustPost("/register", url.Values{"username": {"zero_trip"}, "password": {"a-long-password-1"}, "email": {"zero@example.com"}}, http.StatusSeeOther)
	s.MustPost("/cart", url.Values{"item": {"3"}, "qty": {"2"}}, http.StatusSeeOther)
	eventually(t, "the page is a hit", func() bool {
		return view().Header.Get("X-Cache") == "HIT"
	})
	view() // the holes' reads are cached now

	trips := &roundTrips{}
	rdb.AddHook(trips)
	misses := cached.CSCStats().Misses
	const n = 20
	for range n {
		r := view()
		if r.Header.Get("X-Cache") != "HIT" || apptest.TextOf(r.Body, "user-name") != "zero_trip" || apptest.TextOf(r.Body, "cart-count") != "2" {
			t.Fatalf("X-Cache %s, name %q, cart %q", r.Header.Get("X-Cache"), apptest.TextOf(r.Body, "user-name"), apptest.TextOf(r.Body, "cart-count"))
		}
	}
	if trips.n != 0 || cached.CSCStats().Misses != misses {
		t.Errorf("%d hits made %d round trips and %d client-side cache misses, want none",
			n, trips.n, cached.CSCStats().Misses-misses)
	}

	// Another tab changes the cart: the next hit counts it (the write
	// dropped the cached read).
	s.MustPost("/cart", url.Values{"item": {"5"}, "qty": {"1"}}, http.StatusSeeOther)
	if got := apptest.TextOf(view().Body, "cart-count"); got != "3" {
		t.Fatalf("the hit after the cart changed counts %q, want 3", got)
	}
	// The hits' views are written behind, in one pipeline.
	before := storetest.Must(rdb.ZScore(ctx, keys.ViewRanking, "61").Result())(t)
	trips.n = 0
	if err := st.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	flushTrips := trips.n
	after := storetest.Must(rdb.ZScore(ctx, keys.ViewRanking, "61").Result())(t)
	if after != before-float64(hits) || flushTrips != 1 {
		t.Errorf("flush: ranking %v -> %v (want %d views less) in %d round trips, want 1", before, after, hits, flushTrips)
	}

	// First visits, each a new visitor without cookies: a token at once,
	// no round trip; their sessions are created by the next flush.
	// The flush's view counts dropped the item's cached counters; once the
	// invalidation arrived, a first visit reads them again and caches them.
	// (Those visits' sessions are created by the flush of the test's end.)
	sessionsBefore := storetest.Must(rdb.ZCard(ctx, keys.Recent).Result())(t)
	eventually(t, "a first visit reads from the client-side cache", func() bool {
		m := cached.CSCStats().Misses
		apptest.NewClient(t, srv.URL).MustGet("/items/61", http.StatusOK)
		return cached.CSCStats().Misses == m
	})
	trips.n = 0
	misses = cached.CSCStats().Misses
	tokens := map[string]bool{}
	for range n {
		fresh := apptest.NewClient(t, srv.URL)
		r := fresh.MustGet("/items/61", http.StatusOK)
		tok := fresh.Cookie("sid")
		if r.Header.Get("X-Cache") != "HIT" || tok == "" || tokens[tok] {
			t.Fatalf("first visit: X-Cache %s, token %q (seen before: %v)", r.Header.Get("X-Cache"), tok, tokens[tok])
		}
		tokens[tok] = true
	}
	if trips.n != 0 || cached.CSCStats().Misses != misses {
		t.Errorf("%d first visits made %d round trips and %d client-side cache misses, want none",
			n, trips.n, cached.CSCStats().Misses-misses)
	}
	if err := st.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	if got := storetest.Must(rdb.ZCard(ctx, keys.Recent).Result())(t); got < sessionsBefore+n {
		t.Errorf("%d sessions after the flush, want at least %d (the %d first visits')", got, sessionsBefore+n, n)
	}
	for tok := range tokens {
		if err := rdb.ZScore(ctx, keys.Recent, keys.SessionID(tok)).Err(); err != nil {
			t.Fatalf("a first visit's session was not created: %v", err)
		}
	}
}

// cachedApp serves the real router over a store on a redis-server of its
// own (DB 0, so go-redis's client-side caching applies), with the
// write-behind left to the test (flushed by it only). It returns the plain
// and the caching client, the store and the server.
func cachedApp(t testing.TB) (*redis.Client, *platform.CachingClient, *wiring.Services, *httptest.Server) {
	t.Helper()
	rs := startOwnRedis(t, "--appendonly", "no")
	opt, err := redis.ParseURL(rs.URL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	cached := platform.NewCachingClient(opt, 1<<20)
	t.Cleanup(func() { cached.Close(); rdb.Close() })
	st, srv := routerApp(t, rdb, cached)
	return rdb, cached, st, srv
}

// routerApp serves the real router over a migrated, seeded store on rdb,
// reading through cached where it is not nil; the write-behind is left to
// the test (flushed by it only).
func routerApp(t testing.TB, rdb redis.UniversalClient, cached *platform.CachingClient, edit ...func(*wiring.Options)) (*wiring.Services, *httptest.Server) {
	t.Helper()
	o := wiringtest.Options() // the run's Redis mode
	o.WriteBehind = time.Hour // flushed by the test only
	o.PageCacheTTL, o.PageCacheTop = time.Minute, 100
	for _, f := range edit {
		f(&o)
	}
	if cached != nil {
		o.RedisMode = platform.ModeSingle
	}
	st := wiring.New(rdb, storetest.DB(t), o, storetest.Logger(t))
	t.Cleanup(st.Close)
	if cached != nil {
		st.UseClientSideCache(cached)
	}
	ctx := t.Context()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SeedDemo(ctx, storetest.AdminPassword); err != nil {
		t.Fatal(err)
	}
	return st, serveRouter(t, st)
}

// serveRouter serves the real router over st.
func serveRouter(t testing.TB, st *wiring.Services) *httptest.Server {
	t.Helper()
	keys, _ := web.ParseCookieKeys(apptest.CookieKeys)
	h, err := handlers.New(handlers.Config{CookieKeys: keys, ItemsPerPage: 24, ArticlesPage: 25, MaxLineQty: 99,
		RequestTimeout: 5 * time.Second}, st, storetest.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Router())
	t.Cleanup(srv.Close)
	return srv
}

// parseID reads an id as Redis stores it (0 for anything else).
func parseID(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
