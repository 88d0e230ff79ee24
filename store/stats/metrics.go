package stats

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"storefront/store/analytics"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/pagecache"
	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/store/workers"
)

// sharedCollector exposes the dashboard's numbers that live in Redis and
// the database, read at scrape time within scrapeTimeout. Being shared,
// they are the same on every instance: a sum across instances counts them
// several times (use max, or scrape one instance).
type sharedCollector struct{ s *Service }

var sharedDescs = struct {
	requests, renders, signedIn, guests, carts, pages, pageBytes, viewed, rows, workerRun, redisKeys, redisMem, dbSize *prometheus.Desc
}{
	requests: prometheus.NewDesc("storefront_shared_page_cache_requests_total",
		"Item page requests by page cache result, counted by all instances together (Redis stats:pagecache).", []string{"result"}, nil),
	renders: prometheus.NewDesc("storefront_shared_page_renders_total",
		"Item pages rendered from the database by all instances together (Redis stats:pagecache).", nil, nil),
	signedIn:  prometheus.NewDesc("storefront_sessions_signed_in", "Signed-in sessions (HLEN login:).", nil, nil),
	guests:    prometheus.NewDesc("storefront_sessions_guests", "Guest sessions (the guests' part of recent:).", nil, nil),
	carts:     prometheus.NewDesc("storefront_carts", "Non-empty carts, guests' and accounts', at the last keyspace scan.", nil, nil),
	pages:     prometheus.NewDesc("storefront_page_cache_pages", "Cached pages, at the last keyspace scan.", nil, nil),
	pageBytes: prometheus.NewDesc("storefront_page_cache_bytes", "Bytes of cached pages, at the last keyspace scan.", nil, nil),
	viewed:    prometheus.NewDesc("storefront_viewed_items", "Items in the view ranking (ZCARD viewed:).", nil, nil),
	rows:      prometheus.NewDesc("storefront_row_cache_rows", "Rows scheduled in the row cache (ZCARD schedule:).", nil, nil),
	workerRun: prometheus.NewDesc("storefront_worker_last_run_timestamp_seconds",
		"When a background worker last reported a run, on any instance.", []string{"worker"}, nil),
	redisKeys: prometheus.NewDesc("storefront_redis_keys", "Keys in the shop's Redis database (all masters).", nil, nil),
	redisMem:  prometheus.NewDesc("storefront_redis_used_memory_bytes", "Memory Redis uses (all masters).", nil, nil),
	dbSize:    prometheus.NewDesc("storefront_database_size_bytes", "Size of the SQL database.", nil, nil),
}

// Describe sends the shared series' descriptions.
func (sharedCollector) Describe(ch chan<- *prometheus.Desc) {
	d := sharedDescs
	for _, x := range []*prometheus.Desc{d.requests, d.renders, d.signedIn, d.guests, d.carts, d.pages, d.pageBytes,
		d.viewed, d.rows, d.workerRun, d.redisKeys, d.redisMem, d.dbSize} {
		ch <- x
	}
}

// Collect reads Redis in one pipelined round trip (plus INFO and DBSIZE per
// master) and the database size. A series whose read fails is left out of
// this scrape rather than failing the whole scrape.
func (c sharedCollector) Collect(ch chan<- prometheus.Metric) {
	s, d := c.s, sharedDescs
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	gauge := func(desc *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, labels...)
	}
	pipe := s.rdb.Pipeline()
	page := pagecache.AddCounts(ctx, pipe)
	sess := sessions.AddCounts(ctx, pipe)
	ks := pipe.HMGet(ctx, keys.KeyspaceScan, "pages", "page_bytes", "carts", "at")
	viewed := analytics.AddRankingSize(ctx, pipe)
	rows := catalog.AddSchedule(ctx, pipe, 0)
	names := s.workerNames()
	runs := workers.AddLastRuns(ctx, pipe, names)
	if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) == nil {
		c := page.Counts()
		for r, n := range map[string]int64{pagecache.PageHit: c.Hits, pagecache.PageMiss: c.Misses, pagecache.PageStale: c.Stale, pagecache.PageBypass: c.Bypass} {
			ch <- prometheus.MustNewConstMetric(d.requests, prometheus.CounterValue, float64(n), r)
		}
		ch <- prometheus.MustNewConstMetric(d.renders, prometheus.CounterValue, float64(c.Renders))
		gauge(d.signedIn, float64(sess.SignedIn()))
		gauge(d.guests, float64(sess.Guests()))
		if k := keyspaceOf(ks.Val()); !k.At.IsZero() {
			gauge(d.carts, float64(k.Carts))
			gauge(d.pages, float64(k.Pages))
			gauge(d.pageBytes, float64(k.PageBytes))
		}
		gauge(d.viewed, float64(viewed.Val()))
		gauge(d.rows, float64(rows.Count()))
		for i, n := range names {
			if t := workers.ParseRunTime(runs[i].Val()); !t.IsZero() {
				gauge(d.workerRun, float64(t.UnixMilli())/1e3, n)
			}
		}
	}
	if info, err := s.RedisInfo(ctx); err == nil {
		gauge(d.redisKeys, float64(info.Keys))
		if info.UsedMemory >= 0 {
			gauge(d.redisMem, float64(info.UsedMemory))
		}
	}
	if n, err := s.DatabaseSize(ctx); err == nil {
		gauge(d.dbSize, float64(n))
	}
}

// workerNames lists the background workers' names, without repeats.
func (s *Service) workerNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range s.workers {
		if n := w.Name(); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// SetWorkers tells the dashboard which background workers the shop runs
// (the wiring collects them, this service's own among them).
func (s *Service) SetWorkers(ws []workers.Worker) { s.workers = ws }
