package platform

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis modes, as shown in logs and on the admin dashboard.
const (
	ModeSingle    = "single"
	ModeCluster   = "cluster"
	ModeEmbedded  = "embedded"
	ModeMiniredis = "miniredis"
)

// RedisConfig says where Redis is: an external server, a Cluster, or
// nothing, in which case ConnectRedis brings its own.
type RedisConfig struct {
	URL          string
	ClusterAddrs []string
	DataDir      string
}

// RedisConn is a connected client and whatever must be stopped with it.
type RedisConn struct {
	Client redis.UniversalClient
	Mode   string
	// Cached is a second client to the same single server with go-redis's
	// server-assisted client-side caching (RESP3, CLIENT TRACKING), for
	// reads that a cached page's holes need; nil where it does not apply
	// (a Cluster, miniredis, a DB other than 0).
	Cached *CachingClient
	stop   []func()
	health func() error
}

// clientSideCacheBytes bounds go-redis's client-side cache of small
// per-visitor keys (carts, unread counts, viewed lists, like state).
const clientSideCacheBytes = 16 << 20

// Health says whether the Redis side can serve or heal: an error only when
// the embedded redis-server could not be restarted for a while. An
// external Redis being down is an outage the app waits out (it answers 503
// meanwhile), not a reason to restart the app.
func (c *RedisConn) Health() error {
	if c.health == nil {
		return nil
	}
	return c.health()
}

// Close closes the client and stops an embedded server.
func (c *RedisConn) Close() {
	if c.Cached != nil {
		_ = c.Cached.Close()
	}
	_ = c.Client.Close()
	for i := len(c.stop) - 1; i >= 0; i-- {
		c.stop[i]()
	}
}

// ConnectRedis connects to REDIS_URL, else REDIS_CLUSTER_ADDRS, else starts a
// redis-server child on a unix socket (append-only file under DataDir), else
// runs miniredis in-process. An external server is not waited for here
// (see Ping).
func ConnectRedis(ctx context.Context, cfg RedisConfig, log *slog.Logger) (*RedisConn, error) {
	redis.SetLogger(&redisLog{log: log})
	var conn *RedisConn
	switch {
	case cfg.URL != "":
		opt, err := redis.ParseURL(cfg.URL)
		if err != nil {
			return nil, fmt.Errorf("REDIS_URL: %w", err)
		}
		tune(&opt.PoolSize, &opt.ReadTimeout, &opt.WriteTimeout, &opt.DialTimeout)
		opt.ContextTimeoutEnabled = true
		conn = &RedisConn{Client: redis.NewClient(opt), Mode: ModeSingle, Cached: NewCachingClient(opt, clientSideCacheBytes)}
	case len(cfg.ClusterAddrs) > 0:
		opt := &redis.ClusterOptions{Addrs: cfg.ClusterAddrs, ContextTimeoutEnabled: true}
		tune(&opt.PoolSize, &opt.ReadTimeout, &opt.WriteTimeout, &opt.DialTimeout)
		conn = &RedisConn{Client: redis.NewClusterClient(opt), Mode: ModeCluster}
	default:
		var err error
		if path, lookErr := exec.LookPath("redis-server"); lookErr == nil {
			conn, err = startRedisServer(ctx, path, cfg.DataDir, log)
			if err != nil {
				log.Warn("could not start redis-server, falling back to miniredis", "err", err)
			}
		}
		if conn == nil {
			conn, err = startMiniredis()
			if err != nil {
				return nil, err
			}
			log.Warn("using in-process miniredis: nothing in Redis survives a restart; set REDIS_URL or install redis-server")
		}
	}
	return conn, nil
}

// Ping checks that Redis answers: the caller waits for it at start-up,
// riding out a server that is not up yet.
func (c *RedisConn) Ping(ctx context.Context) error {
	if err := c.Client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis (%s): %w", c.Mode, err)
	}
	return nil
}

// redisLog carries go-redis's own messages into the app's structured log,
// at most one line a second. While Redis is down the client writes one
// unstructured line per failed dial, that is per request, which flooded
// the log in TestRedisOutage; each failed request is logged with its 503
// anyway. go-redis has one logger per process: the last app to connect
// sets it (only tests run several).
type redisLog struct {
	log        *slog.Logger
	last       atomic.Int64 // when the last line was written, Unix nanoseconds
	suppressed atomic.Int64
}

func (l *redisLog) Printf(ctx context.Context, format string, v ...any) {
	now, last := time.Now().UnixNano(), l.last.Load()
	if now-last < int64(time.Second) || !l.last.CompareAndSwap(last, now) {
		l.suppressed.Add(1)
		return
	}
	l.log.Warn("redis client", "detail", fmt.Sprintf(format, v...), "suppressed", l.suppressed.Swap(0))
}

// tune sets timeouts short enough that a slow or dead Redis turns into a
// 503 instead of a hang. The clients are also built with
// ContextTimeoutEnabled, without which go-redis ignores the request's
// deadline (REQUEST_TIMEOUT) and waits out its own 2 s read timeout: found
// by TestSlowRedis, where a 1 s budget gave 503s only after 2 s.
func tune(pool *int, read, write, dial *time.Duration) {
	if *pool == 0 {
		*pool = 10 * runtime.GOMAXPROCS(0)
	}
	*read, *write, *dial = 2*time.Second, 2*time.Second, 2*time.Second
}

func waitPing(ctx context.Context, c redis.UniversalClient, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		err := c.Ping(ctx).Err()
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
