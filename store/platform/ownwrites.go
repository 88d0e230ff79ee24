package platform

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// A visitor's own change must show on the very next page this instance
// serves them. The pages' shared and per-visitor reads go through
// go-redis's client-side cache, which Redis invalidates by a message on
// the connection that read the key; the writes go on the main client, so
// that message lands a few milliseconds after the write returned, and a
// page read in between showed the old value (a signed-out name, an old
// cart count). So the main client drops from the cache every key a
// command may have changed as soon as the command's reply is in, before
// the caller goes on: one hook on the client, whatever domain wrote, so
// no write can forget it. A read fetched before the write and answered
// after the drop is not kept either: go-redis refuses to store a value
// whose reservation a drop removed. Other instances learn of the change
// from Redis within the invalidation latency (docs/page-cache.md).

// CachingClient is a client with go-redis's server-assisted client-side
// caching (RESP3, CLIENT TRACKING) and the cache it fills, which this
// instance's own writes drop keys from.
type CachingClient struct {
	*redis.Client
	local *redis.LocalCache
	// namespace is what go-redis puts before a key's name in the cache.
	namespace string
}

// NewCachingClient returns a client like opt's with client-side caching
// in at most maxBytes, or nil where go-redis cannot do it (it requires
// DB 0).
func NewCachingClient(opt *redis.Options, maxBytes int64) *CachingClient {
	if opt.DB != 0 {
		return nil
	}
	o := *opt
	o.Protocol = 3
	local := redis.NewLocalCache(redis.CacheConfig{MaxMemoryBytes: maxBytes})
	o.ClientSideCache, o.ClientSideCacheConfig = local, nil
	return &CachingClient{Client: redis.NewClient(&o), local: local, namespace: cacheNamespace(o.DB, o.Username)}
}

// cacheNamespace is how go-redis v9.23 prefixes a Redis key in its
// client-side cache (cscNamespacePrefix): the database, then the length
// and name of the ACL user, each ended by a NUL. It is not exported;
// TestOwnWriteDropsCachedRead (handlers/apptest) fails if it changes.
func cacheNamespace(db int, user string) string {
	return strconv.Itoa(db) + "\x00" + strconv.Itoa(len(user)) + ":" + user + "\x00"
}

// forget drops the keys from the cache, with any read of them under way.
func (c *CachingClient) forget(keys []string) {
	for _, k := range keys {
		c.local.DeleteByRedisKey(c.namespace + k)
	}
}

// forgetWrites is the main client's hook that drops, once a command's or
// a pipeline's reply is in, what they may have changed from the caching
// client's copies. It drops whether the command succeeded or not: one
// that timed out may still have been applied.
type forgetWrites struct{ r *Reader }

func (h forgetWrites) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h forgetWrites) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.r.forgetWritten(cmd)
		return err
	}
}

func (h forgetWrites) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		h.r.forgetWritten(cmds...)
		return err
	}
}

// forgetWritten drops the keys the commands may have written from the
// caching client's copies (all of them after a FLUSHDB).
func (r *Reader) forgetWritten(cmds ...redis.Cmder) {
	c := r.cached.Load() // also while reads keep off it: its copies outlive the pause
	if c == nil {
		return
	}
	var keys []string
	for _, cmd := range cmds {
		switch cmd.Name() {
		case "flushdb", "flushall":
			c.local.Flush()
			return
		}
		keys = writtenKeys(cmd.Args(), keys)
	}
	c.forget(keys)
}
