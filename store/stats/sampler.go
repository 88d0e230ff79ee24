package stats

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/pagecache"
	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/store/workers"
)

// The dashboard's history: a stats worker, once across instances (the
// `stats` lease), records a sample of the shared counters every
// StatsInterval into a capped sorted set that every instance reads, so
// that the charts are the same whichever instance draws them.
const (
	// DefaultInterval and DefaultScanInterval are the sampling and the
	// keyspace scan intervals when Options leave them 0.
	DefaultInterval     = 10 * time.Second
	DefaultScanInterval = time.Minute
	// minStatsLease is the shortest stats lease: the holder renews it every
	// interval, and a short interval must not let a slow tick hand the
	// lease over (samples would come from two instances).
	minStatsLease = 5 * time.Second
	// statsKeep is how much history is kept: the charts show the last hour.
	statsKeep = time.Hour + 5*time.Minute
	// maxSamples caps the history whatever the interval (tests sample fast).
	maxSamples = 2000
	// scanCount is the COUNT hint of each SCAN step of the keyspace scan.
	scanCount = 1000
)

// StatsSample is one point of the dashboard's history: the page cache's
// totals so far and the sessions at that moment.
type StatsSample struct {
	At                          time.Time
	Hits, Misses, Stale, Bypass int64
	Sessions, SignedIn, Guests  int64
	Instance                    string // the instance that took it
}

// sampleJSON is a sample as stored: short names, since an hour of samples
// is read on every dashboard view.
type sampleJSON struct {
	T int64  `json:"t"` // Unix milliseconds
	H int64  `json:"h"`
	M int64  `json:"m"`
	S int64  `json:"s"`
	B int64  `json:"b"`
	N int64  `json:"n"`
	U int64  `json:"u"`
	G int64  `json:"g"`
	I string `json:"i"`
}

// SampleStats records one sample of the shared counters and returns it.
// The stats worker calls it on the instance holding the lease; tests call
// it directly.
func (s *Service) SampleStats(ctx context.Context) (StatsSample, error) {
	smp, _, err := s.sampleStats(ctx)
	return smp, err
}

// sampleStats is SampleStats, also saying whether a keyspace scan is due:
// KeyspaceScanInterval after the last one, and never sooner than ten times
// the last one took, so that scanning a big keyspace stays a small share of
// the server's time.
func (s *Service) sampleStats(ctx context.Context) (StatsSample, bool, error) {
	pipe := s.rdb.Pipeline()
	page := pagecache.AddCounts(ctx, pipe)
	sess := sessions.AddCounts(ctx, pipe)
	scanned := pipe.HMGet(ctx, keys.KeyspaceScan, "at", "took")
	if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
		return StatsSample{}, false, fmt.Errorf("sample stats: %w", platform.RealErr(cmds, err))
	}
	now := s.clock.Now()
	c := page.Counts()
	smp := StatsSample{At: now, Hits: c.Hits, Misses: c.Misses, Stale: c.Stale, Bypass: c.Bypass,
		Sessions: sess.Total(), SignedIn: sess.SignedIn(), Guests: sess.Guests(), Instance: s.instance}
	b, _ := json.Marshal(sampleJSON{T: now.UnixMilli(), H: smp.Hits, M: smp.Misses, S: smp.Stale, B: smp.Bypass,
		N: smp.Sessions, U: smp.SignedIn, G: smp.Guests, I: s.instance})
	t := float64(now.UnixMilli()) / 1e3
	pipe = s.rdb.Pipeline()
	pipe.ZAdd(ctx, keys.StatsSamples, redis.Z{Score: t, Member: string(b)})
	pipe.ZRemRangeByScore(ctx, keys.StatsSamples, "-inf", "("+strconv.FormatFloat(t-statsKeep.Seconds(), 'f', 3, 64))
	pipe.ZRemRangeByRank(ctx, keys.StatsSamples, 0, -maxSamples-1)
	pagecache.AddTrimHits(ctx, pipe)
	if _, err := pipe.Exec(ctx); err != nil {
		return StatsSample{}, false, fmt.Errorf("sample stats: %w", err)
	}
	last := platform.Ints(scanned.Val(), 2)
	wait := max(s.opt.KeyspaceScanInterval, 10*time.Duration(last[1])*time.Millisecond)
	return smp, now.Sub(time.UnixMilli(last[0])) >= wait, nil
}

// StatsHistory returns the samples taken since the given time, oldest first.
func (s *Service) StatsHistory(ctx context.Context, since time.Time) ([]StatsSample, error) {
	min := strconv.FormatFloat(float64(since.UnixMilli())/1e3, 'f', 3, 64)
	vals, err := s.rdb.ZRangeByScore(ctx, keys.StatsSamples, &redis.ZRangeBy{Min: min, Max: "+inf"}).Result()
	if err != nil {
		return nil, fmt.Errorf("stats history: %w", err)
	}
	return parseSamples(vals), nil
}

func parseSamples(vals []string) []StatsSample {
	out := make([]StatsSample, 0, len(vals))
	for _, v := range vals {
		var j sampleJSON
		if json.Unmarshal([]byte(v), &j) != nil {
			continue
		}
		out = append(out, StatsSample{At: time.UnixMilli(j.T), Hits: j.H, Misses: j.M, Stale: j.S, Bypass: j.B,
			Sessions: j.N, SignedIn: j.U, Guests: j.G, Instance: j.I})
	}
	return out
}

// Keyspace is what a scan of the keyspace found: cached pages, their
// bytes, and carts (the non-empty ones, guests' and accounts').
type Keyspace struct {
	Pages, PageBytes, Carts int64
	At                      time.Time // zero when no scan ran yet
}

// ScanKeyspace counts the cached pages (and their bytes) and the carts by
// scanning every master, and keeps the result in `stats:keyspace`. Nothing
// indexes these keys (pages expire on their own), so a scan is the honest
// count; it costs the server a pass over the keyspace in small SCAN steps,
// which is why the stats worker does it once per KeyspaceScanInterval (or
// less often, see sampleStats), on one instance, beside its sampling.
func (s *Service) ScanKeyspace(ctx context.Context) (Keyspace, error) {
	start := time.Now()
	var ks Keyspace
	var mu sync.Mutex // ForEachMaster runs fn on the masters at once
	err := platform.ForEachMaster(ctx, s.rdb, func(ctx context.Context, c redis.UniversalClient) error {
		n, err := scanServer(ctx, c)
		if err == nil {
			mu.Lock()
			ks.Pages, ks.PageBytes, ks.Carts = ks.Pages+n.Pages, ks.PageBytes+n.PageBytes, ks.Carts+n.Carts
			mu.Unlock()
		}
		return err
	})
	if err != nil {
		return Keyspace{}, fmt.Errorf("scan keyspace: %w", err)
	}
	ks.At = s.clock.Now()
	err = s.rdb.HSet(ctx, keys.KeyspaceScan, "pages", ks.Pages, "page_bytes", ks.PageBytes, "carts", ks.Carts,
		"at", ks.At.UnixMilli(), "took", time.Since(start).Milliseconds()).Err()
	if err != nil {
		return Keyspace{}, fmt.Errorf("scan keyspace: %w", err)
	}
	return ks, nil
}

// scanServer counts pages, page bytes and carts on one server.
func scanServer(ctx context.Context, c redis.UniversalClient) (Keyspace, error) {
	var ks Keyspace
	var cursor uint64
	for {
		found, next, err := c.Scan(ctx, cursor, keys.PagesAndCarts, scanCount).Result()
		if err != nil {
			return ks, err
		}
		pipe := c.Pipeline()
		var sizes []*redis.IntCmd
		for _, k := range found {
			switch {
			case keys.IsPage(k):
				sizes = append(sizes, pipe.StrLen(ctx, k))
			case keys.IsCart(k):
				ks.Carts++
			}
		}
		if len(sizes) > 0 {
			if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
				return ks, platform.RealErr(cmds, err)
			}
			for _, sz := range sizes {
				if n := sz.Val(); n > 0 { // 0: the page expired meanwhile
					ks.Pages++
					ks.PageBytes += n
				}
			}
		}
		if cursor = next; cursor == 0 {
			return ks, nil
		}
	}
}

// LastKeyspace returns the last keyspace scan's result.
func (s *Service) LastKeyspace(ctx context.Context) (Keyspace, error) {
	vals, err := s.rdb.HMGet(ctx, keys.KeyspaceScan, "pages", "page_bytes", "carts", "at").Result()
	if err != nil {
		return Keyspace{}, fmt.Errorf("keyspace: %w", err)
	}
	return keyspaceOf(vals), nil
}

func keyspaceOf(vals []any) Keyspace {
	n := platform.Ints(vals, 4)
	ks := Keyspace{Pages: n[0], PageBytes: n[1], Carts: n[2]}
	if n[3] > 0 {
		ks.At = time.UnixMilli(n[3])
	}
	return ks
}

// statsWorker takes the dashboard's samples on the instance that holds the
// `stats` lease, so that samples are not doubled with several instances,
// every StatsInterval. A due keyspace scan runs beside the sampling, so
// that a long scan leaves no gap in the samples.
func (s *Service) statsWorker() workers.Worker {
	every := s.opt.StatsInterval
	var scans sync.WaitGroup
	var scanning atomic.Bool
	return s.host.Leased(workers.Leased{
		Name: keys.LeaseStats, Lease: max(3*every, minStatsLease), Every: every,
		Stop: scans.Wait,
		Pass: func(ctx context.Context) (workers.Run, bool) {
			smp, scan, err := s.sampleStats(ctx)
			if ctx.Err() != nil {
				return workers.Run{}, false
			}
			if scan && scanning.CompareAndSwap(false, true) {
				scans.Add(1)
				go func() {
					defer scans.Done()
					defer scanning.Store(false)
					if _, err := s.ScanKeyspace(ctx); err != nil && ctx.Err() == nil {
						s.log.Warn("keyspace scan failed", "err", err)
					}
				}()
			}
			return workers.Run{Result: fmt.Sprintf("sampled: sessions %d, page hits so far %d", smp.Sessions, smp.Hits), Err: err}, false
		},
	})
}
