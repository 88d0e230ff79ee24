package analytics

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/workers"
)

// Service is the view analytics: the ranking, rescaling and the order
// statistics.
type Service struct {
	rdb    redis.UniversalClient
	log    *slog.Logger
	reader *platform.Reader
	host   *workers.Host
	opt    Options
}

// Options are the analytics' knobs.
type Options struct {
	ViewedKeep      int64         // items kept in the ranking at each rescale (VIEWED_KEEP)
	RescaleInterval time.Duration // how often counts are trimmed and halved (RESCALE_INTERVAL)
}

// New returns the analytics.
func New(b platform.Base, host *workers.Host, opt Options) *Service {
	return &Service{rdb: b.Redis, log: b.Log, reader: b.Reader, host: host, opt: opt}
}

// Workers returns the rescale loop, which runs on one instance at a time.
func (s *Service) Workers() []workers.Worker { return []workers.Worker{s.rescaleWorker()} }

// AddViews queues, on pipe, n views of an item: in the ranking `viewed:`
// (minus the count, so rank 0 is the most viewed) and in the item's own
// counter, which its page shows. Every path that records a view comes
// here, so that counting one costs no round trip of its own.
func AddViews(ctx context.Context, pipe redis.Pipeliner, itemID, n int64) {
	pipe.ZIncrBy(ctx, keys.ViewRanking, float64(-n), platform.FormatID(itemID))
	pipe.HIncrBy(ctx, keys.ItemCounts(itemID), "views", n)
}

// RankRead is a queued read of an item's place in the view ranking.
type RankRead struct{ cmd *redis.IntCmd }

// AddRank queues the read of an item's rank in `viewed:` on pipe.
func AddRank(ctx context.Context, pipe redis.Pipeliner, itemID int64) RankRead {
	return RankRead{cmd: pipe.ZRank(ctx, keys.ViewRanking, platform.FormatID(itemID))}
}

// Rank is the item's rank once the pipeline ran (0 = most viewed), or -1
// when it is not ranked.
func (r RankRead) Rank() int64 {
	n, err := r.cmd.Result()
	if err != nil {
		return -1
	}
	return n
}

// RankedIDs returns up to n item ids of the view ranking from rank start
// on, most viewed first.
func (s *Service) RankedIDs(ctx context.Context, start, n int64) ([]int64, error) {
	members, err := s.rdb.ZRange(ctx, keys.ViewRanking, start, start+n-1).Result()
	if err != nil {
		return nil, fmt.Errorf("view ranking: %w", err)
	}
	return platform.ParseIDs(members), nil
}

// ItemViews is an item and how many times it was viewed (after rescaling).
type ItemViews struct {
	ItemID int64
	Views  float64
}

// PopularItems returns the n most viewed items from `viewed:`, most viewed
// first (their scores are minus the view counts, so rank 0 is the top).
func (s *Service) PopularItems(ctx context.Context, n int64) ([]ItemViews, error) {
	var top *redis.ZSliceCmd
	err := s.reader.Read(ctx, func(c redis.Cmdable) error {
		top = c.ZRangeWithScores(ctx, keys.ViewRanking, 0, n-1)
		return platform.CmdErr(top)
	})
	zs := top.Val()
	if err != nil {
		return nil, fmt.Errorf("popular items: %w", err)
	}
	return ItemViewsOf(zs), nil
}

// ItemViewsOf reads a range of the view ranking read with its scores.
func ItemViewsOf(zs []redis.Z) []ItemViews {
	out := make([]ItemViews, 0, len(zs))
	for _, z := range zs {
		ids := platform.ParseIDs([]string{fmt.Sprint(z.Member)})
		if len(ids) == 1 {
			out = append(out, ItemViews{ItemID: ids[0], Views: -z.Score})
		}
	}
	return out
}

// TopRead is a queued read of the top of the view ranking.
type TopRead struct{ cmd *redis.ZSliceCmd }

// AddTop queues the read of the n most viewed items on pipe.
func AddTop(ctx context.Context, pipe redis.Pipeliner, n int64) TopRead {
	return TopRead{cmd: pipe.ZRangeWithScores(ctx, keys.ViewRanking, 0, n-1)}
}

// Items are the most viewed items once the pipeline ran, most first.
func (r TopRead) Items() []ItemViews { return ItemViewsOf(r.cmd.Val()) }

// AddRankingSize queues the count of items in the view ranking on pipe.
func AddRankingSize(ctx context.Context, pipe redis.Pipeliner) *redis.IntCmd {
	return pipe.ZCard(ctx, keys.ViewRanking)
}
