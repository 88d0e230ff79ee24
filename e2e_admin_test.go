package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"storefront/store/storetest"
)

// TestBrowserAdminDashboard signs the admin in through Chromium, looks at
// the dashboard with an hour of history behind its charts, uses a control
// and, with E2E_SCREENSHOTS=<dir>, saves <dir>/admin.png.
func TestBrowserAdminDashboard(t *testing.T) {
	ctx := browser(t)
	app := startApp(t)

	// Some shoppers browse, so that the popular list and sessions are real.
	for i := range 6 {
		for _, id := range []int{3, 7, 7, 12, 3, 7}[:i+1] {
			res, err := http.Get(fmt.Sprintf("%s/items/%d", app.URL, id))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
		}
	}
	fakeHour(t, app)

	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	do("sign in",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(app.URL+"/admin"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), storetest.AdminPassword),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=cache-stats]`)),
	)
	for _, id := range []string{"session-stats", "top-items", "row-cache", "workers"} {
		do(id, chromedp.WaitVisible(chromedp.CSS(`[data-testid=`+id+`]`)))
	}
	lines, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('svg.chart-svg polyline').length`))
	if err != nil || lines < 2 {
		t.Errorf("charts drew %d lines (%v), want the hit ratio and two session lines", lines, err)
	}
	top, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('[data-testid=top-items] li')).map(e => e.dataset.itemId)`))
	if err != nil || len(top) < 3 || strings.Join(top[:3], ",") != "7,3,12" {
		t.Errorf("top items %v (%v), want 7, 3, 12 first", top, err)
	}
	// A control: schedule a row through the form; the flash confirms and
	// the row cache lists it.
	do("schedule a row",
		chromedp.SetValue(chromedp.ID("row"), "5"),
		chromedp.SetValue(chromedp.ID("delay"), "30"),
		chromedp.Click(chromedp.CSS(`form[action="/admin/rowcache"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=row-cache] li[data-item-id="5"]`)),
	)
	if flash, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid=flash]`))); err != nil || !strings.Contains(flash, "Row 5 is cached") {
		t.Errorf("flash %q (%v)", flash, err)
	}
	if dir := os.Getenv("E2E_SCREENSHOTS"); dir != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100 makes a PNG; lower is JPEG
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "admin.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeHour fills the stats history with an hour of samples, as the stats
// worker would have taken them: traffic that rises and falls, a hit ratio
// that climbs as the cache warms, sessions that come and go.
func fakeHour(t *testing.T, app *e2eApp) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	rdb, st := app.Store.Redis(), app.Store
	// The app's own stats worker sampled "now" on start; that history goes.
	if err := rdb.Del(ctx, "stats:samples").Err(); err != nil {
		t.Fatal(err)
	}
	end := time.Now()
	start := end.Add(-time.Hour)
	for i := 0; i <= 360; i++ {
		at := start.Add(time.Duration(i) * 10 * time.Second)
		wave := math.Sin(float64(i) / 40)
		lookups := int64(40 + 25*wave)
		ratio := 0.55 + 0.35*(1-math.Exp(-float64(i)/60)) + 0.04*math.Sin(float64(i)/7)
		hits := int64(float64(lookups) * ratio)
		pipe := rdb.Pipeline()
		pipe.HIncrBy(ctx, "stats:pagecache", "hit", hits)
		pipe.HIncrBy(ctx, "stats:pagecache", "miss", lookups-hits)
		sessions := int(120 + 60*wave + float64(i)/3)
		for j := range 3 {
			tok := fmt.Sprintf("fake-%d-%d", i, j)
			pipe.ZAdd(ctx, "recent:", redis.Z{Score: float64(at.Unix()), Member: tok})
			if j == 0 && i%3 == 0 {
				pipe.HSet(ctx, "login:", tok, 1)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		// Keep about `sessions` of the fake ones, oldest out first.
		old, err := rdb.ZRange(ctx, "recent:", 0, int64(-sessions-1)).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(old) > 0 {
			pipe := rdb.Pipeline()
			pipe.HDel(ctx, "login:", old...)
			pipe.ZRem(ctx, "recent:", toAny(old)...)
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		st.SetClock(func() time.Time { return at })
		if _, err := st.SampleStats(ctx); err != nil {
			t.Fatal(err)
		}
	}
	st.SetClock(time.Now)
	if _, err := st.ScanKeyspace(ctx); err != nil {
		t.Fatal(err)
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
