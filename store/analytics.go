package store

import (
	"context"
	"fmt"
	"storefront/store/keys"
	"storefront/store/platform"

	"github.com/redis/go-redis/v9"
)

// ItemViews is an item and how many times it was viewed (after rescaling).
type ItemViews struct {
	ItemID int64
	Views  float64
}

// PopularItems returns the n most viewed items from `viewed:`, most viewed
// first (their scores are minus the view counts, so rank 0 is the top).
func (s *Store) PopularItems(ctx context.Context, n int64) ([]ItemViews, error) {
	zs, err := s.reader().ZRangeWithScores(ctx, keys.ViewRanking, 0, n-1).Result()
	if err != nil {
		return nil, fmt.Errorf("popular items: %w", err)
	}
	return itemViews(zs), nil
}

func itemViews(zs []redis.Z) []ItemViews {
	out := make([]ItemViews, 0, len(zs))
	for _, z := range zs {
		ids := platform.ParseIDs([]string{fmt.Sprint(z.Member)})
		if len(ids) == 1 {
			out = append(out, ItemViews{ItemID: ids[0], Views: -z.Score})
		}
	}
	return out
}
