// Package ratelimit is the shop's one rate limiter: sliding-window logs
// in Redis (`rate:<name>:{<subject>}`, one sorted set per limit and
// subject), several windows per limit ("2/1m,5/5m": all must allow),
// checked and counted in one script so that concurrent requests cannot
// both take the last slot. Sign-in, registration, posting, votes,
// comments, follows, likes, reviews, password changes and the cap of new
// guest sessions per address all go through it.
//
// Invariant: a refused event is not counted; Refund takes back one that
// was (sign-in counts only failures).
//
// Tests: ratelimit_test.go here.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// Window is one sliding window of a rate: at most N events per Per.
type Window struct {
	N   int
	Per time.Duration
}

// Rate is one or more windows that must all allow an event, as in "2 a
// minute and 5 in 5 minutes". An empty Rate, or windows of N = 0, allow
// everything.
type Rate []Window

// ParseRate reads "N/duration[,N/duration...]" such as "2/1m,5/5m"; "0"
// turns a limit off.
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return nil, nil
	}
	var r Rate
	for _, part := range strings.Split(s, ",") {
		n, per, ok := strings.Cut(strings.TrimSpace(part), "/")
		count, err := strconv.Atoi(n)
		if !ok || err != nil || count < 0 {
			return nil, fmt.Errorf("want N/duration[,N/duration...] such as 2/1m,5/5m, got %q", s)
		}
		d, err := time.ParseDuration(per)
		if err != nil || d < time.Millisecond {
			return nil, fmt.Errorf("want N/duration[,N/duration...] such as 2/1m,5/5m, got %q", s)
		}
		r = append(r, Window{N: count, Per: d})
	}
	return r, nil
}

// String writes the rate back in the syntax ParseRate reads.
func (r Rate) String() string {
	if len(r.active()) == 0 {
		return "0"
	}
	parts := make([]string, 0, len(r))
	for _, w := range r.active() {
		parts = append(parts, fmt.Sprintf("%d/%s", w.N, w.Per))
	}
	return strings.Join(parts, ",")
}

// active is the windows that limit anything.
func (r Rate) active() Rate {
	var out Rate
	for _, w := range r {
		if w.N > 0 && w.Per > 0 {
			out = append(out, w)
		}
	}
	return out
}

// slidingWindow is a sliding-window log limiter over several windows on one
// sorted set (one key per call, so Cluster is fine): drop entries older
// than the longest window, count the entries inside each window, and admit
// the event only if every window is under its limit, all in one script so
// that concurrent requests cannot both take the last slot. ARGV: now,
// member, then (window ms, limit) pairs, longest window first.
// It returns {allowed, milliseconds until every window has a free slot}.
var slidingWindow = redis.NewScript(`
local key, now, member = KEYS[1], tonumber(ARGV[1]), ARGV[2]
local longest = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - longest)
local wait = 0
for i = 3, #ARGV, 2 do
  local window, limit = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  local n = redis.call('ZCOUNT', key, '(' .. (now - window), '+inf')
  if n >= limit then
    -- The window frees a slot when its (n-limit+1)th oldest entry leaves.
    local e = redis.call('ZRANGEBYSCORE', key, '(' .. (now - window), '+inf', 'WITHSCORES', 'LIMIT', n - limit, 1)
    local w = window
    if e[2] then w = tonumber(e[2]) + window - now end
    wait = math.max(wait, w, 1)
  end
end
if wait > 0 then return {0, wait} end
redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, longest)
return {1, 0}`)

// Admission is the limiter's answer for one event.
type Admission struct {
	Allowed    bool
	RetryAfter time.Duration // when not allowed: until every window has room
	key        string        // the counted event, for Refund
	member     string
}

// Limiter checks and counts events against rates in Redis.
type Limiter struct {
	rdb   redis.UniversalClient
	clock *platform.Clock
}

// New returns the limiter.
func New(b platform.Base) *Limiter { return &Limiter{rdb: b.Redis, clock: b.Clock} }

// Allow counts one event for subject under the named rate and reports
// whether it is allowed and, if not, how long until it would be. A refused
// event is not counted.
func (s *Limiter) Allow(ctx context.Context, name, subject string, rate Rate) (Admission, error) {
	windows := rate.active()
	if len(windows) == 0 {
		return Admission{Allowed: true}, nil
	}
	// Longest first: the script trims by the first window.
	longest := 0
	for i, w := range windows {
		if w.Per > windows[longest].Per {
			longest = i
		}
	}
	windows[0], windows[longest] = windows[longest], windows[0]
	now := s.clock.Now().UnixMilli()
	member := fmt.Sprintf("%d-%s", now, platform.RandomHex(6))
	args := []any{now, member}
	for _, w := range windows {
		args = append(args, w.Per.Milliseconds(), w.N)
	}
	key := keys.Rate(name, subject)
	res, err := slidingWindow.Run(ctx, s.rdb, []string{key}, args...).Int64Slice()
	if err != nil {
		return Admission{}, fmt.Errorf("rate limit %s: %w", name, err)
	}
	if res[0] != 1 {
		return Admission{RetryAfter: time.Duration(res[1]) * time.Millisecond}, nil
	}
	return Admission{Allowed: true, key: key, member: member}, nil
}

// Refund takes back an allowed event, for limits that count only some
// outcomes (sign-in counts failures: a successful one is refunded).
func (s *Limiter) Refund(ctx context.Context, a Admission) error {
	if a.key == "" {
		return nil
	}
	if err := s.rdb.ZRem(ctx, a.key, a.member).Err(); err != nil {
		return fmt.Errorf("rate limit refund: %w", err)
	}
	return nil
}

// AllowMany is Allow for several subjects of one rate at once, in one
// round trip (the writes behind admit a batch of new sessions this way).
// The answers are in the subjects' order; a subject named twice counts
// twice.
func (s *Limiter) AllowMany(ctx context.Context, name string, subjects []string, rate Rate) ([]Admission, error) {
	out := make([]Admission, len(subjects))
	windows := rate.active()
	if len(windows) == 0 {
		for i := range out {
			out[i].Allowed = true
		}
		return out, nil
	}
	longest := 0
	for i, w := range windows {
		if w.Per > windows[longest].Per {
			longest = i
		}
	}
	windows[0], windows[longest] = windows[longest], windows[0]
	now := s.clock.Now().UnixMilli()
	args := func(i int) []any {
		a := []any{now, fmt.Sprintf("%d-%s", now, platform.RandomHex(6))}
		for _, w := range windows {
			a = append(a, w.Per.Milliseconds(), w.N)
		}
		return a
	}
	calls := make([][]any, len(subjects))
	run := func(eval func(pipe redis.Pipeliner, i int) *redis.Cmd, which []int) ([]*redis.Cmd, error) {
		pipe := s.rdb.Pipeline()
		cmds := make([]*redis.Cmd, len(which))
		for j, i := range which {
			cmds[j] = eval(pipe, i)
		}
		_, err := pipe.Exec(ctx)
		if err != nil && !errors.Is(err, redis.Nil) && !redis.HasErrorPrefix(err, "NOSCRIPT") {
			return nil, fmt.Errorf("rate limit %s: %w", name, err)
		}
		return cmds, nil
	}
	all := make([]int, len(subjects))
	for i := range all {
		all[i] = i
		calls[i] = args(i)
	}
	cmds, err := run(func(pipe redis.Pipeliner, i int) *redis.Cmd {
		return slidingWindow.EvalSha(ctx, pipe, []string{keys.Rate(name, subjects[i])}, calls[i]...)
	}, all)
	if err != nil {
		return nil, err
	}
	// A node that never saw the script (restarted, a Cluster shard) ran
	// nothing for those calls: send them the script itself.
	var missing []int
	for i, c := range cmds {
		if redis.HasErrorPrefix(c.Err(), "NOSCRIPT") {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		again, err := run(func(pipe redis.Pipeliner, i int) *redis.Cmd {
			return slidingWindow.Eval(ctx, pipe, []string{keys.Rate(name, subjects[i])}, calls[i]...)
		}, missing)
		if err != nil {
			return nil, err
		}
		for j, i := range missing {
			cmds[i] = again[j]
		}
	}
	for i, c := range cmds {
		res, err := c.Int64Slice()
		if err != nil {
			return nil, fmt.Errorf("rate limit %s: %w", name, err)
		}
		if res[0] == 1 {
			out[i] = Admission{Allowed: true, key: keys.Rate(name, subjects[i]), member: calls[i][1].(string)}
		} else {
			out[i] = Admission{RetryAfter: time.Duration(res[1]) * time.Millisecond}
		}
	}
	return out, nil
}
