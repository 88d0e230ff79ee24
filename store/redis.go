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
	stop   []func()
}

// Close closes the client and stops an embedded server.
func (c *RedisConn) Close() {
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
		conn = &RedisConn{Client: redis.NewClient(opt), Mode: ModeSingle}
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

// startRedisServer runs redis-server as a child that dies with the app:
// Pdeathsig asks the kernel to kill it when the thread that started it
// exits, and that thread is locked to a goroutine that lives as long as
// the child.
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
	_ = os.Remove(sock)
	args := []string{
		"--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
		"--dir", dir, "--appendonly", "yes", "--save", "",
		"--logfile", filepath.Join(dir, "redis.log"),
	}
	started := make(chan error, 1)
	exited := make(chan struct{})
	var cmd *exec.Cmd
	go func() {
		runtime.LockOSThread() // never unlocked: see the doc comment
		cmd = exec.Command(bin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
		if err := cmd.Start(); err != nil {
			started <- err
			close(exited)
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	client := redis.NewClient(&redis.Options{
		Network: "unix", Addr: sock, ContextTimeoutEnabled: true,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, DialTimeout: 2 * time.Second,
	})
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	if err := waitPing(ctx, client, 5*time.Second); err != nil {
		_ = client.Close()
		stop()
		return nil, fmt.Errorf("redis-server did not answer: %w", err)
	}
	log.Info("started redis-server child", "socket", sock, "dir", dir, "pid", cmd.Process.Pid)
	return &RedisConn{Client: client, Mode: ModeEmbedded, stop: []func(){stop}}, nil
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
