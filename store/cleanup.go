package store

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// The session cleanup is the book's clean_full_sessions made safe to run
// from several instances and on Redis Cluster. Tuned with BenchmarkCleanup.
const (
	cleanupBatch    = 2000             // sessions evicted per round of three round trips
	cleanupIdle     = time.Second      // the book's sleep when under the limit
	cleanupBudget   = 2 * time.Second  // work done between two lease renewals
	cleanupLeaseTTL = 15 * time.Second // longer than a budget plus a slow round trip
)

// evictScript removes sessions from `recent:` (KEYS[1]) so that at most
// ARGV[1] are left. ARGV[2..] are candidate tokens with the score they had
// when picked, oldest first. Counting and removing in one script means that
// cleaners running at once never evict more than the excess between them.
// A candidate seen since it was picked (a newer score) is spared.
// It returns {evicted, gone (not in recent:), spared, their new scores}.
// It touches one key, so it is fine on Cluster.
var evictScript = redis.NewScript(`
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
local evicted, gone, spared, scores = {}, {}, {}, {}
for i = 2, #ARGV, 2 do
  if #evicted >= excess then break end
  local t = ARGV[i]
  local s = redis.call('ZSCORE', KEYS[1], t)
  if not s then
    gone[#gone + 1] = t
  elseif tonumber(s) <= tonumber(ARGV[i + 1]) then
    evicted[#evicted + 1] = t
  else
    spared[#spared + 1] = t
    scores[#scores + 1] = s
  end
end
for i = 1, #evicted, 1000 do
  redis.call('ZREM', KEYS[1], unpack(evicted, i, math.min(i + 999, #evicted)))
end
return {evicted, gone, spared, scores}`)

// CleanSessions evicts the least recently seen sessions until at most
// SessionLimit are left, guests before signed-in shoppers, and returns how
// many it evicted. It runs synchronously (tests and benchmarks call it; the
// worker runs it under a lease) and is safe to run from several instances
// at once.
func (s *Store) CleanSessions(ctx context.Context) (int64, error) {
	n, _, err := s.cleanSessions(ctx, time.Time{})
	return n, err
}

// cleanSessions evicts batches until the store is under its limit or, when
// until is set, that time has passed; more says whether work is left.
func (s *Store) cleanSessions(ctx context.Context, until time.Time) (evicted int64, more bool, err error) {
	for {
		n, more, err := s.cleanBatch(ctx)
		evicted += n
		s.evictedTotal.Add(float64(n))
		if err != nil || !more {
			return evicted, more, err
		}
		if !until.IsZero() && time.Now().After(until) {
			return evicted, true, nil
		}
	}
}

// cleanBatch evicts up to cleanupBatch sessions in three round trips: count
// and pick the oldest guests (or, when there are none, the oldest
// sessions); remove them from `recent:` with evictScript; delete the rest
// of each session. It reports whether the store may still be over its limit.
func (s *Store) cleanBatch(ctx context.Context) (int64, bool, error) {
	pipe := s.rdb.Pipeline()
	size := pipe.ZCard(ctx, keyRecent)
	guests := pipe.ZRangeWithScores(ctx, keyGuests, 0, cleanupBatch-1)
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, false, fmt.Errorf("clean sessions: %w", err)
	}
	excess := size.Val() - s.opt.SessionLimit
	if excess <= 0 {
		return 0, false, nil
	}
	cands, fromGuests := guests.Val(), true
	if len(cands) == 0 {
		var err error
		cands, err = s.rdb.ZRangeWithScores(ctx, keyRecent, 0, min(excess, cleanupBatch)-1).Result()
		if err != nil {
			return 0, false, fmt.Errorf("clean sessions: %w", err)
		}
		fromGuests = false
	}
	cands = cands[:min(int64(len(cands)), excess)]
	args := make([]any, 1, 1+2*len(cands))
	args[0] = s.opt.SessionLimit
	for _, z := range cands {
		args = append(args, z.Member, strconv.FormatFloat(z.Score, 'g', -1, 64))
	}
	res, err := evictScript.Run(ctx, s.rdb, []string{keyRecent}, args...).Slice()
	if err != nil {
		return 0, false, fmt.Errorf("clean sessions: %w", err)
	}
	evicted, gone, spared, scores := replyStrings(res, 0), replyStrings(res, 1), replyStrings(res, 2), replyStrings(res, 3)

	// The sessions are out of recent: now; finish deleting them even if
	// ctx was cancelled meanwhile (shutdown), or their keys would linger.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	pipe = s.rdb.Pipeline()
	s.addDropSessions(ctx, pipe, append(evicted, gone...))
	if fromGuests {
		// A spared guest moves back in guests: to its place in recent:.
		for i, t := range spared {
			if sc, err := strconv.ParseFloat(scores[i], 64); err == nil {
				pipe.ZAddXX(ctx, keyGuests, redis.Z{Score: sc, Member: t})
			}
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return int64(len(evicted)), true, fmt.Errorf("clean sessions: %w", err)
	}
	return int64(len(evicted)), true, nil
}

// addDropSessions queues the deletion of what evicted sessions leave once
// evictScript took them out of `recent:`: their guests: and login: entries,
// viewed list and cart. On one node the keys go in one UNLINK; on Cluster
// each key gets its own (no cross-slot commands).
func (s *Store) addDropSessions(ctx context.Context, pipe redis.Pipeliner, tokens []string) {
	if len(tokens) == 0 {
		return
	}
	members := make([]any, len(tokens))
	keys := make([]string, 0, 2*len(tokens))
	for i, t := range tokens {
		members[i] = t
		keys = append(keys, viewedKey(t), cartKey(t))
	}
	pipe.ZRem(ctx, keyGuests, members...)
	pipe.HDel(ctx, keyLogin, tokens...)
	if s.isCluster() {
		for _, k := range keys {
			pipe.Unlink(ctx, k)
		}
		return
	}
	pipe.Unlink(ctx, keys...)
}

// isCluster reports whether keys may live on different nodes.
func (s *Store) isCluster() bool {
	_, ok := s.rdb.(*redis.ClusterClient)
	return ok
}

// replyStrings returns res[i] as a list of strings (a nested script reply).
func replyStrings(res []any, i int) []string {
	if i >= len(res) {
		return nil
	}
	list, _ := res[i].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if t, ok := v.(string); ok {
			out = append(out, t)
		}
	}
	return out
}

// cleanupWorker runs CleanSessions on the instance that holds the cleanup
// lease: in batches while over the limit, else once a second.
type cleanupWorker struct{ s *Store }

// Name names the worker in logs and on the dashboard.
func (w cleanupWorker) Name() string { return leaseCleanup }

// Run cleans until ctx is cancelled, then gives the lease up so another
// instance takes over at once.
func (w cleanupWorker) Run(ctx context.Context) {
	s := w.s
	defer func() {
		rctx, cancel := context.WithTimeout(context.Background(), time.Second)
		s.releaseLease(rctx, leaseCleanup)
		cancel()
	}()
	for {
		wait := cleanupIdle
		held, err := s.acquireLease(ctx, leaseCleanup, cleanupLeaseTTL)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				s.log.Warn("session cleanup: lease", "err", err)
			}
		case held:
			n, more, err := s.cleanSessions(ctx, time.Now().Add(cleanupBudget))
			if ctx.Err() != nil { // shutting down: report what was done, not the cancellation
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
				w.report(rctx, n, nil)
				cancel()
				return
			}
			w.report(ctx, n, err)
			if more && err == nil {
				wait = 0
			}
		}
		if !sleepCtx(ctx, wait) {
			return
		}
	}
}

func (w cleanupWorker) report(ctx context.Context, n int64, err error) {
	run := WorkerRun{Result: fmt.Sprintf("evicted %d sessions", n), Err: err, Counts: map[string]int64{"evicted": n}}
	if err != nil {
		run.Result = ""
		w.s.log.Warn("session cleanup failed", "evicted", n, "err", err)
	} else if n > 0 {
		w.s.log.Info("sessions evicted", "evicted", n, "limit", w.s.opt.SessionLimit)
	}
	w.s.reportWorker(ctx, leaseCleanup, run)
}

// sessionCollectors are the cleanup's Prometheus series: the number of
// sessions (read from Redis at scrape time) and the evictions made here.
func (s *Store) sessionCollectors() []prometheus.Collector {
	sessions := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "storefront_sessions",
		Help: "Sessions in Redis (ZCARD recent:).",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		n, err := s.rdb.ZCard(ctx, keyRecent).Result()
		if err != nil {
			return math.NaN()
		}
		return float64(n)
	})
	return []prometheus.Collector{sessions, s.evictedTotal}
}
