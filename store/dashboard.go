package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/analytics"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/store/workers"
)

// Sizes of the dashboard's lists.
const (
	dashTopHits  = 10
	dashPopular  = 20
	dashRows     = 50
	dashHistory  = time.Hour
	evictedCount = "evicted" // the cleanup's count in its worker report
)

// Dashboard is everything the admin dashboard shows, read from Redis and
// the database so that every instance shows the same numbers.
type Dashboard struct {
	At       time.Time
	Page     PageCacheReport
	Sessions SessionReport
	Popular  []ItemViews // the top of `viewed:`, most viewed first
	Rows     []RowReport // scheduled rows, soonest due first
	RowCount int64       // all scheduled rows (Rows holds the first few)
	Workers  []WorkerReport
	Redis    RedisInfo
	DBKind   string
	DBSize   int64 // bytes; -1 when it could not be read
	History  []StatsSample
}

// PageCacheReport is the page cache's totals across instances.
type PageCacheReport struct {
	Hits, Misses, Stale, Bypass, Renders int64
	Keyspace                             Keyspace // pages cached and their bytes, carts
	TopHits                              []ItemHits
}

// Lookups are the requests that looked for a cached page.
func (p PageCacheReport) Lookups() int64 { return p.Hits + p.Misses + p.Stale }

// ItemHits is an item and how many of its pages were served from the cache.
type ItemHits struct {
	ItemID int64
	Hits   int64
}

// SessionReport is the sessions now and what the cleanup did.
type SessionReport struct {
	Total, SignedIn, Guests int64
	Evicted                 int64 // by the cleanup worker so far, all instances
	Cleanup                 workers.Status
}

// RowReport is one scheduled row of the row cache.
type RowReport struct {
	ItemID      int64
	Delay       float64 // seconds; 0 when missing (the worker will drop it)
	Next        time.Time
	LastRefresh time.Time // zero when not cached yet
}

// WorkerReport is a worker's last report and who holds its lease ("" for
// workers that run on every instance or when nobody holds it).
type WorkerReport struct {
	workers.Status
	Holder string
	// Leased says the worker runs on one instance at a time, under a lease
	// of its name; other workers run on every instance.
	Leased bool
}

// leasedWorkers are the workers that take a lease of their own name.
var leasedWorkers = map[string]bool{keys.LeaseCleanup: true, keys.LeaseRescale: true, keys.LeaseStats: true}

// Dashboard reads the dashboard: one pipelined round trip for the
// counters, lists and reports, one for the scheduled rows' details, INFO
// and DBSIZE per Redis master, and the database's size.
func (s *Store) Dashboard(ctx context.Context) (Dashboard, error) {
	now := s.clock.Now()
	names := s.workerNames()
	pipe := s.rdb.Pipeline()
	page := pipe.HMGet(ctx, keys.PageStats, append(pageStatFields, "renders")...)
	hits := pipe.ZRevRangeWithScores(ctx, keys.PageHits, 0, dashTopHits-1)
	ks := pipe.HMGet(ctx, keys.KeyspaceScan, "pages", "page_bytes", "carts", "at")
	counts := sessions.AddCounts(ctx, pipe)
	popular := pipe.ZRangeWithScores(ctx, keys.ViewRanking, 0, dashPopular-1)
	sched, rowCount := pipe.ZRangeWithScores(ctx, keys.RowSchedule, 0, dashRows-1), pipe.ZCard(ctx, keys.RowSchedule)
	reports := make([]*redis.MapStringStringCmd, len(names))
	leases := make([]*redis.StringCmd, len(names))
	for i, n := range names {
		reports[i], leases[i] = pipe.HGetAll(ctx, keys.Worker(n)), pipe.Get(ctx, keys.Lease(n))
	}
	cleanup := pipe.HGetAll(ctx, keys.Worker(keys.LeaseCleanup))
	since := strconv.FormatFloat(float64(now.Add(-dashHistory).UnixMilli())/1e3, 'f', 3, 64)
	history := pipe.ZRangeByScore(ctx, keys.StatsSamples, &redis.ZRangeBy{Min: since, Max: "+inf"})
	if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
		return Dashboard{}, fmt.Errorf("dashboard: %w", platform.RealErr(cmds, err))
	}

	d := Dashboard{At: now, Popular: analytics.ItemViewsOf(popular.Val()), RowCount: rowCount.Val(), DBKind: s.dbKind,
		History: parseSamples(history.Val())}
	c := hashInts(page.Val())
	d.Page = PageCacheReport{Hits: c[0], Misses: c[1], Stale: c[2], Bypass: c[3], Renders: c[4], Keyspace: keyspaceOf(ks.Val())}
	for _, z := range hits.Val() {
		if id, err := strconv.ParseInt(fmt.Sprint(z.Member), 10, 64); err == nil && z.Score > 0 {
			d.Page.TopHits = append(d.Page.TopHits, ItemHits{ItemID: id, Hits: int64(z.Score)})
		}
	}
	for i, n := range names {
		w := WorkerReport{Status: workers.StatusOf(n, reports[i].Val()), Holder: leases[i].Val(), Leased: leasedWorkers[n]}
		d.Workers = append(d.Workers, w)
	}
	d.Sessions.Cleanup = workers.StatusOf(keys.LeaseCleanup, cleanup.Val())
	d.Sessions.Total, d.Sessions.SignedIn, d.Sessions.Guests = counts.Total(), counts.SignedIn(), counts.Guests()
	d.Sessions.Evicted = d.Sessions.Cleanup.Totals[evictedCount]

	var err error
	if d.Rows, err = s.rowReports(ctx, sched.Val()); err != nil {
		return Dashboard{}, err
	}
	if d.Redis, err = s.RedisInfo(ctx); err != nil {
		return Dashboard{}, err
	}
	if d.DBSize, err = s.DatabaseSize(ctx); err != nil {
		return Dashboard{}, err
	}
	return d, nil
}

// rowReports adds each scheduled row's delay and last refresh (the
// `cached_at` of its inv:<id>) in one round trip.
func (s *Store) rowReports(ctx context.Context, sched []redis.Z) ([]RowReport, error) {
	if len(sched) == 0 {
		return nil, nil
	}
	pipe := s.rdb.Pipeline()
	delays := make([]*redis.FloatCmd, len(sched))
	rows := make([]*redis.StringCmd, len(sched))
	out := make([]RowReport, len(sched))
	for i, z := range sched {
		member := fmt.Sprint(z.Member)
		out[i].ItemID, _ = strconv.ParseInt(member, 10, 64)
		out[i].Next = time.UnixMicro(int64(z.Score * 1e6))
		delays[i] = pipe.ZScore(ctx, keys.RowDelay, member)
		rows[i] = pipe.Get(ctx, keys.RowCache(out[i].ItemID))
	}
	if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
		return nil, fmt.Errorf("dashboard rows: %w", platform.RealErr(cmds, err))
	}
	for i := range out {
		out[i].Delay = delays[i].Val()
		var row struct {
			CachedAt float64 `json:"cached_at"`
		}
		if b, err := rows[i].Bytes(); err == nil && json.Unmarshal(b, &row) == nil && row.CachedAt > 0 {
			out[i].LastRefresh = time.UnixMicro(int64(row.CachedAt * 1e6))
		}
	}
	return out, nil
}
