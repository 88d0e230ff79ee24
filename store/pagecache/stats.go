package pagecache

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
)

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

// addPageHit queues the count of a page of itemID served from the cache
// (n = 1), or the correction of an optimistic count (n = -1). The page
// cache folds it into the round trip it already makes, so it costs nothing.
func addPageHit(ctx context.Context, pipe redis.Pipeliner, itemID, n int64) {
	pipe.ZIncrBy(ctx, keys.PageHits, float64(n), strconv.FormatInt(itemID, 10))
}
