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
	cleanupBatch    = 2000             // sessions per batch (one script of a few ms; on Cluster two round trips)
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
// through and the positions of the gone and the spared ones:
// {seen, {gone...}, {spared...}}; every other candidate up to seen was
// evicted. It touches one key, so it is fine on Cluster. Commands take at
// most 1000 arguments from the Lua stack.
var evictScript = redis.NewScript(`
local key, limit, newest = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local n = #ARGV - 2
local excess = redis.call('ZCARD', key) - limit
local evicted, gone, spared, seen = {}, {}, {}, 0
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
    end
  end
end
for i = 1, #evicted, 1000 do
  redis.call('ZREM', key, unpack(evicted, i, math.min(i + 999, #evicted)))
end
return {seen, gone, spared}`)

// evictFrontScript is the whole cleanup of one batch on a single node, the
// book's clean_full_sessions in one atomic step: while `recent:` (KEYS[1])
// holds more than ARGV[1] sessions it takes up to ARGV[2] from its front
// (guests first, least recently seen first: see signedInScore), deletes
// their viewed lists and carts (named ARGV[4] .. sid .. ARGV[6] and ARGV[5]
// .. sid .. ARGV[6], as viewedKeyOf and cartKeyOf do) and the `login:`
// (KEYS[2]) entries of those past the guests (scored at or above ARGV[3]),
// and cuts them off `recent:` by rank. Being one script, cleaners running at once never evict
// more than the excess between them. It reaches keys it is not given in
// KEYS, which only a single node allows; Cluster uses evictScript.
// Reply: {evicted, sessions still over the limit}.
var evictFrontScript = redis.NewScript(`
local recent, login = KEYS[1], KEYS[2]
local limit, batch, signed = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local excess = redis.call('ZCARD', recent) - limit
if excess <= 0 then return {0, 0} end
local take = math.min(excess, batch)
local front = redis.call('ZRANGE', recent, 0, take - 1)
local guests = redis.call('ZCOUNT', recent, '-inf', '(' .. signed)
local keys = {}
for i = 1, take do
  keys[2 * i - 1] = ARGV[4] .. front[i] .. ARGV[6]
  keys[2 * i] = ARGV[5] .. front[i] .. ARGV[6]
end
for i = guests + 1, take, 1000 do
  redis.call('HDEL', login, unpack(front, i, math.min(i + 999, take)))
end
for i = 1, #keys, 1000 do
  redis.call('UNLINK', unpack(keys, i, math.min(i + 999, #keys)))
end
redis.call('ZREMRANGEBYRANK', recent, 0, take - 1)
return {take, excess - take}`)

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
// more says whether work is left. On a single node a batch is one script
// (cleanFront). On Cluster, where one script cannot reach the sessions'
// keys in other slots, a batch takes two round trips: evictScript takes the
// candidates out of `recent:`, then one pipeline deletes the rest of the
// evicted sessions and picks the next candidates.
func (s *Store) cleanSessions(ctx context.Context, until time.Time) (evicted int64, more bool, err error) {
	if !s.isCluster() {
		return s.cleanFront(ctx, until)
	}
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

// cleanFront is cleanSessions on a single node: one evictFrontScript call
// per batch.
func (s *Store) cleanFront(ctx context.Context, until time.Time) (evicted int64, more bool, err error) {
	keys := []string{keyRecent, keyLogin}
	for {
		if !until.IsZero() && time.Now().After(until) {
			return evicted, true, nil
		}
		res, err := evictFrontScript.Run(ctx, s.rdb, keys, s.opt.SessionLimit, cleanupBatch,
			strconv.FormatFloat(signedInScore, 'f', -1, 64), viewedKeyPrefix, cartKeyPrefix, sessionKeyEnd).Int64Slice()
		if err != nil {
			return evicted, true, fmt.Errorf("clean sessions: %w", err)
		}
		if len(res) != 2 {
			return evicted, true, fmt.Errorf("clean sessions: reply %v", res)
		}
		evicted += res[0]
		s.evictedTotal.Add(float64(res[0]))
		if res[1] <= 0 {
			return evicted, false, nil
		}
	}
}

// pick is what a batch starts from: the number of sessions and the front
// of `recent:`, which holds the least recently seen guests first and then
// the least recently seen signed-in sessions (see signedInScore).
type pick struct {
	size   *redis.IntCmd
	oldest *redis.ZSliceCmd
}

func (s *Store) addPick(ctx context.Context, pipe redis.Pipeliner) pick {
	return pick{pipe.ZCard(ctx, keyRecent), pipe.ZRangeWithScores(ctx, keyRecent, 0, cleanupBatch-1)}
}

// cleanBatch evicts one batch from the front of `recent:` and queues the
// next pick. It reports whether the store may still be over its limit.
func (s *Store) cleanBatch(ctx context.Context, p *pick) (int64, bool, error) {
	excess := p.size.Val() - s.opt.SessionLimit
	cands := p.oldest.Val()
	if excess <= 0 || len(cands) == 0 {
		return 0, false, nil
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
	evicted, gone := sortCandidates(cands, res)

	// The sessions are out of recent: now; finish deleting them even if
	// ctx was cancelled meanwhile (shutdown), or their keys would linger.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	pipe := s.rdb.Pipeline()
	s.addDropSessions(dctx, pipe, append(evicted, gone...))
	// Queued after the deletes: on one node commands run in order, so the
	// pick sees this batch gone (recent: itself changed in the script).
	*p = s.addPick(dctx, pipe)
	if _, err := pipe.Exec(dctx); err != nil {
		return int64(len(evicted)), true, fmt.Errorf("clean sessions: %w", err)
	}
	return int64(len(evicted)), true, nil
}

// addDropSessions queues the deletion of what evicted sessions leave once
// evictScript took them out of `recent:`: their viewed lists and guest
// carts (an account's cart outlives its sessions), and
// the login: entries of the signed-in ones. Each session's two keys share a
// slot and go in one UNLINK (no cross-slot commands).
func (s *Store) addDropSessions(ctx context.Context, pipe redis.Pipeliner, dropped []redis.Z) {
	if len(dropped) == 0 {
		return
	}
	var signedIn []string
	keys := make([]string, 0, 2*len(dropped))
	for _, z := range dropped {
		sid := z.Member.(string)
		if z.Score >= signedInScore {
			signedIn = append(signedIn, sid)
		}
		keys = append(keys, viewedKeyOf(sid), cartKeyOf(sid))
	}
	if len(signedIn) > 0 {
		pipe.HDel(ctx, keyLogin, signedIn...)
	}
	for i := 0; i < len(keys); i += 2 {
		pipe.Unlink(ctx, keys[i], keys[i+1])
	}
}

// isCluster reports whether keys may live on different nodes.
func (s *Store) isCluster() bool {
	_, ok := s.rdb.(*redis.ClusterClient)
	return ok
}

// sortCandidates reads evictScript's reply: the evicted candidates and the
// ones already gone from `recent:` (whose keys may still be there). The
// spared ones, seen since the pick, stay.
func sortCandidates(cands []redis.Z, res []any) (evicted, gone []redis.Z) {
	if len(res) != 3 {
		return nil, nil
	}
	seen, _ := res[0].(int64)
	skip := map[int64]bool{}
	for _, v := range replyList(res[1]) {
		if j, ok := v.(int64); ok && j >= 1 && j <= int64(len(cands)) {
			skip[j] = true
			gone = append(gone, cands[j-1])
		}
	}
	for _, v := range replyList(res[2]) {
		if j, ok := v.(int64); ok {
			skip[j] = true
		}
	}
	evicted = make([]redis.Z, 0, seen)
	for j := int64(1); j <= min(seen, int64(len(cands))); j++ {
		if !skip[j] {
			evicted = append(evicted, cands[j-1])
		}
	}
	return evicted, gone
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
