package store

import (
	"context"
	"fmt"
	"storefront/store/keys"
	"time"

	"github.com/redis/go-redis/v9"
)

// Rescale trims `viewed:` to the VIEWED_KEEP most viewed items and halves
// every count (the book's rescale_viewed), atomically. Scores are minus
// the counts, so rank 0 is the most viewed and the trim removes ranks
// VIEWED_KEEP and beyond; the seed's `0 -20001` would delete the top.
// Items that drop out are unranked and so no longer cached.
func (s *Store) Rescale(ctx context.Context) error {
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
type rescaleWorker struct{ s *Store }

func (w *rescaleWorker) Name() string { return keys.LeaseRescale }

func (w *rescaleWorker) Run(ctx context.Context) {
	every := w.s.opt.RescaleInterval
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	defer w.s.releaseLease(context.WithoutCancel(ctx), keys.LeaseRescale)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		mine, err := w.s.acquireLease(ctx, keys.LeaseRescale, 2*every)
		if err == nil && mine {
			err = w.s.Rescale(ctx)
			if ctx.Err() == nil {
				run := WorkerRun{Result: fmt.Sprintf("kept the %d most viewed, halved", w.s.opt.ViewedKeep), Err: err}
				if err != nil {
					run.Result = ""
				}
				w.s.reportWorker(ctx, keys.LeaseRescale, run)
			}
		}
		if err != nil && ctx.Err() == nil {
			w.s.log.Warn("rescale", "err", err)
		}
	}
}
