package handlers_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/store/pagecache"
	"storefront/store/pagecache/pagebody"
	"storefront/store/sessions"
	"storefront/store/storetest"
	"storefront/wiring"
)

// cacheApp is an app with PAGE_CACHE_TOP = top and PAGE_CACHE_TTL = ttl.
func cacheApp(t *testing.T, top int64, ttl time.Duration) *app {
	return newApp(t, func(o *wiring.Options) {
		o.PageCacheTTL, o.PageCacheTop = ttl, top
	}, nil)
}

func xcache(t *testing.T, res apptest.Response, want string) {
	t.Helper()
	if res.Status != http.StatusOK {
		t.Fatalf("status %d, want 200", res.Status)
	}
	if got := res.Header.Get("X-Cache"); got != want {
		t.Fatalf("X-Cache %q, want %q", got, want)
	}
}

// metric reads one series from /metrics.
func (a *app) metric(t *testing.T, series string) int {
	t.Helper()
	body := a.scrape(t)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\d+)`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no series %s", series)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func (a *app) renders(t *testing.T) int { return a.metric(t, "storefront_page_renders_total") }

func TestPageCacheOnlyTopItems(t *testing.T) {
	a := cacheApp(t, 2, time.Minute)
	c := a.client()
	views := map[string]int{"11": 5, "12": 3, "13": 1}
	for id, n := range views {
		for range n {
			xcache(t, c.Get("/items/"+id+"?_=1"), "BYPASS") // counted, never cached
		}
	}
	xcache(t, c.Get("/items/11"), "MISS") // rank 0, the most viewed, is cached
	xcache(t, c.Get("/items/11"), "HIT")
	xcache(t, c.Get("/items/12"), "MISS")
	xcache(t, c.Get("/items/12"), "HIT")
	xcache(t, c.Get("/items/13"), "BYPASS") // rank 2: never
	xcache(t, c.Get("/items/13"), "BYPASS")
	xcache(t, c.Get("/items/11?_=1"), "BYPASS")
	xcache(t, c.Get("/items/11?utm_source=news&fbclid=x&gclid=y"), "HIT") // tracking parameters ignored
	xcache(t, c.Get("/items/11?b=2&a=1"), "HIT")                          // and every other one the page does not read
	xcache(t, c.Get("/items/12?a=1&b=2"), "HIT")
	if err := a.store.Pages.FlushWrites(t.Context()); err != nil {
		t.Fatal(err)
	}

	st, err := a.store.Pages.PageCacheStats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"hit": 5, "miss": 2, "stale": 0, "bypass": 9 + 2 + 1, "renders": 9 + 2 + 1 + 2}
	for k, v := range want {
		if st[k] != v {
			t.Errorf("stats:pagecache %s = %d, want %d (%v)", k, st[k], v, st)
		}
	}
	if n := a.metric(t, `storefront_page_cache_requests_total{result="hit"}`); n != 5 {
		t.Errorf("hit metric %d, want 5", n)
	}
	if n := a.renders(t); n != 14 {
		t.Errorf("renders %d, want 14", n)
	}
	top, err := a.store.Analytics.PopularItems(t.Context(), 3)
	if err != nil || len(top) != 3 || top[0].ItemID != 11 || top[1].ItemID != 12 || top[2].ItemID != 13 {
		t.Fatalf("popular %v %v", top, err)
	}
	home := c.Get("/")
	if got := listItems(t, home.Body, "popular"); strings.Join(got, ",") != "11,12,13" {
		t.Errorf("home popular %v", got)
	}
}

// wait lets d pass for Redis TTLs and for the store's clock, which the
// in-process page cache reads (miniredis's clock only moves when told).
func (a *app) wait(t *testing.T, d time.Duration) {
	if storetest.Miniredis(t) == nil {
		time.Sleep(d)
		return
	}
	storetest.Wait(t, d)
	a.shift += d
	shift := a.shift
	a.store.SetClock(func() time.Time { return time.Now().Add(shift) })
}

func TestPageCacheExpiresAndServesStale(t *testing.T) {
	ttl := 2 * time.Second // the grace period is as long
	a := cacheApp(t, 10, ttl)
	c := a.client()
	xcache(t, c.Get("/items/21"), "BYPASS") // unranked before its first view
	xcache(t, c.Get("/items/21"), "MISS")
	xcache(t, c.Get("/items/21"), "HIT")
	a.wait(t, ttl)
	res := c.Get("/items/21")
	xcache(t, res, "STALE") // served at once while it is rendered again
	if cs := res.Header.Get("Cache-Status"); !regexp.MustCompile(`^storefront; hit; ttl=(0|-\d+)$`).MatchString(cs) {
		t.Errorf("Cache-Status %q", cs)
	}
	a.store.Pages.WaitBackground()
	xcache(t, c.Get("/items/21"), "HIT")
	if n := a.renders(t); n != 3 {
		t.Errorf("renders %d, want 3", n)
	}
	a.wait(t, 2*ttl+100*time.Millisecond)
	xcache(t, c.Get("/items/21"), "MISS") // gone for good: rendered again
	if n := a.renders(t); n != 4 {
		t.Errorf("renders %d, want 4", n)
	}
}

func TestCachedPageIsPrivate(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	ctx := t.Context()
	rdb := a.store.Redis()
	anon := a.client()
	anon.Get("/items/31")
	xcache(t, anon.Get("/items/31"), "MISS")

	alice, bob := a.client(), a.client()
	alice.Register("alice_private")
	bob.Register("bob_private")
	alice.Get("/items/5?_=1")
	alice.Get("/items/6?_=1")
	rdb.HSet(ctx, alice.cartKey(), "5", 2, "6", 1, "7", 4)
	rdb.HSet(ctx, bob.cartKey(), "9", 1)

	ra, rb := alice.Get("/items/31"), bob.Get("/items/31")
	xcache(t, ra, "HIT")
	xcache(t, rb, "HIT")
	if got := textOf(ra.Body, "user-name"); got != "alice_private" {
		t.Errorf("alice sees name %q", got)
	}
	if got := textOf(rb.Body, "user-name"); got != "bob_private" {
		t.Errorf("bob sees name %q", got)
	}
	if a, b := textOf(ra.Body, "cart-count"), textOf(rb.Body, "cart-count"); a != "7" || b != "1" {
		t.Errorf("cart counts %q and %q, want 7 (2+1+4) and 1", a, b)
	}
	if got := strings.Join(listItems(t, ra.Body, "recently-viewed"), ","); got != "6,5" {
		t.Errorf("alice's recently viewed %q", got)
	}
	// Bob has seen only this item: no list (the item itself is not listed).
	if strings.Contains(rb.Body, `data-testid="recently-viewed"`) {
		t.Errorf("bob's page lists recently viewed items")
	}
	if strings.Contains(ra.Body, "bob_private") || strings.Contains(rb.Body, "alice_private") {
		t.Error("one shopper sees the other")
	}
	ro := anon.Get("/items/31")
	if strings.Contains(ro.Body, "_private") || textOf(ro.Body, "user-name") != "" {
		t.Error("an anonymous visitor sees a shopper")
	}

	held := a.store.Pages.HeldPage(31) // the in-process copy is the same anonymous page
	if held == nil {
		t.Fatal("the page is not held in process")
	}
	if html, err := held.HTML(nil); err != nil || bytes.Contains(html, []byte("_private")) || !bytes.Contains(html, []byte(`href="/login"`)) {
		t.Errorf("the in-process copy is not the anonymous page (%v)", err)
	}
	if err := a.store.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	found := cacheKeys(t, rdb)
	if len(found) != 1 {
		t.Fatalf("%d cached pages, want 1", len(found))
	}
	for _, k := range found {
		raw, err := rdb.Get(ctx, k).Bytes()
		if err != nil {
			t.Fatal(err)
		}
		p, err := pagebody.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		html, err := p.HTML(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range [][]byte{raw, html} {
			if bytes.Contains(v, []byte("alice_private")) || bytes.Contains(v, []byte("bob_private")) {
				t.Errorf("%s holds a username", k)
			}
		}
		if !bytes.Contains(html, []byte(`href="/login"`)) {
			t.Errorf("the stored page is not the anonymous one")
		}
	}
}

// cacheKeys lists every key under cache: on every master.
func cacheKeys(t *testing.T, rdb redis.UniversalClient) []string {
	t.Helper()
	var mu sync.Mutex
	var out []string
	scan := func(ctx context.Context, c redis.UniversalClient) error {
		found, err := c.Keys(ctx, keys.PagePattern).Result()
		mu.Lock()
		out = append(out, found...)
		mu.Unlock()
		return err
	}
	var err error
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(t.Context(), func(ctx context.Context, c *redis.Client) error { return scan(ctx, c) })
	} else {
		err = scan(t.Context(), rdb)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConcurrentMissesRenderOnce(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	a.store.Redis().ZIncrBy(t.Context(), keys.ViewRanking, -3, "41") // popular, never rendered
	const n = 100
	var wg sync.WaitGroup
	results := make([]apptest.Response, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = a.client().Get("/items/41")
		}()
	}
	wg.Wait()
	for i, res := range results {
		if res.Status != 200 || !strings.Contains(res.Body, `data-testid="item-price"`) {
			t.Fatalf("request %d: %d", i, res.Status)
		}
		if x := res.Header.Get("X-Cache"); x != "MISS" && x != "HIT" {
			t.Fatalf("request %d: X-Cache %s", i, x)
		}
	}
	if got := a.renders(t); got != 1 {
		t.Errorf("%d concurrent requests rendered the page %d times, want 1", n, got)
	}
	if err := a.store.Pages.FlushWrites(t.Context()); err != nil {
		t.Fatal(err)
	}
	score := storetest.Must(a.store.Redis().ZScore(t.Context(), keys.ViewRanking, "41").Result())(t)
	if score != -3-n {
		t.Errorf("viewed: score %v, want %d: every view counts", score, -3-n)
	}
}

func TestConcurrentMissesAcrossInstances(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	// A second instance on the same Redis and database.
	st2 := wiring.New(a.store.Redis(), a.store.DB(), a.store.Options(), storetest.Logger(t))
	t.Cleanup(st2.Close)
	cfg := testConfig(t)
	h2, err := handlers.New(cfg, st2, storetest.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	b := &app{t: t, store: st2, h: h2, srv: httptestServer(t, h2)}
	a.store.Redis().ZIncrBy(t.Context(), keys.ViewRanking, -3, "42")
	var wg sync.WaitGroup
	var bad atomic.Int32
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inst := a
			if i%2 == 1 {
				inst = b
			}
			if res := inst.client().Get("/items/42"); res.Status != 200 {
				bad.Add(1)
			}
		}()
	}
	wg.Wait()
	if bad.Load() > 0 {
		t.Fatalf("%d failed requests", bad.Load())
	}
	got := a.renders(t) + b.renders(t)
	t.Logf("renders across two instances: %d", got)
	if got < 1 || got > 2 {
		t.Errorf("two instances rendered the page %d times, want about once", got)
	}
}

func TestEditShowsNewPriceAtOnce(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	shopper := a.client()
	shopper.Get("/items/51")
	xcache(t, shopper.Get("/items/51"), "MISS")
	xcache(t, shopper.Get("/items/51"), "HIT")

	admin := a.client()
	if res := admin.Get("/admin/items/51"); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login?next=%2Fadmin%2Fitems%2F51") {
		t.Fatalf("anonymous admin: %d %q", res.Status, res.Header.Get("Location"))
	}
	shopper.Register("not_the_admin")
	if res := shopper.Post("/admin/items/51", url.Values{"name": {"x"}, "price": {"1.00"}, "stock": {"1"}}); res.Status != http.StatusForbidden {
		t.Fatalf("shopper edits: %d", res.Status)
	}
	if res := admin.Post("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}); res.Status != http.StatusSeeOther {
		t.Fatalf("admin login %d", res.Status)
	}
	form := admin.Get("/admin/items/51")
	if form.Status != 200 || !strings.Contains(form.Body, `name="price"`) {
		t.Fatalf("edit form %d", form.Status)
	}
	bad := admin.Post("/admin/items/51", url.Values{"name": {""}, "price": {"12.345"}, "stock": {"-1"}, "description": {"d"}})
	if bad.Status != http.StatusUnprocessableEntity || len(testids(bad.Body, "field-error", "")) != 3 {
		t.Fatalf("invalid edit: %d, %d errors", bad.Status, len(testids(bad.Body, "field-error", "")))
	}
	xcache(t, shopper.Get("/items/51"), "HIT") // nothing changed
	res := admin.Post("/admin/items/51", url.Values{"name": {"Edited Name"}, "price": {"12.34"}, "stock": {"7"}, "description": {"New words."}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", res.Status, res.Body)
	}
	next := shopper.Get("/items/51")
	xcache(t, next, "MISS")
	if got := textOf(next.Body, "item-price"); got != "$12.34" {
		t.Errorf("price after edit %q", got)
	}
	mustContain(t, next.Body, "Edited Name", "Only 7 left", "New words.")
	after := shopper.Get("/items/51")
	xcache(t, after, "HIT")
	if got := textOf(after.Body, "item-price"); got != "$12.34" {
		t.Errorf("cached price after edit %q", got)
	}
}

func TestETagAndNotModified(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	c := a.client()
	c.Register("etag_shopper")
	c.Get("/items/61")
	first := c.Get("/items/61")
	etag := first.Header.Get("ETag")
	if !regexp.MustCompile(`^"[0-9a-f]{32}(-gz)?"$`).MatchString(etag) {
		t.Fatalf("ETag %q", etag)
	}
	cond := func(tag string) apptest.Response {
		req, _ := http.NewRequest("GET", a.srv.URL+"/items/61", nil)
		req.Header.Set("If-None-Match", tag)
		return c.Do(req)
	}
	res := cond(etag)
	if res.Status != http.StatusNotModified || res.Body != "" || res.Header.Get("ETag") != etag {
		t.Fatalf("If-None-Match: %d %q", res.Status, res.Header.Get("ETag"))
	}
	if res := cond(`"other", W/` + etag); res.Status != http.StatusNotModified {
		t.Errorf("weak match in a list: %d", res.Status)
	}
	a.store.Redis().HSet(t.Context(), c.cartKey(), "3", 1)
	res = cond(etag)
	if res.Status != 200 || res.Header.Get("ETag") == etag {
		t.Fatalf("a new cart count must change the ETag: %d", res.Status)
	}
	if got := textOf(res.Body, "cart-count"); got != "1" {
		t.Errorf("cart count %q", got)
	}
	other := a.client()
	other.Get("/items/61")
	if o := other.Get("/items/61").Header.Get("ETag"); o == res.Header.Get("ETag") {
		t.Error("another visitor's page has the same ETag")
	}
}

func TestGzipRoundTrip(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	c := a.client()
	c.Register("gzip_shopper")
	c.Get("/items/71")
	c.Get("/items/72")
	c.Get("/items/71")
	raw := &http.Client{Jar: c.HTTP().Jar, Transport: &http.Transport{DisableCompression: true}}
	get := func(enc string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", a.srv.URL+"/items/71", nil)
		req.Header.Set("Accept-Encoding", enc)
		res, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	zres, zbody := get("gzip, deflate, br")
	if zres.Header.Get("Content-Encoding") != "gzip" || zres.Header.Get("X-Cache") != "HIT" {
		t.Fatalf("gzip response: %q %q", zres.Header.Get("Content-Encoding"), zres.Header.Get("X-Cache"))
	}
	if zres.ContentLength != int64(len(zbody)) {
		t.Errorf("Content-Length %d, body %d", zres.ContentLength, len(zbody))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zbody))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	html, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	pres, plain := get("identity")
	if pres.Header.Get("Content-Encoding") != "" || pres.Header.Get("X-Cache") != "HIT" {
		t.Fatalf("plain response: %q", pres.Header.Get("Content-Encoding"))
	}
	if !bytes.Equal(html, plain) {
		t.Fatalf("gzip and plain bodies differ:\n%s\n---\n%s", html, plain)
	}
	if zres.Header.Get("ETag") == pres.Header.Get("ETag") {
		t.Error("two encodings share a strong ETag")
	}
	mustContain(t, string(html), "gzip_shopper", "</html>")
	if got := strings.Join(listItems(t, string(html), "recently-viewed"), ","); got != "72" {
		t.Errorf("recently viewed %q", got)
	}
	for _, enc := range []string{"gzip;q=0", "*;q=0", ""} {
		if res, _ := get(enc); res.Header.Get("Content-Encoding") != "" {
			t.Errorf("Accept-Encoding %q got gzip", enc)
		}
	}
	if res, _ := get("*"); res.Header.Get("Content-Encoding") != "gzip" {
		t.Error("Accept-Encoding * should get gzip")
	}
}

// countHook counts round trips: one per command sent alone, one per pipeline.
type countHook struct{ n atomic.Int64 }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}
func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.n.Add(1); return next(ctx, cmds) }
}

// A hit reads nothing from Redis for the page (the in-process copy) and
// writes nothing before answering: its touch, view and stats go behind. What
// remains is one round trip of reads for the visitor's holes.
func TestCacheHitRoundTrips(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) {
		o.PageCacheTop, o.WriteBehind = 10, time.Hour // flushed by the test only
	}, nil)
	ctx := t.Context()
	rdb := a.store.Redis()
	c := a.client()
	c.Register("one_trip")
	for _, p := range []string{"/items/81", "/items/82", "/items/81", "/items/83"} {
		c.Get(p)
	}
	rdb.HSet(ctx, c.cartKey(), "82", 2)
	if err := a.store.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	before := storetest.Must(rdb.ZScore(ctx, keys.ViewRanking, "81").Result())(t)
	counter := storetest.Must(rdb.HGet(ctx, keys.ItemCounts(81), "views").Int64())(t)
	seen := storetest.Must(rdb.ZScore(ctx, keys.Recent, keys.OfSession(c.Cookie("sid")).ID).Result())(t)

	hook := &countHook{}
	rdb.AddHook(hook)
	writes := &writeHook{}
	rdb.AddHook(writes)
	res := c.Get("/items/81")
	trips := hook.n.Load()
	xcache(t, res, "HIT")
	if trips != 1 {
		t.Errorf("a cache hit took %d Redis round trips, want 1 (the visitor's reads)", trips)
	}
	if w := writes.names(); len(w) > 0 {
		t.Errorf("a cache hit wrote before answering: %v", w)
	}
	if textOf(res.Body, "user-name") != "one_trip" || textOf(res.Body, "cart-count") != "2" {
		t.Errorf("header %q %q", textOf(res.Body, "user-name"), textOf(res.Body, "cart-count"))
	}
	if got := strings.Join(listItems(t, res.Body, "recently-viewed"), ","); got != "83,82" {
		t.Errorf("recently viewed %q", got)
	}
	if err := a.store.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	after := storetest.Must(rdb.ZScore(ctx, keys.ViewRanking, "81").Result())(t)
	counted := storetest.Must(rdb.HGet(ctx, keys.ItemCounts(81), "views").Int64())(t)
	now := storetest.Must(rdb.ZScore(ctx, keys.Recent, keys.OfSession(c.Cookie("sid")).ID).Result())(t)
	first := storetest.Must(sessions.ReadViewed(ctx, rdb, c.Cookie("sid")))(t)
	if after != before-1 || counted != counter+1 || now <= seen || len(first) == 0 || first[0] != "81" {
		t.Errorf("the hit's view was not recorded: ranking %v->%v, counter %d->%d, seen %v->%v, first %v",
			before, after, counter, counted, seen, now, first)
	}

	// A first-time visitor without cookies gets its token at once and
	// waits on no write: its session is created behind. The one read is
	// the item's counters (none with client-side caching).
	hook.n.Store(0)
	writes.reset()
	fresh := a.client()
	res = fresh.Get("/items/81")
	xcache(t, res, "HIT")
	if n := hook.n.Load(); n > 1 {
		t.Errorf("a new visitor's hit took %d round trips, want at most 1", n)
	}
	if w := writes.names(); len(w) > 0 {
		t.Errorf("a new visitor's hit wrote before answering: %v", w)
	}
	tok := fresh.Cookie("sid")
	if tok == "" {
		t.Fatal("no session cookie for a new visitor")
	}
	if err := a.store.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	if sc, err := rdb.ZScore(ctx, keys.Recent, keys.OfSession(tok).ID).Result(); err != nil || sc >= keys.SignedInScore {
		t.Errorf("the new guest session was not made behind: %v, %v", sc, err)
	}
	if v := storetest.Must(a.store.Sessions.RecentlyViewed(ctx, tok))(t); len(v) != 1 || v[0] != 81 {
		t.Errorf("the new session's viewed list is %v, want [81]", v)
	}

	// Uncached: at most three.
	hook.n.Store(0)
	xcache(t, c.Get("/items/84"), "BYPASS")
	if n := hook.n.Load(); n > 3 {
		t.Errorf("an uncached page took %d round trips, want at most 3", n)
	}
	hook.n.Store(0)
	xcache(t, c.Get("/items/84"), "MISS")
	if n := hook.n.Load(); n > 3 {
		t.Errorf("a miss took %d round trips, want at most 3", n)
	}
}

// writeHook records the write commands sent.
type writeHook struct {
	mu   sync.Mutex
	sent []string
}

func (h *writeHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *writeHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.record([]redis.Cmder{cmd})
		return next(ctx, cmd)
	}
}
func (h *writeHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.record(cmds); return next(ctx, cmds) }
}

var readCommands = map[string]bool{"zscore": true, "hget": true, "hvals": true, "hmget": true, "sismember": true,
	"zrevrange": true, "lrange": true, "zrank": true, "get": true, "pttl": true, "hgetall": true, "ping": true, "exists": true}

func (h *writeHook) record(cmds []redis.Cmder) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range cmds {
		if !readCommands[c.Name()] {
			h.sent = append(h.sent, c.Name())
		}
	}
}

func (h *writeHook) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.sent...)
}

func TestUnknownTokenLeavesNoState(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	ctx := t.Context()
	rdb := a.store.Redis()
	c := a.client()
	c.Get("/items/91")
	c.Get("/items/91") // cached now
	old := c.Cookie("sid")
	if err := a.store.Sessions.EndSession(ctx, old); err != nil { // evicted, say
		t.Fatal(err)
	}
	for _, p := range []string{"/items/91", "/items/92"} { // a hit, then an uncached page
		c.SetCookie("sid", old)
		res := c.Get(p)
		if res.Status != 200 {
			t.Fatalf("%s: %d", p, res.Status)
		}
		if n := storetest.Must(rdb.Exists(ctx, keys.OfSession(old).Viewed).Result())(t); n != 0 {
			t.Errorf("%s: the unknown token left viewed:%s behind", p, old)
		}
		if _, err := rdb.ZScore(ctx, keys.Recent, keys.OfSession(old).ID).Result(); err != redis.Nil {
			t.Errorf("%s: the unknown token is in recent:", p)
		}
	}
	if c.Cookie("sid") == old || c.Cookie("sid") == "" {
		t.Error("the visitor did not get a new session")
	}
}

func TestMissingItemsAreNotCounted(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	ctx := t.Context()
	rdb := a.store.Redis()
	c := a.client()
	for _, p := range []string{"/items/999999", "/items/999999?_=1", "/items/888888"} {
		if res := c.Get(p); res.Status != 404 {
			t.Fatalf("%s: %d", p, res.Status)
		}
	}
	if c.Cookie("sid") != "" {
		t.Error("a 404 made a session")
	}
	if n := storetest.Must(rdb.ZCard(ctx, keys.ViewRanking).Result())(t); n != 0 {
		t.Errorf("views of missing items were counted: %d members", n)
	}
	c.Get("/items/3") // a real session now
	c.Get("/items/999999")
	if ids := storetest.Must(sessions.ReadViewed(ctx, rdb, c.Cookie("sid")))(t); strings.Join(ids, ",") != "3" {
		t.Errorf("session list %v", ids)
	}
}

func TestAdminPurge(t *testing.T) {
	a := newApp(t, nil, nil)
	rdb := a.store.Redis()
	admin := a.client()
	if res := admin.Post("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}); res.Status != 303 {
		t.Fatalf("login %d", res.Status)
	}
	for _, id := range []string{"101", "102", "103"} {
		admin.Get("/items/" + id)
		xcache(t, admin.Get("/items/"+id), "MISS")
	}
	res := admin.Post("/admin/cache/purge", url.Values{"item": {"101"}})
	if res.Status != 303 || res.Header.Get("Location") != "/admin/system" {
		t.Fatalf("purge item: %d", res.Status)
	}
	if msg := textOf(admin.Get("/admin/system").Body, "flash"); !strings.Contains(msg, "Purged 1 cached page of item 101.") {
		t.Errorf("flash %q", msg)
	}
	xcache(t, admin.Get("/items/101"), "MISS")
	xcache(t, admin.Get("/items/102"), "HIT")
	res = admin.Post("/admin/cache/purge", url.Values{"all": {"1"}}, "Accept", "application/json")
	if res.Status != 200 || !strings.Contains(res.Body, "Purged every cached page: 3 pages.") {
		t.Fatalf("purge all: %d %s", res.Status, res.Body)
	}
	if found := cacheKeys(t, rdb); len(found) != 0 {
		t.Errorf("pages left after purging all: %v", found)
	}
	xcache(t, admin.Get("/items/102"), "MISS")
	if res := admin.Post("/admin/cache/purge", url.Values{"item": {"x"}}); res.Status != 422 {
		t.Errorf("bad purge: %d", res.Status)
	}

	shopper := a.client()
	shopper.Register("not_admin_here")
	for _, p := range []string{"/admin/rescale", "/admin/cache/purge", "/admin/rowcache"} {
		if res := shopper.Post(p, url.Values{"all": {"1"}}); res.Status != 403 {
			t.Errorf("shopper POST %s: %d", p, res.Status)
		}
		if res := a.client().Post(p, nil); res.Status != 303 {
			t.Errorf("anonymous POST %s: %d", p, res.Status)
		}
	}
}

func TestRescaleStopsCaching(t *testing.T) {
	const top, keep = 2, 1
	a := newApp(t, func(o *wiring.Options) { o.ViewedKeep, o.PageCacheTop = keep, top }, nil)
	ctx := t.Context()
	rdb := a.store.Redis()
	admin := a.client()
	admin.Post("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}})
	rdb.ZAdd(ctx, keys.ViewRanking, redis.Z{Score: -10, Member: "101"}, redis.Z{Score: -8, Member: "102"})
	c := a.client()
	xcache(t, c.Get("/items/102"), "MISS") // rank 1 of PAGE_CACHE_TOP 2
	xcache(t, c.Get("/items/102"), "HIT")
	// The hit's view waits in the write-behind buffer; send it now, or a
	// flush landing after the rescale would put 102 back at -1.
	if err := a.store.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	if res := admin.Post("/admin/rescale", nil); res.Status != 303 {
		t.Fatalf("rescale: %d", res.Status)
	}
	zs := storetest.Must(rdb.ZRangeWithScores(ctx, keys.ViewRanking, 0, -1).Result())(t)
	if len(zs) != 1 || zs[0].Member != "101" || zs[0].Score != -5 {
		t.Fatalf("after rescale: %v, want only 101 at -5", zs)
	}
	for range 3 {
		c.Get("/items/103?_=1") // another item overtakes 102
	}
	// Every request below views 102 again: keep 101 and 103 far ahead so
	// that however many polls a slow machine needs, 102 stays third.
	rdb.ZIncrBy(ctx, keys.ViewRanking, -1000, "101")
	rdb.ZIncrBy(ctx, keys.ViewRanking, -1000, "103")
	// The in-process copy learns the item's new rank with the next flush
	// of the hits' writes, and drops it.
	storetest.Eventually(t, func() bool {
		_ = a.store.Pages.FlushWrites(ctx)
		return c.Get("/items/102").Header.Get("X-Cache") == "BYPASS"
	}, "102 is still served from the cache after dropping out of the top")
	xcache(t, c.Get("/items/102"), "BYPASS") // dropped: back at the bottom, not cached
	if n := storetest.Must(rdb.Exists(ctx, keys.Page(pageHash(t, "/items/102"))).Result())(t); n != 1 {
		t.Error("the stored page should still be there, just not served")
	}
	xcache(t, c.Get("/items/101"), "MISS") // the most viewed stays cacheable
}

func pageHash(t *testing.T, path string) string {
	t.Helper()
	id, err := strconv.ParseInt(strings.TrimPrefix(path, "/items/"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pagecache.PageKey(id)
}

func TestRowCacheAPI(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.Post("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}})
	c := a.client()
	res := c.Get("/api/items/7")
	if res.Status != 200 || res.Header.Get("X-Row-Cache") != "MISS" || !strings.Contains(res.Body, `"price_cents":`) || strings.Contains(res.Body, "cached_at") {
		t.Fatalf("miss: %d %q %s", res.Status, res.Header.Get("X-Row-Cache"), res.Body)
	}
	for _, bad := range []url.Values{{"row": {"7"}, "delay": {"soon"}}, {"row": {"0"}, "delay": {"1"}}, {"row": {"999999"}, "delay": {"5"}}} {
		if res := admin.Post("/admin/rowcache", bad); res.Status != 422 {
			t.Errorf("%v: %d", bad, res.Status)
		}
	}
	if res := admin.Post("/admin/rowcache", url.Values{"row": {"7"}, "delay": {"5"}}); res.Status != 303 {
		t.Fatalf("schedule: %d", res.Status)
	}
	if n, err := a.store.Catalog.CacheRows(t.Context()); err != nil || n != 1 {
		t.Fatalf("cache rows: %d %v", n, err)
	}
	res = c.Get("/api/items/7")
	if res.Header.Get("X-Row-Cache") != "HIT" || !strings.Contains(res.Body, `"cached_at":`) || !strings.Contains(res.Body, `"id":7`) {
		t.Fatalf("hit: %q %s", res.Header.Get("X-Row-Cache"), res.Body)
	}
	if !strings.Contains(admin.Get("/admin/system").Body, `data-testid="row-cache"`) {
		t.Error("the admin page does not list the row")
	}
	admin.Post("/admin/rowcache", url.Values{"row": {"7"}, "delay": {"0"}})
	if res := c.Get("/api/items/7"); res.Header.Get("X-Row-Cache") != "MISS" {
		t.Error("unscheduling must delete inv:7 at once")
	}
	if res := c.Get("/api/items/999999"); res.Status != 404 {
		t.Errorf("missing item: %d", res.Status)
	}
	if c.Cookie("sid") != "" {
		t.Error("the API made a session")
	}
}

// TestAPIItemArchivedIsGone: the JSON of an archived item answers 410
// like its page, whether the row comes from the row cache (a scheduled
// row, refreshed after the archive) or from the database.
func TestAPIItemArchivedIsGone(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	if res := admin.Post("/admin/rowcache", url.Values{"row": {"7"}, "delay": {"60"}}); res.Status != 303 {
		t.Fatalf("schedule: %d", res.Status)
	}
	for _, id := range []string{"7", "8"} {
		if res := admin.Post("/admin/items/"+id+"/archive", nil); res.Status != 303 {
			t.Fatalf("archive %s: %d", id, res.Status)
		}
	}
	// The archive made row 7 due: the refresh caches the archived row.
	if n, err := a.store.Catalog.CacheRows(t.Context()); err != nil || n != 1 {
		t.Fatalf("cache rows: %d %v", n, err)
	}
	if n, err := a.rdb().Exists(t.Context(), keys.RowCache(7)).Result(); err != nil || n != 1 {
		t.Fatalf("inv:7 not cached after the refresh: %d %v", n, err)
	}
	c := a.client()
	for id, from := range map[string]string{"7": "HIT", "8": "MISS"} {
		res := c.Get("/api/items/"+id, "Accept", "application/json")
		if res.Status != http.StatusGone || strings.Contains(res.Body, `"price_cents"`) {
			t.Errorf("archived item %s (row cache %s): %d %s", id, from, res.Status, res.Body)
		}
	}
	// Put back on sale, both answer again.
	for _, id := range []string{"7", "8"} {
		admin.Post("/admin/items/"+id+"/restore", nil)
	}
	if _, err := a.store.Catalog.CacheRows(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"7", "8"} {
		if res := c.Get("/api/items/" + id); res.Status != 200 {
			t.Errorf("restored item %s: %d", id, res.Status)
		}
	}
}

func TestItemPageShowsLiveScript(t *testing.T) {
	a := newApp(t, nil, nil)
	res := a.client().Get("/items/4")
	if !regexp.MustCompile(`<script src="/static/js/live\.[0-9a-f]{12}\.js" defer>`).MatchString(res.Body) {
		t.Error("no live.js on the item page")
	}
	mustContain(t, res.Body, `data-live-item="4"`)
	js := a.client().Get(regexp.MustCompile(`/static/js/live\.[0-9a-f]{12}\.js`).FindString(res.Body))
	mustContain(t, js.Body, "/api/items/")
}

func httptestServer(t *testing.T, h *handlers.Handler) *httptest.Server {
	srv := httptest.NewServer(h.Router())
	t.Cleanup(srv.Close)
	return srv
}

// Every view counts once in the item's counter, whichever path served it
// (bypass, miss, hit, stale): the page shows the count it was rendered with.
func TestEveryViewCounts(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	ctx := t.Context()
	c := a.client()
	results := map[string]int{}
	const views = 12
	for i := range views {
		path := "/items/131"
		if i%4 == 3 {
			path += "?_=1"
		}
		results[c.Get(path).Header.Get("X-Cache")]++
	}
	if results["HIT"] == 0 || results["MISS"] == 0 || results["BYPASS"] == 0 {
		t.Fatalf("results %v: want every path", results)
	}
	if err := a.store.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	if n := storetest.Must(a.rdb().HGet(ctx, keys.ItemCounts(131), "views").Int64())(t); n != views {
		t.Errorf("item counter %d after %d views (%v)", n, views, results)
	}
	if s := storetest.Must(a.rdb().ZScore(ctx, keys.ViewRanking, "131").Result())(t); s != -views {
		t.Errorf("ranking %v after %d views", s, views)
	}
	if got := textOf(c.Get("/items/131?_=1").Body, "view-count"); got != strconv.Itoa(views)+" views" {
		t.Errorf("the page shows %q", got)
	}
}

// Query parameters the item page does not read are dropped from the key:
// inventing them mints no entries and renders nothing.
func TestUnreadParametersShareOnePage(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	c := a.client()
	a.store.Redis().ZIncrBy(t.Context(), keys.ViewRanking, -5, "111")
	xcache(t, c.Get("/items/111?v=1"), "MISS")
	before := a.renders(t)
	for i := 2; i <= 20; i++ {
		xcache(t, c.Get(fmt.Sprintf("/items/111?v=%d&utm_source=x%d", i, i)), "HIT")
	}
	xcache(t, c.Get("/items/111"), "HIT")
	if n := len(cacheKeys(t, a.store.Redis())); n != 1 {
		t.Errorf("%d pages stored, want 1", n)
	}
	if n := a.renders(t); n != before {
		t.Errorf("%d renders for invented parameters", n-before)
	}
	xcache(t, c.Get("/items/111?v=1&_=2"), "BYPASS") // `_` still bypasses
}

func TestItemPageWithoutRedis(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	c := a.client()
	c.Get("/items/5")
	a.store.Redis().Close()
	res := c.Get("/items/5")
	xcache(t, res, "BYPASS")
	mustContain(t, res.Body, `data-testid="item-price"`, `href="/login"`)
	if res := c.Get("/items/999999"); res.Status != 404 {
		t.Errorf("missing item without Redis: %d", res.Status)
	}
}

// TestItemPageVariesByCookie: an item page carries the visitor's own parts
// (header, like box, flash), so every answer, a miss, a hit and a 304, for
// a guest and a signed-in shopper, gzip or not, says it varies by Cookie
// (and by Accept-Encoding) and is private: no shared cache may hand one
// visitor's copy to another.
func TestItemPageVariesByCookie(t *testing.T) {
	a := newApp(t, nil, nil)
	guest, member := a.client(), a.client()
	member.Register("vary_member")
	check := func(who string, res apptest.Response) {
		t.Helper()
		vary := strings.ToLower(strings.Join(res.Header.Values("Vary"), ","))
		if !strings.Contains(vary, "cookie") || !strings.Contains(vary, "accept-encoding") {
			t.Errorf("%s: %d %s: Vary %q, want Cookie and Accept-Encoding", who, res.Status, res.Header.Get("X-Cache"), vary)
		}
		if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "private") {
			t.Errorf("%s: Cache-Control %q, want private", who, cc)
		}
	}
	for _, enc := range []string{"gzip", "identity"} {
		for name, c := range map[string]*client{"guest": guest, "member": member} {
			who := name + " " + enc
			first := c.Get("/items/21", "Accept-Encoding", enc)
			check(who+" first", first)
			again := c.Get("/items/21", "Accept-Encoding", enc)
			for i := 0; again.Header.Get("X-Cache") != "HIT"; i++ { // cached once viewed often enough
				if i == 10 {
					t.Fatalf("%s: no HIT after 10 views", who)
				}
				again = c.Get("/items/21", "Accept-Encoding", enc)
				check(who+" again", again)
			}
			check(who+" hit", again)
			etag := again.Header.Get("ETag")
			notModified := c.Get("/items/21", "Accept-Encoding", enc, "If-None-Match", etag)
			if notModified.Status != http.StatusNotModified {
				t.Fatalf("%s: If-None-Match: %d, want 304", who, notModified.Status)
			}
			check(who+" 304", notModified)
		}
	}
}

func (h *writeHook) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sent = nil
}
