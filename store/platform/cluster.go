package platform

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// IsCluster reports whether keys may live on different nodes.
func IsCluster(rdb redis.UniversalClient) bool {
	_, ok := rdb.(*redis.ClusterClient)
	return ok
}

// ForEachMaster runs fn on every master of a Cluster, or on the one server.
func ForEachMaster(ctx context.Context, rdb redis.UniversalClient, fn func(context.Context, redis.UniversalClient) error) error {
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return fn(ctx, c) })
	}
	return fn(ctx, rdb)
}

// UnlinkMatching deletes the keys matching a pattern on one server, one
// key per command (keys of one node may be in different slots).
func UnlinkMatching(ctx context.Context, c redis.UniversalClient, match string) (int, error) {
	n := 0
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, match, 500).Result()
		if err != nil {
			return n, err
		}
		if len(keys) > 0 {
			pipe := c.Pipeline()
			for _, k := range keys {
				pipe.Unlink(ctx, k)
			}
			if _, err := pipe.Exec(ctx); err != nil {
				return n, err
			}
			n += len(keys)
		}
		if cursor = next; cursor == 0 {
			return n, nil
		}
	}
}
