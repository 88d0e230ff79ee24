package workers

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// renewLease extends a lease only if this instance still holds it.
var renewLease = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// Acquire takes or renews the named lease for ttl. Only the holder runs
// the worker it guards, so a worker that must run once across instances
// does. It reports whether this instance holds the lease.
func (h *Host) Acquire(ctx context.Context, name string, ttl time.Duration) (bool, error) {
	key := keys.Lease(name)
	ok, err := h.rdb.SetNX(ctx, key, h.instance, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", name, err)
	}
	if ok {
		return true, nil
	}
	n, err := renewLease.Run(ctx, h.rdb, []string{key}, h.instance, ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", name, err)
	}
	return n == 1, nil
}

// Release gives a lease up (on shutdown) so that another instance can
// take over at once. It does not share ctx's cancellation.
func (h *Host) Release(ctx context.Context, name string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	_ = platform.ReleaseLock(ctx, h.rdb, keys.Lease(name), h.instance)
}

// Holder says which instance holds a lease ("" for none), for the
// dashboard.
func (h *Host) Holder(ctx context.Context, name string) (string, error) {
	v, err := h.rdb.Get(ctx, keys.Lease(name)).Result()
	if err == redis.Nil {
		return "", nil
	}
	return v, err
}
