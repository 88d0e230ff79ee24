package sessions

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/workers"
)

// The session cleanup keeps at most SESSION_LIMIT sessions, evicting the
// least recently seen, safe to run from several instances and on Redis
// Cluster. Tuned with BenchmarkCleanup.
const (
	cleanupBatch    = 2000             // sessions per batch: one script of a few ms
	cleanupIdle     = time.Second      // the pause while under the limit
	cleanupBudget   = 2 * time.Second  // work done between two lease renewals
	cleanupLeaseTTL = 15 * time.Second // longer than a budget plus a slow round trip
	// cleanupDeletesInFlight bounds the batches whose keys a Cluster
	// cleanup is still deleting while it evicts the next: two keep every
	// node busy while the slowest finishes the batch before.
	cleanupDeletesInFlight = 2
)

// evictScript is the Cluster cleanup's step on the node of `recent:`
// (KEYS[1]): while it holds more than ARGV[1] sessions it takes up to
// ARGV[2] from the front (guests first, least recently seen first: see
// keys.SignedInScore) and cuts them off by rank, in one atomic step, so
// cleaners running at once never evict more than the excess between them.
// The sessions' own keys live in other slots, which the caller deletes.
// Reply: {sessions still over the limit, {token, score, ...}}.
var evictScript = redis.NewScript(`
local key, limit, batch = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local excess = redis.call('ZCARD', key) - limit
if excess <= 0 then return {0, {}} end
local take = math.min(excess, batch)
local front = redis.call('ZRANGE', key, 0, take - 1, 'WITHSCORES')
redis.call('ZREMRANGEBYRANK', key, 0, take - 1)
return {excess - take, front}`)

// unlinkScript deletes sessions' keys that live on one Cluster node but in
// many slots, in one call instead of one UNLINK command each: KEYS[1],
// ARGV[1] and ARGV[2] are one session's three keys (sessionKeys), then
// ARGV holds the others' in threes. Each UNLINK stays within one slot (a
// session's keys share one); the flag lets the script reach the other
// slots of the node it runs on. A node that refuses it (an older Redis, a
// slot moving away) gets the plain commands instead (see dropSessions).
var unlinkScript = redis.NewScript(`#!lua flags=allow-cross-slot-keys
local n = redis.call('UNLINK', KEYS[1], ARGV[1], ARGV[2])
for i = 3, #ARGV, 3 do
  n = n + redis.call('UNLINK', ARGV[i], ARGV[i + 1], ARGV[i + 2])
end
return n`)

// evictFrontScript is the whole cleanup of one batch on a single node, in
// one atomic step: while `recent:` (KEYS[1])
// holds more than ARGV[1] sessions it takes up to ARGV[2] from its front
// (guests first, least recently seen first: see keys.SignedInScore), deletes
// their viewed items, old viewed lists and carts (named ARGV[4] .. sid ..
// ARGV[7], ARGV[5] .. sid .. ARGV[7] and ARGV[6] .. sid .. ARGV[7], as
// sessionKeys does) and the `login:`
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
  keys[3 * i - 2] = ARGV[4] .. front[i] .. ARGV[7]
  keys[3 * i - 1] = ARGV[5] .. front[i] .. ARGV[7]
  keys[3 * i] = ARGV[6] .. front[i] .. ARGV[7]
end
for i = guests + 1, take, 1000 do
  redis.call('HDEL', login, unpack(front, i, math.min(i + 999, take)))
end
for i = 1, #keys, 999 do
  redis.call('UNLINK', unpack(keys, i, math.min(i + 998, #keys)))
end
redis.call('ZREMRANGEBYRANK', recent, 0, take - 1)
return {take, excess - take}`)

// cleanup is the service seen as its session cleanup: the eviction's
// steps, apart from the sessions' other work.
type cleanup struct{ *Service }

// CleanSessions evicts the least recently seen sessions until at most
// SessionLimit are left, guests before signed-in shoppers, and returns how
// many it evicted. It runs synchronously (tests and benchmarks call it; the
// worker runs it under a lease) and is safe to run from several instances
// at once.
func (s *Service) CleanSessions(ctx context.Context) (int64, error) {
	n, _, err := cleanup{s}.cleanSessions(ctx, time.Time{})
	return n, err
}

// cleanSessions evicts batches of up to cleanupBatch sessions until the
// store is under its limit or, when until is set, that time has passed;
// more says whether work is left. On a single node a batch is one script
// (cleanFront). On Cluster, where one script cannot reach the sessions'
// keys in other slots, it is cleanSpread.
func (s cleanup) cleanSessions(ctx context.Context, until time.Time) (evicted int64, more bool, err error) {
	if !platform.IsCluster(s.rdb) {
		return s.cleanFront(ctx, until)
	}
	return s.cleanSpread(ctx, until)
}

// cleanSpread is cleanSessions on Cluster. Each batch is one evictScript
// call on the node of `recent:`; the evicted sessions' keys, spread over
// every node, are deleted while the next batch is being evicted, so the
// two never wait on each other. At most cleanupDeletesInFlight batches'
// deletes are in flight, and all are done when it returns.
func (s cleanup) cleanSpread(ctx context.Context, until time.Time) (evicted int64, more bool, err error) {
	drops := make(chan error, cleanupDeletesInFlight)
	inFlight := 0
	// wait waits until fewer than max batches' deletes are in flight,
	// keeping the first error.
	wait := func(max int) {
		for ; inFlight > max-1 && inFlight > 0; inFlight-- {
			if derr := <-drops; derr != nil && err == nil {
				err = derr
			}
		}
	}
	defer wait(0)
	for {
		if !until.IsZero() && time.Now().After(until) {
			return evicted, true, nil
		}
		res, rerr := evictScript.Run(ctx, s.rdb, []string{keys.Recent}, s.opt.SessionLimit, cleanupBatch).Slice()
		if rerr != nil {
			return evicted, true, fmt.Errorf("clean sessions: %w", rerr)
		}
		left, dropped, perr := readEvicted(res)
		if perr != nil {
			return evicted, true, perr
		}
		evicted += int64(len(dropped))
		s.evictedTotal.Add(float64(len(dropped)))
		wait(cleanupDeletesInFlight)
		if err != nil {
			return evicted, true, err
		}
		if len(dropped) > 0 {
			inFlight++
			go func() { drops <- s.dropSessions(ctx, dropped) }()
		}
		if left <= 0 || len(dropped) == 0 {
			return evicted, false, nil
		}
	}
}

// readEvicted reads evictScript's reply: how many sessions are still over
// the limit, and the evicted ones with their scores.
func readEvicted(res []any) (left int64, dropped []redis.Z, err error) {
	if len(res) != 2 {
		return 0, nil, fmt.Errorf("clean sessions: reply %v", res)
	}
	left, _ = res[0].(int64)
	flat := replyList(res[1])
	dropped = make([]redis.Z, 0, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		member, _ := flat[i].(string)
		raw, _ := flat[i+1].(string)
		score, perr := strconv.ParseFloat(raw, 64)
		if member == "" || perr != nil {
			return 0, nil, fmt.Errorf("clean sessions: reply entry %v %v", flat[i], flat[i+1])
		}
		dropped = append(dropped, redis.Z{Member: member, Score: score})
	}
	return left, dropped, nil
}

// cleanFront is cleanSessions on a single node: one evictFrontScript call
// per batch.
func (s cleanup) cleanFront(ctx context.Context, until time.Time) (evicted int64, more bool, err error) {
	recentAndLogin := []string{keys.Recent, keys.Login}
	for {
		if !until.IsZero() && time.Now().After(until) {
			return evicted, true, nil
		}
		res, err := evictFrontScript.Run(ctx, s.rdb, recentAndLogin, s.opt.SessionLimit, cleanupBatch,
			strconv.FormatFloat(keys.SignedInScore, 'f', -1, 64), keys.SessionViewedPrefix, keys.OldSessionViewedPrefix, keys.GuestCartPrefix, keys.SessionKeyEnd).Int64Slice()
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

// dropSessions deletes what evicted sessions leave once evictScript took
// them out of `recent:`: their viewed items and guest carts (an account's
// cart outlives its sessions), and the login: entries of the signed-in
// ones. The keys are grouped by the node that holds them and each group
// goes in one unlinkScript call, all nodes at once. It finishes even if ctx
// was cancelled meanwhile (shutdown), or the keys would linger.
func (s cleanup) dropSessions(ctx context.Context, dropped []redis.Z) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	c, ok := s.rdb.(*redis.ClusterClient)
	if !ok {
		return s.dropSessionsByCommand(ctx, dropped)
	}
	var signedIn []string
	groups := map[*redis.Client][]string{}
	for _, z := range dropped {
		sid := z.Member.(string)
		if z.Score >= keys.SignedInScore {
			signedIn = append(signedIn, sid)
		}
		own := sessionKeys(sid)
		node, err := c.MasterForKey(ctx, own[0])
		if err != nil {
			return s.dropSessionsByCommand(ctx, dropped)
		}
		groups[node] = append(groups[node], own...)
	}
	var g errgroup.Group
	if len(signedIn) > 0 {
		g.Go(func() error { return c.HDel(ctx, keys.Login, signedIn...).Err() })
	}
	for node, nodeKeys := range groups {
		g.Go(func() error {
			err := unlinkScript.Run(ctx, node, nodeKeys[:1], anySlice(nodeKeys[1:])...).Err()
			if err == nil {
				return nil
			}
			// Refused (an older Redis without script flags, a slot on its
			// way to another node): one UNLINK per session, which the
			// Cluster client redirects as needed.
			pipe := c.Pipeline()
			for i := 0; i+2 < len(nodeKeys); i += 3 {
				pipe.Unlink(ctx, nodeKeys[i:i+3]...)
			}
			_, err = pipe.Exec(ctx)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("clean sessions: %w", err)
	}
	return nil
}

// dropSessionsByCommand is dropSessions with one UNLINK per session, the
// way that works wherever the keys are.
func (s cleanup) dropSessionsByCommand(ctx context.Context, dropped []redis.Z) error {
	var signedIn []string
	pipe := s.rdb.Pipeline()
	for _, z := range dropped {
		sid := z.Member.(string)
		if z.Score >= keys.SignedInScore {
			signedIn = append(signedIn, sid)
		}
		pipe.Unlink(ctx, sessionKeys(sid)...)
	}
	if len(signedIn) > 0 {
		pipe.HDel(ctx, keys.Login, signedIn...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("clean sessions: %w", err)
	}
	return nil
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}

func replyList(v any) []any {
	l, _ := v.([]any)
	return l
}

// cleanupWorker runs CleanSessions on the instance that holds the cleanup
// lease: in batches while over the limit, else once a second.
func (s *Service) cleanupWorker() workers.Worker {
	return s.host.Leased(workers.Leased{
		Name: keys.LeaseCleanup, Lease: cleanupLeaseTTL, Every: cleanupIdle,
		Pass: func(ctx context.Context) (workers.Run, bool) {
			n, more, err := cleanup{s}.cleanSessions(ctx, time.Now().Add(cleanupBudget))
			if err == nil && n > 0 {
				s.log.Info("sessions evicted", "evicted", n, "limit", s.opt.SessionLimit)
			}
			return workers.Run{Result: fmt.Sprintf("sessions evicted: %d", n), Err: err, Counts: map[string]int64{"evicted": n}}, more
		},
	})
}
