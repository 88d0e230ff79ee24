package platform

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// releaseScript deletes KEYS[1] only if it still holds ARGV[1].
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

// ReleaseLock deletes the lock (a lease, a render lock, a checkout lock)
// at key only if it still holds token: the one way a lock is given up,
// so that a holder whose hold ran out never frees what another took since.
func ReleaseLock(ctx context.Context, c redis.Scripter, key, token string) error {
	return releaseScript.Run(ctx, c, []string{key}, token).Err()
}
