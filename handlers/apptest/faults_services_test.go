package apptest_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers/apptest"
)

// The fault tests start Redis and PostgreSQL servers of their own, on free
// ports in temporary directories, so that stopping them never disturbs the
// services other tests (or other people) share on this machine.

// freePort asks the kernel for a free TCP port on the loopback address.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ownRedis is a redis-server that belongs to one test.
type ownRedis struct {
	t    testing.TB
	bin  string
	port int
	dir  string
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	args []string
}

// startOwnRedis starts a redis-server on a free port with an append-only
// file fsynced on every write (so a stop and start loses nothing), or
// skips the test when redis-server is not installed. args are more
// settings ("--appendonly", "no"), which override those.
func startOwnRedis(t testing.TB, args ...string) *ownRedis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: this test stops and starts a Redis of its own")
	}
	r := &ownRedis{t: t, bin: bin, port: freePort(t), dir: t.TempDir(), args: args}
	r.Start()
	t.Cleanup(func() { r.Stop() })
	return r
}

// URL is the server's redis:// address.
func (r *ownRedis) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

// Addr is host:port.
func (r *ownRedis) Addr() string { return fmt.Sprintf("127.0.0.1:%d", r.port) }

// Start starts the server (again) and waits until it answers PING.
func (r *ownRedis) Start() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	args := append([]string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--dir", r.dir, "--appendonly", "yes", "--appendfsync", "always", "--save", "",
		"--logfile", filepath.Join(r.dir, "redis.log")}, r.args...)
	cmd := exec.Command(r.bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("redis-server: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	r.cmd, r.done = cmd, done
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(apptest.PollDeadline); ; {
		if err := c.Ping(context.Background()).Err(); err == nil {
			return
		} else if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
			r.t.Fatalf("redis-server on %d does not answer: %v\n%s", r.port, err, b)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// Stop shuts the server down (SIGTERM: it flushes its append-only file)
// and waits for it to exit.
func (r *ownRedis) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
	}
	r.cmd = nil
}

// Client is a client of the test's own, for assertions.
func (r *ownRedis) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: r.Addr()})
	r.t.Cleanup(func() { c.Close() })
	return c
}

// ownPostgres is a PostgreSQL cluster that belongs to one test.
type ownPostgres struct {
	t       testing.TB
	bin     string // directory of initdb, pg_ctl
	dir     string
	port    int
	runAs   string // "" or the user to run the server as (initdb refuses root)
	runuser string // the runuser program, when runAs is set
}

// startOwnPostgres makes a cluster with initdb in a temporary directory
// and starts it on a free port. As root it runs the server as the
// postgres user. It skips the test only when no PostgreSQL is installed
// or there is no user to run it as.
func startOwnPostgres(t testing.TB) *ownPostgres {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		}
	}
	if len(bins) == 0 {
		t.Skip("PostgreSQL is not installed (no initdb): this test stops and starts a PostgreSQL of its own")
	}
	p := &ownPostgres{t: t, bin: filepath.Dir(bins[len(bins)-1]), port: freePort(t)}
	// The data directory must be reachable by the server's user, which
	// t.TempDir (mode 0700, owned by us) is not when we are root; nor may
	// TMPDIR be (under /root, say), so as root it goes under /tmp.
	parent := ""
	if os.Geteuid() == 0 {
		parent = "/tmp"
	}
	dir, err := os.MkdirTemp(parent, "storefront-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root and there is no postgres user to run PostgreSQL as (initdb refuses root)")
		}
		p.runuser = findRunuser()
		if p.runuser == "" {
			t.Skip("running as root and runuser is missing: cannot run PostgreSQL as the postgres user")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		p.runAs = "postgres"
	}
	p.run("initdb", "-D", filepath.Join(dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
	t.Cleanup(func() { p.pgctl("stop", "-m", "immediate") })
	p.Start()
	return p
}

// findRunuser finds util-linux's runuser, also when /usr/sbin is not on
// PATH.
func findRunuser() string {
	if p, err := exec.LookPath("runuser"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/runuser", "/sbin/runuser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// URL is the server's postgres:// address.
func (p *ownPostgres) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

// Start starts the server and waits until it accepts connections.
func (p *ownPostgres) Start() {
	p.t.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off", p.port, p.dir)
	if err := p.pgctl("start", "-w", "-t", "30", "-o", opts, "-l", filepath.Join(p.dir, "pg.log")); err != nil {
		b, _ := os.ReadFile(filepath.Join(p.dir, "pg.log"))
		p.t.Fatalf("pg_ctl start: %v\n%s", err, b)
	}
}

// Stop shuts the server down (fast mode: open transactions roll back,
// committed ones are kept).
func (p *ownPostgres) Stop() {
	p.t.Helper()
	if err := p.pgctl("stop", "-w", "-m", "fast"); err != nil {
		p.t.Fatalf("pg_ctl stop: %v", err)
	}
}

func (p *ownPostgres) pgctl(args ...string) error {
	args = append([]string{"-D", filepath.Join(p.dir, "data")}, args...)
	cmd := p.command("pg_ctl", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

func (p *ownPostgres) run(name string, args ...string) {
	p.t.Helper()
	if out, err := p.command(name, args...).CombinedOutput(); err != nil {
		p.t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

func (p *ownPostgres) command(name string, args ...string) *exec.Cmd {
	bin := filepath.Join(p.bin, name)
	var cmd *exec.Cmd
	if p.runAs != "" {
		cmd = exec.Command(p.runuser, append([]string{"-u", p.runAs, "--", bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	cmd.Dir = p.dir // the server's user may not be able to read our working directory
	// pg_ctl's server must not inherit the test's stdout: go test waits
	// for it to close.
	cmd.Stdin = nil
	return cmd
}

// delayProxy is a TCP proxy that holds every chunk sent to the upstream
// server for a delay that the test can change (a slow Redis), or drops
// every new connection at once (a server not up yet).
type delayProxy struct {
	ln       net.Listener
	upstream string
	delay    atomic.Int64 // nanoseconds
	drop     atomic.Bool
	// hindered counts the connections dropped and the chunks delayed.
	hindered atomic.Int64
	// slowAfter, once a chunk sent upstream contains it, sets the delay
	// to slowBy (a server that turns slow at a given moment).
	slowAfter atomic.Pointer[string]
	slowBy    atomic.Int64
	mu        sync.Mutex
	conns     map[net.Conn]struct{}
	wg        sync.WaitGroup
}

// startDelayProxy proxies a free local port to upstream.
func startDelayProxy(t testing.TB, upstream string) *delayProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &delayProxy{ln: ln, upstream: upstream, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.Close)
	return p
}

// Addr is the proxy's host:port.
func (p *delayProxy) Addr() string { return p.ln.Addr().String() }

// SetDelay changes the delay of every chunk sent from now on.
func (p *delayProxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// SetDrop makes the proxy close every new connection at once, or not.
func (p *delayProxy) SetDrop(drop bool) { p.drop.Store(drop) }

// SlowAfter sets the delay to d once a chunk sent upstream contains
// marker (a command on a given key, say).
func (p *delayProxy) SlowAfter(marker string, d time.Duration) {
	p.slowBy.Store(int64(d))
	p.slowAfter.Store(&marker)
}

// Hindered is how many connections were dropped and chunks delayed.
func (p *delayProxy) Hindered() int64 { return p.hindered.Load() }

func (p *delayProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.drop.Load() {
			p.hindered.Add(1)
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			continue
		}
		p.track(c, up)
		p.wg.Add(2)
		go func() { defer p.wg.Done(); p.pipe(up, c, true); up.Close(); c.Close() }()
		go func() { defer p.wg.Done(); p.pipe(c, up, false); up.Close(); c.Close() }()
	}
}

func (p *delayProxy) track(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
}

// pipe copies src to dst, sleeping the current delay before each chunk
// when delayed.
func (p *delayProxy) pipe(dst, src net.Conn, delayed bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if d := time.Duration(p.delay.Load()); delayed && d > 0 {
				time.Sleep(d)
				p.hindered.Add(1)
			}
			if m := p.slowAfter.Load(); delayed && m != nil && bytes.Contains(buf[:n], []byte(*m)) && p.slowAfter.CompareAndSwap(m, nil) {
				p.delay.Store(p.slowBy.Load())
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Close stops the proxy and drops every connection.
func (p *delayProxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// startUnlimited starts the app with env and the rate limits off, as the
// load and fault tests need (they sign many shoppers in at once).
func startUnlimited(t testing.TB, env map[string]string) *apptest.App {
	t.Helper()
	full := map[string]string{"REGISTER_RATE": "0", "LOGIN_RATE": "0", "LOGIN_ADDR_RATE": "0", "VOTE_RATE": "0", "FOLLOW_RATE": "0", "LIKE_RATE": "0", "SESSION_RATE": "0"}
	maps.Copy(full, env)
	return apptest.Start(t, full)
}

// accountsOf makes accounts in app's database.
func accountsOf(t testing.TB, app *apptest.App) *accountMaker {
	return newAccountMaker(t, app.Env)
}

// signedIn makes the account name and returns a client signed in to it.
func signedIn(t testing.TB, app *apptest.App, name string) *apptest.Client {
	t.Helper()
	accountsOf(t, app).make(t, name)
	s := apptest.NewClient(t, app.URL)
	s.MustPost("/login", url.Values{"username": {name}, "password": {loadPassword}}, http.StatusSeeOther)
	return s
}
