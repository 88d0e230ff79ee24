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
	cleanupBatch    = 2000             // sessions per batch (two round trips; one script of ~2-5 ms)
	cleanupIdle     = time.Second      // the book's sleep when under the limit
	cleanupBudget   = 2 * time.Second  // work done between two lease renewals
	cleanupLeaseTTL = 15 * time.Second // longer than a budget plus a slow round trip
)

// evictScript removes sessions from `recent:` (KEYS[1]) so that at most
// ARGV[1] are left. ARGV[2] is the newest score among the candidates when
// they were picked, ARGV[3..] the candidate tokens, oldest first. Counting
// and removing in one script means that cleaners running at once never
// evict more than the excess between them. A candidate seen since it was
// picked (a score past ARGV[2]) is spared, and one no longer in `recent:`
// is gone. To keep the reply small it returns how many candidates it went
// through and the positions of the gone and the spared ones, with the
// latter's new scores: {seen, {gone...}, {spared...}, {scores...}}; every
// other candidate up to seen was evicted. It touches one key, so it is fine
// on Cluster. Commands take at most 1000 arguments from the Lua stack.
var evictScript = redis.NewScript(`
local key, limit, newest = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local n = #ARGV - 2
local excess = redis.call('ZCARD', key) - limit
local evicted, gone, spared, scores, seen = {}, {}, {}, {}, 0
for from = 1, n, 1000 do
  if #evicted >= excess then break end
  local to = math.min(from + 999, n)
  local cur = redis.call('ZMSCORE', key, unpack(ARGV, from + 2, to + 2))
  for j = from, to do
    if #evicted >= excess then break end
    seen = j
    local s = cur[j - from + 1]
    if not s then
      gone[#gone + 1] = j
    elseif tonumber(s) <= newest then
      evicted[#evicted + 1] = ARGV[j + 2]
    else
      spared[#spared + 1] = j
      scores[#scores + 1] = s
    end
  end
end
for i = 1, #evicted, 1000 do
  redis.call('ZREM', key, unpack(evicted, i, math.min(i + 999, #evicted)))
end
return {seen, gone, spared, scores}`)

// CleanSessions evicts the least recently seen sessions until at most
// SessionLimit are left, guests before signed-in shoppers, and returns how
// many it evicted. It runs synchronously (tests and benchmarks call it; the
// worker runs it under a lease) and is safe to run from several instances
// at once.
func (s *Store) CleanSessions(ctx context.Context) (int64, error) {
	n, _, err := s.cleanSessions(ctx, time.Time{})
	return n, err
}

// cleanSessions evicts batches of up to cleanupBatch sessions until the
// store is under its limit or, when until is set, that time has passed;
// more says whether work is left. A batch takes two round trips: evictScript
// takes the candidates out of `recent:`, then one pipeline deletes the rest
// of the evicted sessions and picks the next candidates.
func (s *Store) cleanSessions(ctx context.Context, until time.Time) (evicted int64, more bool, err error) {
	pipe := s.rdb.Pipeline()
	next := s.addPick(ctx, pipe)
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, false, fmt.Errorf("clean sessions: %w", err)
	}
	for {
		if !until.IsZero() && time.Now().After(until) {
			return evicted, true, nil
		}
		n, more, err := s.cleanBatch(ctx, &next)
		evicted += n
		s.evictedTotal.Add(float64(n))
		if err != nil || !more {
			return evicted, more, err
		}
	}
}

// pick is what a batch starts from: the number of sessions and the oldest
// guests.
type pick struct {
	size   *redis.IntCmd
	guests *redis.ZSliceCmd
}

func (s *Store) addPick(ctx context.Context, pipe redis.Pipeliner) pick {
	return pick{pipe.ZCard(ctx, keyRecent), pipe.ZRangeWithScores(ctx, keyGuests, 0, cleanupBatch-1)}
}

// cleanBatch evicts one batch of the oldest guests (or, when there are
// none, of the oldest sessions) and queues the next pick. It reports
// whether the store may still be over its limit.
func (s *Store) cleanBatch(ctx context.Context, p *pick) (int64, bool, error) {
	excess := p.size.Val() - s.opt.SessionLimit
	if excess <= 0 {
		return 0, false, nil
	}
	cands, fromGuests := p.guests.Val(), true
	if len(cands) == 0 {
		var err error
		cands, err = s.rdb.ZRangeWithScores(ctx, keyRecent, 0, min(excess, cleanupBatch)-1).Result()
		if err != nil {
			return 0, false, fmt.Errorf("clean sessions: %w", err)
		}
		fromGuests = false
	}
	cands = cands[:min(int64(len(cands)), excess)]
	args := make([]any, 2, 2+len(cands))
	args[0], args[1] = s.opt.SessionLimit, strconv.FormatFloat(cands[len(cands)-1].Score, 'g', -1, 64)
	for _, z := range cands {
		args = append(args, z.Member)
	}
	res, err := evictScript.Run(ctx, s.rdb, []string{keyRecent}, args...).Slice()
	if err != nil {
		return 0, false, fmt.Errorf("clean sessions: %w", err)
	}
	evicted, gone, spared := sortCandidates(cands, res)

	// The sessions are out of recent: now; finish deleting them even if
	// ctx was cancelled meanwhile (shutdown), or their keys would linger.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	pipe := s.rdb.Pipeline()
	s.addDropSessions(dctx, pipe, append(evicted, gone...), !fromGuests)
	if fromGuests {
		// A spared guest moves back in guests: to its place in recent:.
		for _, z := range spared {
			pipe.ZAddXX(dctx, keyGuests, z)
		}
	}
	// Queued after the deletes: on one node (and on the guests: slot of a
	// Cluster) commands run in order, so the pick sees this batch gone.
	*p = s.addPick(dctx, pipe)
	if _, err := pipe.Exec(dctx); err != nil {
		return int64(len(evicted)), true, fmt.Errorf("clean sessions: %w", err)
	}
	return int64(len(evicted)), true, nil
}

// addDropSessions queues the deletion of what evicted sessions leave once
// evictScript took them out of `recent:`: their guests: entries, viewed
// lists and carts, and with signedIn their login: entries (guests have none:
// a token is in login: or in guests:, never both). On one node the keys go
// in one UNLINK; on Cluster each key gets its own (no cross-slot commands).
func (s *Store) addDropSessions(ctx context.Context, pipe redis.Pipeliner, tokens []string, signedIn bool) {
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
	if signedIn {
		pipe.HDel(ctx, keyLogin, tokens...)
	}
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

// sortCandidates reads evictScript's reply: the evicted tokens, the gone
// ones and the spared ones with their current scores.
func sortCandidates(cands []redis.Z, res []any) (evicted, gone []string, spared []redis.Z) {
	if len(res) != 4 {
		return nil, nil, nil
	}
	seen, _ := res[0].(int64)
	skip := map[int64]bool{}
	for _, v := range replyList(res[1]) {
		if j, ok := v.(int64); ok && j >= 1 && j <= int64(len(cands)) {
			skip[j] = true
			gone = append(gone, cands[j-1].Member.(string))
		}
	}
	scores := replyList(res[3])
	for i, v := range replyList(res[2]) {
		j, ok := v.(int64)
		if !ok || j < 1 || j > int64(len(cands)) || i >= len(scores) {
			continue
		}
		skip[j] = true
		if sc, err := strconv.ParseFloat(fmt.Sprint(scores[i]), 64); err == nil {
			spared = append(spared, redis.Z{Score: sc, Member: cands[j-1].Member})
		}
	}
	evicted = make([]string, 0, seen)
	for j := int64(1); j <= min(seen, int64(len(cands))); j++ {
		if !skip[j] {
			evicted = append(evicted, cands[j-1].Member.(string))
		}
	}
	return evicted, gone, spared
}

func replyList(v any) []any {
	l, _ := v.([]any)
	return l
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
