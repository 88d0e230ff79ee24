package handlers_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"storefront/handlers"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

// tripCounter is a go-redis hook that counts round trips: each command
// sent alone and each pipeline (one write, one read) count once.
type tripCounter struct{ n atomic.Int64 }

func (c *tripCounter) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (c *tripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *tripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// BenchmarkItemViewSession serves item pages through the real router and
// store and reports allocations and Redis round trips per request, for a
// guest with a session, a signed-in shopper and a first-time visitor (whose
// view creates the session). Real Redis with REDIS_URL, else miniredis:
//
//	REDIS_URL=redis://127.0.0.1:6379/1 go test ./handlers -run '^$' -bench ItemViewSession
func BenchmarkItemViewSession(b *testing.B) {
	for _, kind := range []string{"guest", "signed-in", "new-visitor"} {
		b.Run(kind, func(b *testing.B) {
			st := wiringtest.New(b)
			h, err := handlers.New(testConfig(b), st, storetest.Logger(b))
			if err != nil {
				b.Fatal(err)
			}
			router := h.Router()
			var cookies []*http.Cookie
			switch kind {
			case "guest":
				rec := httptest.NewRecorder()
				router.ServeHTTP(rec, httptest.NewRequest("GET", "/items/1", nil))
				cookies = rec.Result().Cookies()
			case "signed-in":
				form := url.Values{"username": {"bencher"}, "password": {"correct horse battery"}, "email": {"bencher@example.com"}}
				req := httptest.NewRequest("POST", "/register", strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				rec := httptest.NewRecorder()
				router.ServeHTTP(rec, req)
				if rec.Code != http.StatusSeeOther {
					b.Fatalf("register: %d", rec.Code)
				}
				for _, ck := range rec.Result().Cookies() {
					if ck.Name == "sid" || ck.Name == "user" {
						cookies = append(cookies, ck)
					}
				}
			}
			trips := &tripCounter{}
			st.Redis().AddHook(trips)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				req := httptest.NewRequest("GET", "/items/"+strconv.Itoa(i%1000+1), nil)
				for _, ck := range cookies {
					req.AddCookie(ck)
				}
				rec := httptest.NewRecorder()
				router.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
			b.ReportMetric(float64(trips.n.Load())/float64(b.N), "roundtrips/op")
		})
	}
}
