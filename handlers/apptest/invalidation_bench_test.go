package apptest_test

import (
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers/apptest"
	"storefront/store/cart"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/wiring"
)

// BenchmarkInvalidationLatency measures how long a change made on one
// instance takes to show on another: two stores with clients of their
// own on one Redis server (DB 0, RESP3, client-side caching), the time
// from the writer's answer to the first read on the other instance that
// sees it. The other instance polls without pause; each run reports the
// distribution over its b.N changes.
//
//	go test -run '^$' -bench InvalidationLatency -benchtime 500x ./handlers/apptest
//
// - cart count: a guest's cart line set on one instance, the header's
// count on the other (its session read through the client-side cache);
// - signed out: a session ended on one instance, anonymous on the other;
// - page purge: an item's page purged on one instance, dropped from the
// other's in-process copy (the purge channel).
func BenchmarkInvalidationLatency(b *testing.B) {
	rdb, _, writer, _ := cachedApp(b)
	ctx := b.Context()
	opt := rdb.Options()
	otherRedis := redis.NewClient(opt)
	otherCached := platform.NewCachingClient(opt, 1<<20)
	b.Cleanup(func() { otherCached.Close(); otherRedis.Close() })
	reader := wiring.New(otherRedis, writer.DB(), writer.Options(), storetest.Logger(b))
	b.Cleanup(reader.Close)
	reader.UseClientSideCache(otherCached)
	readerURL := serveRouter(b, reader).URL

	// until polls the reader instance until seen reports true.
	until := func(seen func() bool) time.Duration {
		start := time.Now()
		for deadline := start.Add(apptest.PollDeadline); !seen(); runtime.Gosched() {
			if time.Now().After(deadline) {
				b.Fatal("the change never reached the other instance")
			}
		}
		return time.Since(start)
	}

	b.Run("cart count", func(b *testing.B) {
		token := "bench-cart-" + platform.RandomHex(8)
		if err := writer.Sessions.CreateSession(ctx, token, 0); err != nil {
			b.Fatal(err)
		}
		count := func() int64 {
			st, err := reader.Pages.ViewSession(ctx, token, 0)
			if err != nil {
				b.Fatal(err)
			}
			return st.CartCount
		}
		lat := make([]time.Duration, 0, b.N)
		for i := range b.N {
			want := int64(i%5 + 1)
			count() // the count is held on the reader
			if _, err := writer.Cart.SetCartLine(ctx, cart.Owner{Token: token}, 3, want); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, until(func() bool { return count() == want }))
		}
		reportLatency(b, lat)
	})

	b.Run("signed out", func(b *testing.B) {
		u, err := writer.Sessions.CreateUser(ctx, "bench_"+platform.RandomHex(4), apptest.Password)
		if err != nil {
			b.Fatal(err)
		}
		known := func(token string) bool {
			st, err := reader.Pages.ViewSession(ctx, token, u.ID)
			if err != nil {
				b.Fatal(err)
			}
			return st.UserID == u.ID
		}
		lat := make([]time.Duration, 0, b.N)
		for range b.N {
			token := "bench-out-" + platform.RandomHex(8)
			if err := writer.Sessions.CreateSession(ctx, token, u.ID); err != nil {
				b.Fatal(err)
			}
			until(func() bool { return known(token) }) // signed in, held on the reader
			if err := writer.Sessions.EndSession(ctx, token); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, until(func() bool { return !known(token) }))
		}
		reportLatency(b, lat)
	})

	b.Run("page purge", func(b *testing.B) {
		const item = 61
		guest := apptest.NewClient(b, readerURL)
		lat := make([]time.Duration, 0, b.N)
		for range b.N {
			for reader.Pages.HeldPage(item) == nil {
				guest.MustGet(fmt.Sprintf("/items/%d", item), http.StatusOK)
			}
			if _, err := writer.Pages.PurgeItemPages(ctx, item); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, until(func() bool { return reader.Pages.HeldPage(item) == nil }))
		}
		reportLatency(b, lat)
	})
}

// reportLatency reports the median, 90th and 99th percentiles and the
// maximum of lat, in microseconds.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	at := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(at(0.5), "p50-µs")
	b.ReportMetric(at(0.9), "p90-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(at(1), "max-µs")
}
