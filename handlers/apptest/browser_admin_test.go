package apptest_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"storefront/handlers/apptest"
	"storefront/store/keys"
)

// TestBrowserAdminDashboard signs the admin in through Chromium, looks at
// the dashboard with an hour of history behind its charts, uses a control
// and, with E2E_SCREENSHOTS=<dir>, saves <dir>/admin.png.
func TestBrowserAdminDashboard(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, nil)

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

	tab := b.tab(app)
	tab.do("viewport", chromedp.EmulateViewport(1280, 900))
	tab.navigate("/admin/system")
	tab.fill("#username", "admin")
	tab.fill("#password", app.AdminPassword)
	tab.click(`form[action="/login"] button[type=submit]`)
	for _, id := range []string{"cache-stats", "session-stats", "top-items", "row-cache", "workers"} {
		tab.waitFor(`[data-testid=` + id + `]`)
	}
	if lines := eval[int](tab, `document.querySelectorAll('svg.chart-svg polyline').length`); lines < 2 {
		t.Errorf("charts drew %d lines, want the hit ratio and two session lines", lines)
	}
	top := eval[[]string](tab, `Array.from(document.querySelectorAll('[data-testid=top-items] li')).map(e => e.dataset.itemId)`)
	if len(top) < 3 || strings.Join(top[:3], ",") != "7,3,12" {
		t.Errorf("top items %v, want 7, 3, 12 first", top)
	}
	// A control: schedule a row through the form; the flash confirms and
	// the row cache lists it.
	tab.do("schedule a row",
		chromedp.SetValue(chromedp.ID("row"), "5"),
		chromedp.SetValue(chromedp.ID("delay"), "30"),
		chromedp.Click(chromedp.CSS(`form[action="/admin/rowcache"] button[type=submit]`)),
	)
	tab.waitFor(`[data-testid=row-cache] li[data-item-id="5"]`)
	if flash := tab.text(`[data-testid=flash]`); !strings.Contains(flash, "Row 5 is cached") {
		t.Errorf("flash %q", flash)
	}
	tab.screenshot("admin")
}

// fakeHour fills the stats history with an hour of samples, as the stats
// worker would have taken them: traffic that rises and falls, a hit ratio
// that climbs as the cache warms, sessions that come and go.
func fakeHour(t *testing.T, app *browserApp) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	rdb, st := app.Store.Redis(), app.Store
	// The app's own stats worker sampled "now" on start; that history goes.
	if err := rdb.Del(ctx, keys.StatsSamples).Err(); err != nil {
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
		st.SetClock(func() time.Time { return at })
		pipe := rdb.Pipeline()
		pipe.HIncrBy(ctx, keys.PageStats, "hit", hits)
		pipe.HIncrBy(ctx, keys.PageStats, "miss", lookups-hits)
		sessions := int(120 + 60*wave + float64(i)/3)
		for j := range 3 {
			tok := fmt.Sprintf("fake-%d-%d", i, j)
			var user int64
			if j == 0 && i%3 == 0 {
				user = 1
			}
			if err := st.Sessions.CreateSession(ctx, tok, user); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		// Keep about `sessions` of the fake ones, oldest out first.
		old, err := rdb.ZRange(ctx, keys.Recent, 0, int64(-sessions-1)).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(old) > 0 {
			pipe := rdb.Pipeline()
			pipe.HDel(ctx, keys.Login, old...)
			pipe.ZRem(ctx, keys.Recent, toAny(old)...)
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		st.SetClock(func() time.Time { return at })
		if _, err := st.Stats.SampleStats(ctx); err != nil {
			t.Fatal(err)
		}
	}
	st.SetClock(time.Now)
	if _, err := st.Stats.ScanKeyspace(ctx); err != nil {
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
