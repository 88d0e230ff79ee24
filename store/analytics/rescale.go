package analytics

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/workers"
)

// Rescale trims `viewed:` to the VIEWED_KEEP most viewed items and halves
// every count, atomically, so that old popularity fades. Scores are minus
// the counts, so rank 0 is the most viewed and the trim removes ranks
// VIEWED_KEEP and beyond (trimming ranks 0 to -VIEWED_KEEP-1 instead
// would delete the top).
// Items that drop out are unranked, and so their pages are no longer
// cached.
func (s *Service) Rescale(ctx context.Context) error {
	pipe := s.rdb.TxPipeline() // one key: fine on Cluster
	pipe.ZRemRangeByRank(ctx, keys.ViewRanking, s.opt.ViewedKeep, -1)
	pipe.ZInterStore(ctx, keys.ViewRanking, &redis.ZStore{Keys: []string{keys.ViewRanking}, Weights: []float64{0.5}})
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("rescale: %w", err)
	}
	return nil
}

// rescaleWorker rescales every RESCALE_INTERVAL on the instance holding
// the rescale lease. The lease lives two intervals and the holder renews
// it each time, so another instance takes over only when the holder stops.
func (s *Service) rescaleWorker() workers.Worker {
	every := s.opt.RescaleInterval
	return s.host.Leased(workers.Leased{
		Name: keys.LeaseRescale, Lease: 2 * every, Every: every, Delay: true,
		Pass: func(ctx context.Context) (workers.Run, bool) {
			err := s.Rescale(ctx)
			return workers.Run{Result: fmt.Sprintf("kept the %d most viewed, halved", s.opt.ViewedKeep), Err: err}, false
		},
	})
}
