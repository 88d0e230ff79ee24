package apptest_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"storefront/handlers/apptest"
)

// BenchmarkCachedHit serves a cached item page hit through the real
// router (no network: the handler is called directly) on a redis-server
// of its own with the client-side cache, for a returning guest and a
// signed-in shopper sending gzip and their cookies, and reports the
// allocations per hit: the work of a hit that is not the network's.
//
//	go test ./handlers/apptest -run '^$' -bench CachedHit -benchmem
func BenchmarkCachedHit(b *testing.B) {
	for _, kind := range []string{"guest", "signed-in"} {
		b.Run(kind, func(b *testing.B) {
			_, _, _, srv := cachedApp(b)
			c := apptest.NewClient(b, srv.URL)
			if kind == "signed-in" {
				c.Register("bench_hit")
			}
			page := c.MustGet("/items/61", http.StatusOK).URL // its readable URL
			apptest.Eventually(b, "the page is a hit", func() bool {
				return c.MustGet(page, http.StatusOK).Header.Get("X-Cache") == "HIT"
			})
			cookie := "sid=" + c.Cookie("sid")
			if kind == "signed-in" {
				cookie += "; user=" + c.Cookie("user")
			}
			handler := srv.Config.Handler
			serve := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest("GET", page, nil)
				req.Header.Set("Cookie", cookie)
				req.Header.Set("Accept-Encoding", "gzip")
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, req)
				return rec
			}
			for range 3 { // the holes' reads are cached now
				serve()
			}
			if rec := serve(); rec.Code != http.StatusOK || rec.Header().Get("X-Cache") != "HIT" {
				b.Fatalf("%d, X-Cache %q", rec.Code, rec.Header().Get("X-Cache"))
			}
			b.ReportAllocs()
			for b.Loop() {
				if rec := serve(); rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}
