package platform

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Reader is the one way to read what many requests share (listings, the
// like boards, a session's own small keys): through a client with
// go-redis's server-assisted client-side caching where there is one (one
// Redis server, DB 0, RESP3: Redis tells the client when a key it read
// changes, so repeated reads are answered in process), else from Redis
// itself on one pipeline.
//
// What this instance writes shows at once in what it reads: its main
// client drops the keys a write may have changed from the caching
// client's copies before the write returns (see ownwrites.go), so only
// other instances' writes wait for Redis's invalidation.
//
// A read the caching client fails (its server restarted, say) keeps every
// read off it for cachePause, and is made again from Redis: the caller
// gets the answer, not the error.
type Reader struct {
	rdb      redis.UniversalClient
	cached   atomic.Pointer[CachingClient]
	failedAt atomic.Int64 // when the caching client last failed, Unix ns
	clock    *Clock
	hook     sync.Once // the main client's forgetWrites, added with the first caching client
}

// cachePause is how long reads keep off the caching client after it failed.
const cachePause = 10 * time.Second

// NewReader returns a reader over rdb, without a caching client until
// UseCache gives it one.
func NewReader(rdb redis.UniversalClient, clock *Clock) *Reader {
	return &Reader{rdb: rdb, clock: clock}
}

// UseCache gives the reader a client with client-side caching (see
// RedisConn.Cached) and makes the main client's writes drop what they
// change from its copies; nil takes it away.
func (r *Reader) UseCache(c *CachingClient) {
	r.cached.Store(c)
	if c != nil {
		r.hook.Do(func() { r.rdb.AddHook(forgetWrites{r: r}) })
	}
}

// Cached returns the caching client, or nil when there is none or it
// failed within the last cachePause.
func (r *Reader) Cached() *redis.Client {
	c := r.cached.Load()
	if c == nil || r.clock.Now().UnixNano()-r.failedAt.Load() <= int64(cachePause) {
		return nil
	}
	return c.Client
}

// Failed keeps reads off the caching client for a while; callers that
// read through Cached themselves report its failures here.
func (r *Reader) Failed() { r.failedAt.Store(r.clock.Now().UnixNano()) }

// Read runs read, which queues its commands on c and returns CmdErr of
// them: on the caching client, each answered at once, or on a pipeline
// of Redis itself, sent once read returns (so without a caching client
// the whole read is one round trip). A failure of the caching client is
// recorded and the whole read made again on the pipeline.
func (r *Reader) Read(ctx context.Context, read func(c redis.Cmdable) error) error {
	if c := r.Cached(); c != nil {
		if err := read(c); err == nil {
			return nil
		}
		r.Failed()
	}
	pipe := r.rdb.Pipeline()
	if err := read(pipe); err != nil {
		return err
	}
	if pipe.Len() == 0 {
		return nil
	}
	return RealErr(pipe.Exec(ctx))
}
