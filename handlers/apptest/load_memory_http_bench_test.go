package apptest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/seed"
	"storefront/wiring"
)

// BenchmarkSessionMemoryHTTP is BenchmarkSessionMemory with every session
// made as a visitor makes it, through the real router over HTTP: a guest's
// first item page makes its session, a shopper registers (an account and a
// signed-in session, with its place in the account's list of sessions);
// then 25 item pages and 3 cart lines each. The growth of INFO used_memory
// (less the clients' buffers, which grow with the connections, not the
// sessions) divided by b.N sessions, on a redis-server of its own read through the
// client-side cache as the shop reads it (DB 0), so Redis's tracking of
// the keys the cache holds counts too. Every item page is stored in the
// page cache before the measurement, so that pages do not grow with the
// sessions. The uncached runs read from Redis itself (as a Cluster or a DB
// other than 0 does): the difference is the table in which Redis tracks
// the keys the client-side cache holds, about one key per session, which
// Redis bounds (tracking-table-max-keys, 1,000,000 by default) rather than
// letting it grow with the sessions:
//
//	go test ./handlers/apptest -run '^$' -bench SessionMemoryHTTP -benchtime 1200x
func BenchmarkSessionMemoryHTTP(b *testing.B) {
	for _, kind := range []string{"guest", "signed-in", "guest/uncached", "signed-in/uncached"} {
		b.Run(kind, func(b *testing.B) {
			rs := startOwnRedis(b, "--appendonly", "no")
			opt, err := redis.ParseURL(rs.URL())
			if err != nil {
				b.Fatal(err)
			}
			rdb := redis.NewClient(opt)
			b.Cleanup(func() { rdb.Close() })
			var cached *platform.CachingClient
			if !strings.HasSuffix(kind, "/uncached") {
				cached = platform.NewCachingClient(opt, 64<<20)
				b.Cleanup(func() { cached.Close() })
			}
			st, srv := routerApp(b, rdb, cached, func(o *wiring.Options) {
				o.PageCacheTTL, o.PageCacheTop = time.Hour, 10_000
			})
			ctx := context.Background()
			sellable := sellableItems(b, st)
			// Every item viewed by one visitor, its page stored (once its
			// view is counted, so on the second pass) and hit.
			warm := apptest.NewClient(b, srv.URL)
			for range 3 {
				for id := 1; id <= seed.DemoItemCount; id++ {
					warm.Get("/items/" + strconv.Itoa(id))
				}
				if err := st.Pages.FlushWrites(ctx); err != nil {
					b.Fatal(err)
				}
			}
			before := sessionMemory(b, rdb)
			prefix := fmt.Sprintf("mem%d", time.Now().UnixNano()%1e6)
			b.ResetTimer()
			const workers = 8
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := w; i < b.N; i += workers {
						if err := httpSession(b, srv.URL, i, strings.HasPrefix(kind, "signed-in"), prefix, sellable); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			if err := st.Pages.FlushWrites(ctx); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if n := rdb.ZCard(ctx, keys.Recent).Val(); n != int64(b.N)+1 {
				b.Fatalf("%d sessions, want %d", n, b.N+1)
			}
			after := sessionMemory(b, rdb)
			b.ReportMetric(float64(after-before)/float64(b.N), "bytes/session")
		})
	}
}

// httpSession makes session i over HTTP: registered when signedIn, 25
// item pages, 3 cart lines of sellable items.
func httpSession(b *testing.B, base string, i int, signedIn bool, prefix string, sellable []int64) error {
	c := apptest.NewClient(b, base)
	defer c.CloseIdle()
	if signedIn {
		name := fmt.Sprintf("%s_%d", prefix, i)
		r := c.Post("/register", url.Values{"username": {name}, "password": {apptest.Password}, "email": {apptest.Email(name)}})
		if r.Status != http.StatusSeeOther {
			return fmt.Errorf("register %s: status %d", name, r.Status)
		}
	}
	for v := range 25 {
		if r := c.Get("/items/" + strconv.Itoa((i*31+v*7)%seed.DemoItemCount+1)); r.Status != http.StatusOK {
			return fmt.Errorf("item page: status %d", r.Status)
		}
	}
	for l := range 3 {
		id := sellable[(i+l*97)%len(sellable)]
		r := c.Post("/cart", url.Values{"item": {strconv.FormatInt(id, 10)}, "qty": {strconv.Itoa(l + 1)}})
		if r.Status != http.StatusSeeOther {
			return fmt.Errorf("cart line %d: status %d", id, r.Status)
		}
	}
	return nil
}

// sellableItems are the demo items a cart line can take without choosing
// a variant, with stock to spare.
func sellableItems(b *testing.B, st *wiring.Services) []int64 {
	ids := make([]int64, seed.DemoItemCount)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	rows, err := st.Catalog.CatalogRows(context.Background(), ids)
	if err != nil {
		b.Fatal(err)
	}
	var out []int64
	for _, id := range ids {
		if it, ok := rows[id]; ok && !it.HasOptions() && !it.Archived() && it.Stock >= 3 {
			out = append(out, id)
		}
	}
	if len(out) < 100 {
		b.Fatalf("only %d sellable items", len(out))
	}
	return out
}

// sessionMemory is INFO memory's used_memory less mem_clients_normal.
func sessionMemory(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	var used, clients int64
	for _, line := range strings.Split(info, "\r\n") {
		name, v, _ := strings.Cut(line, ":")
		switch name {
		case "used_memory":
			used, _ = strconv.ParseInt(v, 10, 64)
		case "mem_clients_normal":
			clients, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if used == 0 {
		b.Fatal("no used_memory in INFO")
	}
	return used - clients
}
