package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/storetest"
)

// BenchmarkDashboard serves GET /admin through the real router and store,
// with an hour of samples (360), 20 popular items, 10 most-hit items and 20
// scheduled rows behind it.
func BenchmarkDashboard(b *testing.B) {
	a := newBenchApp(b)
	ctx := b.Context()
	rdb := a.store.Redis()
	now := time.Now()
	for i := range 360 {
		rdb.HIncrBy(ctx, keys.PageStats, "hit", 5)
		rdb.HIncrBy(ctx, keys.PageStats, "miss", 3)
		a.store.SetClock(func() time.Time { return now.Add(time.Duration(i-360) * 10 * time.Second) })
		if _, err := a.store.Stats.SampleStats(ctx); err != nil {
			b.Fatal(err)
		}
	}
	a.store.SetClock(time.Now)
	for i := range 40 {
		id := fmt.Sprint(i + 1)
		rdb.ZAdd(ctx, keys.ViewRanking, redis.Z{Score: -float64(100 - i), Member: id})
		rdb.ZAdd(ctx, keys.PageHits, redis.Z{Score: float64(50 - i), Member: id})
		if i < 20 {
			rdb.ZAdd(ctx, keys.RowSchedule, redis.Z{Score: float64(now.Unix() + int64(i)), Member: id})
			rdb.ZAdd(ctx, keys.RowDelay, redis.Z{Score: 5, Member: id})
		}
	}
	router := a.h.Router()
	form := url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}
	req := httptest.NewRequest("POST", "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	rec := httptest.NewRecorder()
	router.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		b.Fatalf("sign in: %d", rec.Code)
	}
	cookies := rec.Result().Cookies()
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", "/admin/system", nil)
		for _, ck := range cookies {
			if ck.Name != "flash" {
				req.AddCookie(ck)
			}
		}
		rec := httptest.NewRecorder()
		router.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
}
