package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/jackc/pgx/v5/pgconn"
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
	Cached *redis.Client
	stop   []func()
	health func() error
}

// clientSideCacheBytes bounds go-redis's client-side cache of small
// per-visitor keys (carts, unread counts, viewed lists, like state).
const clientSideCacheBytes = 16 << 20

// newCachedClient returns a client like opt's with client-side caching,
// or nil where go-redis cannot do it (it requires DB 0).
func newCachedClient(opt *redis.Options) *redis.Client {
	if opt.DB != 0 {
		return nil
	}
	o := *opt
	o.Protocol = 3
	o.ClientSideCacheConfig = &redis.ClientSideCacheConfig{MaxMemoryBytes: clientSideCacheBytes}
	return redis.NewClient(&o)
}

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
// runs miniredis in-process. It logs which one is in use.
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
		conn = &RedisConn{Client: redis.NewClient(opt), Mode: ModeSingle, Cached: newCachedClient(opt)}
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
	if err := waitPing(ctx, conn.Client, 10*time.Second); err != nil {
		conn.Close()
		return nil, fmt.Errorf("redis (%s): %w", conn.Mode, err)
	}
	log.Info("redis connected", "mode", conn.Mode)
	return conn, nil
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

// startRedisServer runs redis-server as a supervised child (see
// redisSupervisor) on a unix socket, with its append-only file under
// DataDir.
func startRedisServer(ctx context.Context, bin, dataDir string, log *slog.Logger) (*RedisConn, error) {
	dir, err := filepath.Abs(filepath.Join(dataDir, "redis"))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "redis.sock")
	if len(sock) > 100 { // unix socket paths are limited to 108 bytes
		tmp, err := os.MkdirTemp("", "storefront-redis")
		if err != nil {
			return nil, err
		}
		sock = filepath.Join(tmp, "redis.sock")
	}
	sup := &redisSupervisor{
		bin: bin, sock: sock, log: log, done: make(chan struct{}), stopped: make(chan struct{}),
		args: []string{
			"--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
			"--dir", dir, "--appendonly", "yes", "--save", "",
			"--logfile", filepath.Join(dir, "redis.log"),
		},
	}
	opt := &redis.Options{
		Network: "unix", Addr: sock, ContextTimeoutEnabled: true,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, DialTimeout: 2 * time.Second,
	}
	sup.client = redis.NewClient(opt)
	ch, err := sup.spawn()
	if err != nil {
		return nil, err
	}
	if err := waitPing(ctx, sup.client, 5*time.Second); err != nil {
		_ = sup.client.Close()
		ch.stop()
		return nil, fmt.Errorf("redis-server did not answer: %w", err)
	}
	log.Info("started redis-server child", "socket", sock, "dir", dir, "pid", ch.pid())
	go sup.run(ch)
	return &RedisConn{Client: sup.client, Mode: ModeEmbedded, Cached: newCachedClient(opt), stop: []func(){sup.stop}, health: sup.health}, nil
}

// Supervision timing: how often the watchdog pings the child, and how many
// pings in a row may time out before a frozen child is killed and
// restarted. A child that answers at all (even "LOADING" while it reads its
// append-only file) is alive.
const (
	watchdogEvery  = time.Second
	watchdogMisses = 3
)

// redisSupervisor keeps the embedded redis-server running: when the child
// exits (killed, crashed, out of memory) it is started again on the same
// socket from the same append-only file, within a second; when it stops
// answering (frozen, SIGSTOP) the watchdog kills it, which leads to the
// same restart. The go-redis client dials the socket afresh, so the app
// reconnects by itself. Each event is logged once; while the child is down
// requests get 503 as with any Redis outage.
type redisSupervisor struct {
	bin, sock string
	args      []string
	log       *slog.Logger
	client    *redis.Client
	done      chan struct{} // closed by stop
	stopped   chan struct{} // closed when run has returned
	failing   atomic.Int64  // Unix nanoseconds since restarts have failed, 0 when healthy
}

// redisChild is one run of redis-server.
type redisChild struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

func (c *redisChild) pid() int { return c.cmd.Process.Pid }

// stop ends the child: SIGTERM (it flushes the append-only file), then
// SIGKILL after 5 s.
func (c *redisChild) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// spawn starts a child that dies with the app: Pdeathsig asks the kernel
// to kill it when the thread that started it exits, and that thread is
// locked to a goroutine that lives as long as the child.
func (s *redisSupervisor) spawn() (*redisChild, error) {
	_ = os.Remove(s.sock)
	started := make(chan error, 1)
	ch := &redisChild{exited: make(chan struct{})}
	go func() {
		runtime.LockOSThread() // never unlocked: see the doc comment
		ch.cmd = exec.Command(s.bin, s.args...)
		ch.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
		if err := ch.cmd.Start(); err != nil {
			started <- err
			close(ch.exited)
			return
		}
		started <- nil
		_ = ch.cmd.Wait()
		close(ch.exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return ch, nil
}

// run watches the child until stop: it restarts a child that exited and
// kills one that stopped answering.
func (s *redisSupervisor) run(ch *redisChild) {
	defer close(s.stopped)
	tick := time.NewTicker(watchdogEvery)
	defer tick.Stop()
	misses := 0
	for {
		select {
		case <-s.done:
			ch.stop()
			return
		case <-ch.exited:
			s.log.Error("redis-server child exited; restarting it", "pid", ch.pid(), "state", ch.cmd.ProcessState.String())
			ch = s.restart()
			if ch == nil {
				return
			}
			misses = 0
		case <-tick.C:
			if s.answers() {
				misses = 0
				continue
			}
			if misses++; misses == watchdogMisses {
				s.log.Error("redis-server did not answer; killing it", "pid", ch.pid(), "pings", misses)
				_ = ch.cmd.Process.Kill() // the exit above restarts it
			}
		}
	}
}

// answers pings the child; any reply (LOADING included) means alive.
func (s *redisSupervisor) answers() bool {
	ctx, cancel := context.WithTimeout(context.Background(), watchdogEvery)
	defer cancel()
	err := s.client.Ping(ctx).Err()
	return err == nil || strings.HasPrefix(err.Error(), "LOADING")
}

// restart starts a new child, retrying with a growing pause (100 ms to
// 2 s) until it runs and answers or stop is called (nil then). While it
// fails, health reports it.
func (s *redisSupervisor) restart() *redisChild {
	pause := 100 * time.Millisecond
	for {
		ch, err := s.spawn()
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err = waitPing(ctx, s.client, 5*time.Second)
			cancel()
			if err == nil || strings.HasPrefix(err.Error(), "LOADING") {
				s.failing.Store(0)
				s.log.Info("redis-server child restarted", "pid", ch.pid())
				return ch
			}
			_ = ch.cmd.Process.Kill()
			<-ch.exited
		}
		if s.failing.Load() == 0 {
			s.failing.Store(time.Now().UnixNano())
			s.log.Error("redis-server could not be restarted; retrying", "err", err)
		}
		select {
		case <-s.done:
			return nil
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// health is an error while restarts have failed for more than 30 s: the
// app cannot heal by itself, and whatever runs it should restart it.
func (s *redisSupervisor) health() error {
	since := s.failing.Load()
	if since != 0 && time.Since(time.Unix(0, since)) > 30*time.Second {
		return errors.New("the embedded redis-server cannot be restarted")
	}
	return nil
}

// stop ends supervision and the child.
func (s *redisSupervisor) stop() {
	close(s.done)
	<-s.stopped
}

// startMiniredis runs miniredis in-process. Its TTLs only move when its
// clock is advanced, so a ticker fast-forwards it every second.
func startMiniredis() (*RedisConn, error) {
	mr := miniredis.NewMiniRedis()
	if err := mr.StartAddr("127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("miniredis: %w", err)
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				mr.FastForward(time.Second)
			case <-done:
				return
			}
		}
	}()
	client := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	return &RedisConn{Client: client, Mode: ModeMiniredis, stop: []func(){func() { close(done); mr.Close() }}}, nil
}

// IsUnavailable reports whether err means Redis or the database could not
// be reached or could not serve just now (as opposed to a bug), so that
// handlers answer 503 with Retry-After instead of 500.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redis.ErrClosed) ||
		errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, ErrUnavailable) {
		return true
	}
	// PostgreSQL going away: a connection that could not be made, or the
	// server ending it (a shutdown or restart: SQLSTATE 57P01-57P03, class
	// 08 connection exceptions, 53300 too many connections). Found by
	// TestPostgresOutage: "terminating connection due to administrator
	// command" was a 500.
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.Timeout(err) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") || pe.Code == "53300"
	}
	msg := err.Error()
	for _, s := range unavailableMessages {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// unavailableMessages are error texts of servers that cannot serve just
// now: Redis replies (a Cluster re-sharding or failing over, a replica
// promoted, a server loading its data, out of memory or busy with a
// script) and connection failures that reach us only as text.
var unavailableMessages = []string{
	"CLUSTERDOWN", "LOADING", "TRYAGAIN", "MASTERDOWN", "READONLY", "BUSY ", "OOM ",
	"connection refused", "broken pipe", "i/o timeout", "connection reset", "EOF", "pool timeout",
	"database is locked", "the database system is", "bad connection", "conn closed",
}
