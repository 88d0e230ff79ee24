package handlers_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// benchServer serves the real router over st with an item page cached and
// returns it with a signed-in shopper's cookies.
func benchServer(b *testing.B, st *wiring.Services) (*httptest.Server, string) {
	b.Helper()
	h, err := handlers.New(testConfig(b), st, storetest.Logger(b))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h.Router())
	b.Cleanup(srv.Close)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(srv.URL+"/register", url.Values{"username": {"bench_shopper"}, "password": {"correct horse battery"}, "email": {"bench@example.com"}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		b.Fatalf("register: %v", err)
	}
	res.Body.Close()
	var cookies []string
	for _, ck := range res.Cookies() {
		if ck.Name == "sid" || ck.Name == "user" {
			cookies = append(cookies, ck.Name+"="+ck.Value)
		}
	}
	cookie := strings.Join(cookies, "; ")
	for _, p := range []string{"/items/9", "/items/8", "/items/7", "/items/7"} {
		fetch(b, http.DefaultClient, srv.URL+p, cookie)
	}
	if st.Redis().HSet(b.Context(), keys.OfSession(strings.TrimPrefix(cookies[0], "sid=")).Cart, "8", 1).Err() != nil {
		b.Fatal("cart")
	}
	return srv, cookie
}

// fetch GETs a page as a browser would (gzip) and returns its body and
// X-Cache.
func fetch(b testing.TB, c *http.Client, u, cookie string) (int, string) {
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Cookie", cookie)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		b.Fatalf("GET %s: %d", u, res.StatusCode)
	}
	return int(n), res.Header.Get("X-Cache")
}

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}
}

// BenchmarkItemPage compares, under one load generator, a cached item page
// (a hit: one Redis round trip, fragments rendered and spliced into the
// stored gzip), an in-process handler sending the same bytes from memory,
// and the uncached path (?_=1: row, SQL and a full render every time).
//
//	go test ./handlers -run '^$' -bench BenchmarkItemPage -benchtime 5s
//	REDIS_URL=redis://127.0.0.1:6379/4 go test ./handlers -run '^$' -bench BenchmarkItemPage -benchtime 5s
func BenchmarkItemPage(b *testing.B) {
	st := wiringtest.New(b)
	srv, cookie := benchServer(b, st)
	client := benchClient()

	// The bytes of a hit, for the in-memory baseline.
	req, _ := http.NewRequest("GET", srv.URL+"/items/7", nil)
	req.Header.Set("Cookie", cookie)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := client.Do(req)
	if err != nil || res.Header.Get("X-Cache") != "HIT" {
		b.Fatalf("not a hit: %v %q", err, res.Header.Get("X-Cache"))
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	hdr := res.Header.Clone()
	mem := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range hdr {
			w.Header()[k] = v
		}
		_, _ = w.Write(body)
	}))
	b.Cleanup(mem.Close)

	for _, tc := range []struct{ name, url, want string }{
		{"memory", mem.URL + "/items/7", "HIT"},
		{"hit", srv.URL + "/items/7", "HIT"},
		{"uncached", srv.URL + "/items/7?_=1", "BYPASS"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetParallelism(8)
			cpu0 := processCPU()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, x := fetch(b, client, tc.url, cookie); x != tc.want {
						b.Errorf("X-Cache %s, want %s", x, tc.want)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e3, "cpu-µs/op")
		})
	}
}

// processCPU is this process's user and system CPU time: the servers and
// the load generator (and miniredis when it is the backend).
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkItemPageSlowRedis measures one request at a time with Redis
// behind a proxy that holds every request-bound read 1 ms: a hit should
// take about one round trip (compare redis-ping, a bare PING through the
// proxy), the uncached path three. It reports Redis round trips per
// request too. (Single Redis or miniredis; skipped on Cluster.)
//
//	go test ./handlers -run '^$' -bench BenchmarkItemPageSlowRedis -benchtime 2s
//	REDIS_URL=redis://127.0.0.1:6379/4 go test ./handlers -run '^$' -bench BenchmarkItemPageSlowRedis -benchtime 2s
func BenchmarkItemPageSlowRedis(b *testing.B) {
	if storetest.Backend() == platform.ModeCluster {
		b.Skip("the delaying proxy speaks to one server")
	}
	direct := storetest.Redis(b)
	addr, db := "", 0
	if mr := storetest.Miniredis(b); mr != nil {
		addr = mr.Addr()
	} else {
		o := direct.(*redis.Client).Options()
		addr, db = o.Addr, o.DB
	}
	rdb := redis.NewClient(&redis.Options{Addr: delayProxy(b, addr, time.Millisecond), DB: db})
	b.Cleanup(func() { rdb.Close() })
	st := wiring.New(rdb, storetest.DB(b), wiringtest.Options(), storetest.Logger(b))
	b.Cleanup(st.Close)
	if err := st.Migrate(b.Context()); err != nil {
		b.Fatal(err)
	}
	if _, err := st.SeedDemo(b.Context(), storetest.AdminPassword); err != nil {
		b.Fatal(err)
	}
	srv, cookie := benchServer(b, st)
	client := benchClient()
	hook := &countHook{}
	rdb.AddHook(hook)
	b.Run("redis-ping", func(b *testing.B) { // one round trip through the proxy, for scale
		for b.Loop() {
			if err := rdb.Ping(b.Context()).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tc := range []struct{ name, url, want string }{
		{"hit", srv.URL + "/items/7", "HIT"},
		{"uncached", srv.URL + "/items/7?_=1", "BYPASS"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			hook.n.Store(0)
			for b.Loop() {
				if _, x := fetch(b, client, tc.url, cookie); x != tc.want {
					b.Fatalf("X-Cache %s, want %s", x, tc.want)
				}
			}
			b.ReportMetric(float64(hook.n.Load())/float64(b.N), "redis-trips/op")
		})
	}
}

// delayProxy forwards TCP to addr, holding each read from the client for
// d before passing it on: every Redis round trip costs d more.
func delayProxy(b *testing.B, addr string, d time.Duration) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	b.Cleanup(func() { cancel(); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", addr)
			if err != nil {
				in.Close()
				continue
			}
			wg.Add(2)
			go func() { // client -> server, delayed
				defer wg.Done()
				defer out.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := in.Read(buf)
					if n > 0 {
						select {
						case <-ctx.Done():
							return
						case <-time.After(d):
						}
						if _, werr := out.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() { // server -> client
				defer wg.Done()
				defer in.Close()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
	return ln.Addr().String()
}
