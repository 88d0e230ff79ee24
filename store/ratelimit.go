package store

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// slidingWindow is a sliding-window log limiter on one sorted set: drop
// entries older than the window, count, and admit the request only if the
// count is under the limit. One key per script call, so Cluster is fine.
// It returns {allowed, milliseconds until a slot frees}.
var slidingWindow = redis.NewScript(`
local key, now, window, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local n = redis.call('ZCARD', key)
if n < limit then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, window)
  return {1, 0}
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local wait = window
if oldest[2] then wait = tonumber(oldest[2]) + window - now end
return {0, math.max(wait, 1)}`)

// Allow counts one event for subject under the named limit of `limit`
// events per window. It reports whether the event is allowed and, if not,
// how long until it would be. A limit of 0 allows everything.
func (s *Store) Allow(ctx context.Context, name, subject string, limit int, window time.Duration) (bool, time.Duration, error) {
	if limit <= 0 {
		return true, 0, nil
	}
	now := s.now().UnixMilli()
	res, err := slidingWindow.Run(ctx, s.rdb, []string{rateKey(name, subject)},
		now, window.Milliseconds(), limit, fmt.Sprintf("%d-%s", now, randomHex(4))).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("rate limit %s: %w", name, err)
	}
	return res[0] == 1, time.Duration(res[1]) * time.Millisecond, nil
}
