package stats

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/analytics"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/pagecache"
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
	Popular  []analytics.ItemViews // the top of `viewed:`, most viewed first
	Rows     []catalog.RowReport   // scheduled rows, soonest due first
	RowCount int64                 // all scheduled rows (Rows holds the first few)
	Workers  []WorkerReport
	Redis    RedisInfo
	DBKind   string
	DBSize   int64 // bytes; -1 when it could not be read
	History  []StatsSample
}

// PageCacheReport is the page cache's totals across instances.
type PageCacheReport struct {
	pagecache.Counts
	Keyspace Keyspace // pages cached and their bytes, carts
	TopHits  []pagecache.ItemHits
}

// SessionReport is the sessions now and what the cleanup did.
type SessionReport struct {
	Total, SignedIn, Guests int64
	Evicted                 int64 // by the cleanup worker so far, all instances
	Cleanup                 workers.Status
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
func (s *Service) Dashboard(ctx context.Context) (Dashboard, error) {
	now := s.clock.Now()
	names := s.workerNames()
	pipe := s.rdb.Pipeline()
	page := pagecache.AddCounts(ctx, pipe)
	hits := pagecache.AddTopHits(ctx, pipe, dashTopHits)
	ks := pipe.HMGet(ctx, keys.KeyspaceScan, "pages", "page_bytes", "carts", "at")
	counts := sessions.AddCounts(ctx, pipe)
	popular := analytics.AddTop(ctx, pipe, dashPopular)
	sched := catalog.AddSchedule(ctx, pipe, dashRows)
	reports := workers.AddReports(ctx, pipe, names)
	cleanup := workers.AddReports(ctx, pipe, []string{keys.LeaseCleanup})
	since := strconv.FormatFloat(float64(now.Add(-dashHistory).UnixMilli())/1e3, 'f', 3, 64)
	history := pipe.ZRangeByScore(ctx, keys.StatsSamples, &redis.ZRangeBy{Min: since, Max: "+inf"})
	if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
		return Dashboard{}, fmt.Errorf("dashboard: %w", platform.RealErr(cmds, err))
	}

	d := Dashboard{At: now, Popular: popular.Items(), RowCount: sched.Count(), DBKind: s.dbKind,
		History: parseSamples(history.Val())}
	d.Page = PageCacheReport{Counts: page.Counts(), Keyspace: keyspaceOf(ks.Val()), TopHits: hits.Items()}
	statuses, holders := reports.Statuses()
	for i, st := range statuses {
		d.Workers = append(d.Workers, WorkerReport{Status: st, Holder: holders[i], Leased: leasedWorkers[st.Name]})
	}
	cleanupStatus, _ := cleanup.Statuses()
	d.Sessions.Cleanup = cleanupStatus[0]
	d.Sessions.Total, d.Sessions.SignedIn, d.Sessions.Guests = counts.Total(), counts.SignedIn(), counts.Guests()
	d.Sessions.Evicted = d.Sessions.Cleanup.Totals[evictedCount]

	var err error
	if d.Rows, err = s.catalog.RowReports(ctx, sched); err != nil {
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
