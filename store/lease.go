package store

import (
	"context"
	"fmt"
	"storefront/store/keys"
	"time"

	"github.com/redis/go-redis/v9"
)

// renewLease extends a lease only if this instance still holds it.
var renewLease = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// acquireLease takes or renews the named lease for ttl. Only the holder
// runs the worker it guards, so a worker that must run once across
// instances does. It reports whether this instance holds the lease.
func (s *Store) acquireLease(ctx context.Context, name string, ttl time.Duration) (bool, error) {
	key := keys.Lease(name)
	ok, err := s.rdb.SetNX(ctx, key, s.instance, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", name, err)
	}
	if ok {
		return true, nil
	}
	n, err := renewLease.Run(ctx, s.rdb, []string{key}, s.instance, ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", name, err)
	}
	return n == 1, nil
}

// releaseLease gives a lease up on shutdown so another instance can take
// over at once.
var releaseLeaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

func (s *Store) releaseLease(ctx context.Context, name string) {
	_ = releaseLeaseScript.Run(ctx, s.rdb, []string{keys.Lease(name)}, s.instance).Err()
}

// LeaseHolder says which instance holds a worker's lease, for the dashboard.
func (s *Store) LeaseHolder(ctx context.Context, name string) (string, error) {
	v, err := s.rdb.Get(ctx, keys.Lease(name)).Result()
	if err == redis.Nil {
		return "", nil
	}
	return v, err
}
