package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/wiring"
)

// TestDashboardWorkload runs a scripted workload over two instances of the
// app that share one Redis and one database: 3 misses on the first, then
// 5 hits on the second. Both dashboards and both /metrics pages show the
// same totals and a 5/8 hit ratio; each instance's own counters show its
// own share.
func TestDashboardWorkload(t *testing.T) {
	a := newApp(t, nil, nil)
	b := a.second(t)
	ctx := t.Context()
	// Items 11, 12 and 13 are popular already (ranked in viewed:), so their
	// pages are cached from the first view.
	for i, id := range []string{"11", "12", "13"} {
		if err := a.store.Redis().ZAdd(ctx, keys.ViewRanking, redis.Z{Score: -float64(100 - i), Member: id}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.store.Stats.SampleStats(ctx); err != nil { // the chart's starting point
		t.Fatal(err)
	}

	shopper := a.client()
	view := func(c *client, id, want string) {
		t.Helper()
		res := c.Get("/items/" + id)
		if res.Status != http.StatusOK {
			t.Fatalf("item %s: %d", id, res.Status)
		}
		if got := res.Header.Get("X-Cache"); got != want {
			t.Fatalf("item %s on %s: X-Cache %q, want %q", id, c.a.srv.URL, got, want)
		}
	}
	for _, id := range []string{"11", "12", "13"} {
		view(shopper, id, "MISS")
	}
	for _, id := range []string{"11", "12", "13", "11", "12"} {
		view(shopper.on(b), id, "HIT")
	}
	if err := b.store.Pages.FlushWrites(ctx); err != nil { // hits are counted behind
		t.Fatal(err)
	}
	if _, err := b.store.Stats.SampleStats(ctx); err != nil {
		t.Fatal(err)
	}

	admin := a.client()
	admin.signInAdmin()
	for _, x := range []*app{a, b} {
		res := admin.on(x).Get("/admin/system")
		if res.Status != http.StatusOK {
			t.Fatalf("dashboard on %s: %d", x.srv.URL, res.Status)
		}
		for name, want := range map[string]string{"hit": "5", "miss": "3", "stale": "0", "bypass": "0", "ratio": "62.5%"} {
			if got := stat(t, res.Body, "cache-stats", name); got != want {
				t.Errorf("dashboard on %s: %s = %q, want %q", x.srv.URL, name, got, want)
			}
		}
		mustContain(t, res.Body, "5 of 8 lookups")
		if got := listItems(t, res.Body, "most-hit"); strings.Join(got, ",") != "11,12,13" && strings.Join(got, ",") != "12,11,13" {
			t.Errorf("most-hit items %v, want 11 and 12 (2 hits each), then 13", got)
		}
		for name, want := range map[string]string{"total": "2", "signed-in": "1", "guests": "1"} {
			if got := stat(t, res.Body, "session-stats", name); got != want {
				t.Errorf("sessions %s = %q, want %q", name, got, want)
			}
		}
		// The chart drew the interval of the workload.
		mustContain(t, res.Body, "latest 62.5%")

		m := admin.on(x).Get("/metrics").Body
		for series, want := range map[string]string{
			`storefront_shared_page_cache_requests_total{result="hit"}`:  "5",
			`storefront_shared_page_cache_requests_total{result="miss"}`: "3",
			`storefront_sessions_signed_in`:                              "1",
			`storefront_sessions_guests`:                                 "1",
		} {
			if got := metricValue(m, series); got != want {
				t.Errorf("/metrics on %s: %s = %q, want %q", x.srv.URL, series, got, want)
			}
		}
	}
	// Each instance counts what it served.
	for x, want := range map[*app][2]string{a: {"0", "3"}, b: {"5", "0"}} {
		m := x.scrape(t)
		hit := metricValue(m, `storefront_page_cache_requests_total{result="hit"}`)
		miss := metricValue(m, `storefront_page_cache_requests_total{result="miss"}`)
		if hit != want[0] || miss != want[1] {
			t.Errorf("/metrics on %s: this instance's hits %q, misses %q, want %q and %q", x.srv.URL, hit, miss, want[0], want[1])
		}
	}
}

// TestDashboardCharts draws the charts from samples taken over half an
// hour: a line for the hit ratio, two for the sessions, the numbers in
// words, and a table of them.
func TestDashboardCharts(t *testing.T) {
	a := newApp(t, nil, nil)
	ctx := t.Context()
	rdb := a.store.Redis()
	start := time.Now().Add(-30 * time.Minute)
	for i := range 31 {
		at := start.Add(time.Duration(i) * time.Minute)
		if i > 0 && i != 10 { // no traffic in the tenth minute: a gap
			rdb.HIncrBy(ctx, keys.PageStats, "hit", 5)
			rdb.HIncrBy(ctx, keys.PageStats, "miss", 3)
		}
		if err := a.store.Sessions.CreateSession(ctx, "tok"+itoa(int64(i)), int64(i%2)); err != nil {
			t.Fatal(err)
		}
		a.store.SetClock(func() time.Time { return at })
		if _, err := a.store.Stats.SampleStats(ctx); err != nil {
			t.Fatal(err)
		}
	}
	a.store.SetClock(time.Now)
	admin := a.client()
	admin.signInAdmin()
	res := admin.Get("/admin/system")
	if res.Status != http.StatusOK {
		t.Fatalf("dashboard: %d", res.Status)
	}
	hits := svgOf(t, res.Body, "chart-hits")
	if n := strings.Count(hits, "<polyline"); n != 2 {
		t.Errorf("hit ratio chart has %d lines, want 2 (split by the quiet minute)", n)
	}
	mustContain(t, hits, `role="img"`, `aria-labelledby="chart-hits-title chart-hits-desc"`, "<title", "<desc",
		"latest 62.5%, lowest 62.5%, highest 62.5%", "Over the hour 62.5% of 232 lookups")
	sessions := svgOf(t, res.Body, "chart-sessions")
	if n := strings.Count(sessions, "<polyline"); n != 2 {
		t.Errorf("sessions chart has %d lines, want all sessions and signed in", n)
	}
	mustContain(t, sessions, "Sessions at the last sample: 31 (15 signed in); lowest 1, highest 31")
	// The numbers as text: a row every 5 minutes, newest first.
	mustContain(t, res.Body, "The charts' numbers", "<td class=\"num\">62.5%</td>")
	if strings.Contains(res.Body, " style=") {
		t.Error("the page uses style attributes, which the CSP forbids")
	}
}

// svgOf returns the <svg> whose title id starts with id.
func svgOf(t *testing.T, body, id string) string {
	t.Helper()
	i := strings.Index(body, `aria-labelledby="`+id+`-title`)
	if i < 0 {
		t.Fatalf("no chart %s", id)
	}
	start := strings.LastIndex(body[:i], "<svg")
	end := strings.Index(body[i:], "</svg>")
	return body[start : i+end]
}

// TestAdminMetrics checks the operators' series on /metrics: worker runs,
// the Redis pool, and the shared numbers read from Redis.
func TestAdminMetrics(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.StatsInterval = 10 * time.Millisecond }, nil)
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	for _, w := range a.store.Workers() {
		if w.Name() == "stats" {
			go func() { defer close(done); w.Run(ctx) }()
		}
	}
	// Wait for the worker's report and its keyspace scan (the page and
	// cart series come from the scan). One key per EXISTS: on a Cluster
	// the two live in different slots.
	exists := func(key string) bool { return a.store.Redis().Exists(t.Context(), key).Val() == 1 }
	storetest.Eventually(t, func() bool { return exists(keys.Worker(keys.LeaseStats)) && exists(keys.KeyspaceScan) },
		"the stats worker has not reported a run and a keyspace scan")
	stop()
	<-done
	m := a.scrape(t)
	if v := metricValue(m, `storefront_worker_runs_total{result="ok",worker="stats"}`); v == "" || v == "0" {
		t.Errorf("worker runs: %q", v)
	}
	for _, series := range []string{"storefront_redis_pool_hits_total", "storefront_redis_pool_misses_total",
		"storefront_redis_pool_timeouts_total", "storefront_redis_pool_conns", "storefront_redis_pool_idle_conns",
		"storefront_redis_pool_stale_conns_total", "storefront_redis_keys", "storefront_database_size_bytes",
		"storefront_viewed_items", "storefront_row_cache_rows", "storefront_carts", "storefront_page_cache_pages",
		"storefront_page_cache_bytes", `storefront_worker_last_run_timestamp_seconds{worker="stats"}`,
		`storefront_shared_page_cache_requests_total{result="hit"}`, `storefront_votes_total{dir="up"}`,
		`storefront_checkouts_total{result="ok"}`, "storefront_order_queue_depth"} {
		if metricValue(m, series) == "" {
			t.Errorf("/metrics has no %s", series)
		}
	}
}

// TestDashboardSessions lets the cleanup worker evict sessions over
// SESSION_LIMIT: the dashboard shows the evictions, the cleanup's last run
// and its lease holder, and /metrics the sessions and evictions.
func TestDashboardSessions(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SessionLimit = 3 }, nil)
	admin := a.client()
	admin.signInAdmin()
	for i := range 5 {
		if err := a.store.Sessions.CreateSession(t.Context(), "guest"+itoa(int64(i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	for _, w := range a.store.Workers() {
		if w.Name() == "cleanup" {
			go func() { defer close(done); w.Run(ctx) }()
		}
	}
	rdb := a.store.Redis()
	deadline := time.Now().Add(apptest.PollDeadline) // a bound, not a timing assertion
	for rdb.HGet(t.Context(), keys.Worker(keys.LeaseCleanup), "total:evicted").Val() != "3" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	res := admin.Get("/admin/system") // before the worker stops: it holds the lease
	stop()
	<-done
	if res.Status != http.StatusOK {
		t.Fatalf("dashboard: %d", res.Status)
	}
	for name, want := range map[string]string{"total": "3", "signed-in": "1", "guests": "2", "limit": "3", "evicted": "3"} {
		if got := stat(t, res.Body, "session-stats", name); got != want {
			t.Errorf("sessions %s = %q, want %q", name, got, want)
		}
	}
	if got := stat(t, res.Body, "session-stats", "cleanup"); got == "never" {
		t.Error("the cleanup's last run is not shown")
	}
	row := res.Body[strings.Index(res.Body, `data-worker="cleanup"`):]
	row = row[:strings.Index(row, "</tr>")]
	mustContain(t, row, a.store.Instance(), "evicted")
	m := a.scrape(t)
	for series, want := range map[string]string{"storefront_sessions": "3", "storefront_sessions_evicted_total": "3",
		`storefront_worker_runs_total{result="error",worker="cleanup"}`: ""} {
		if got := metricValue(m, series); got != want {
			t.Errorf("/metrics %s = %q, want %q", series, got, want)
		}
	}
}
