package platform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// startRedisServer runs redis-server as a supervised child (see
// redisSupervisor) on a unix socket, with its append-only file under
// DataDir.
//
// appendfsync no: every write is handed to the kernel (write(2)) before
// its reply, so a shopper's acknowledged change survives the child being
// killed, whatever the disk is doing. The default, everysec, holds writes
// back in Redis's own buffer, replies sent, for up to 2 s while an earlier
// background fsync is still running (a busy disk, a fresh append-only file
// at start-up): a SIGKILL then lost a cart the shopper had been told was
// saved (TestEmbeddedRedisKeepsCartAcrossKills). The kernel writes the
// pages out by itself within half a minute; a machine crash can lose
// those, and takes the app down with it. always would fsync before every
// reply, at a sixth of the write rate on the shared machine.
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
			"--dir", dir, "--appendonly", "yes", "--appendfsync", "no", "--save", "",
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
	return &RedisConn{Client: sup.client, Mode: ModeEmbedded, Cached: NewCachingClient(opt, clientSideCacheBytes), stop: []func(){sup.stop}, health: sup.health}, nil
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
