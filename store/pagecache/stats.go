package pagecache

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// addPageHit queues the count of a page of itemID served from the cache
// (n = 1), or the correction of an optimistic count (n = -1). The page
// cache folds it into the round trip it already makes, so it costs nothing.
func addPageHit(ctx context.Context, pipe redis.Pipeliner, itemID, n int64) {
	pipe.ZIncrBy(ctx, keys.PageHits, float64(n), strconv.FormatInt(itemID, 10))
}

// Counts are the page cache's totals across instances.
type Counts struct {
	Hits, Misses, Stale, Bypass, Renders int64
}

// Lookups are the requests that looked for a cached page.
func (c Counts) Lookups() int64 { return c.Hits + c.Misses + c.Stale }

// CountsRead is a queued read of the totals.
type CountsRead struct{ cmd *redis.SliceCmd }

// AddCounts queues the read of the page cache's totals on pipe (the
// dashboard, the shared metrics and the stats sampler read them beside
// other numbers).
func AddCounts(ctx context.Context, pipe redis.Pipeliner) CountsRead {
	return CountsRead{cmd: pipe.HMGet(ctx, keys.PageStats, PageHit, PageMiss, PageStale, PageBypass, "renders")}
}

// Counts are the totals once the pipeline ran (0 for counters never set).
func (r CountsRead) Counts() Counts {
	n := platform.Ints(r.cmd.Val(), 5)
	return Counts{Hits: n[0], Misses: n[1], Stale: n[2], Bypass: n[3], Renders: n[4]}
}

// ItemHits is an item and how many of its pages were served from the cache.
type ItemHits struct {
	ItemID int64
	Hits   int64
}

// TopHitsRead is a queued read of the most-hit items.
type TopHitsRead struct{ cmd *redis.ZSliceCmd }

// AddTopHits queues the read of the n most-hit items on pipe.
func AddTopHits(ctx context.Context, pipe redis.Pipeliner, n int64) TopHitsRead {
	return TopHitsRead{cmd: pipe.ZRevRangeWithScores(ctx, keys.PageHits, 0, n-1)}
}

// Items are the most-hit items once the pipeline ran, most first.
func (r TopHitsRead) Items() []ItemHits {
	var out []ItemHits
	for _, z := range r.cmd.Val() {
		if id, err := strconv.ParseInt(fmt.Sprint(z.Member), 10, 64); err == nil && z.Score > 0 {
			out = append(out, ItemHits{ItemID: id, Hits: int64(z.Score)})
		}
	}
	return out
}

// maxHitItems caps `stats:pagehits` at the most-hit items.
const maxHitItems = 1000

// AddTrimHits queues, on pipe, the upkeep of the most-hit list: requests
// for items that do not exist leave a corrected count of 0, and beyond the
// most-hit maxHitItems nobody looks. The stats sampler runs it, once
// across instances.
func AddTrimHits(ctx context.Context, pipe redis.Pipeliner) {
	pipe.ZRemRangeByScore(ctx, keys.PageHits, "-inf", "0")
	pipe.ZRemRangeByRank(ctx, keys.PageHits, 0, -maxHitItems-1)
}

// PageCacheStats returns the page cache counters shared by all instances
// (hit, miss, stale, bypass, renders).
func (s *Service) PageCacheStats(ctx context.Context) (map[string]int64, error) {
	m, err := s.rdb.HGetAll(ctx, keys.PageStats).Result()
	if err != nil {
		return nil, fmt.Errorf("page cache stats: %w", err)
	}
	out := map[string]int64{PageHit: 0, PageMiss: 0, PageStale: 0, PageBypass: 0, "renders": 0}
	for k, v := range m {
		out[k], _ = strconv.ParseInt(v, 10, 64)
	}
	return out, nil
}
