// Package apptest is the test harness of the whole program: the one HTTP
// client of the tests (Client, with helpers that read data-testid hooks)
// and the one way to start the shop (Start), which builds the storefront
// binary once per test binary and runs it as a child process, configured
// only through its environment, exactly as it runs in production.
//
// Its own _test.go files are the black-box suites, named by kind:
// browser_* (headless Chromium), process_* (the binary's life cycle),
// faults_* (Redis and PostgreSQL failing under load), instances_* (several
// app processes on one Redis and database) and load_* (the load program
// and the memory benchmark).
package apptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/platform"
	"storefront/store/storetest"
)

// Password is the password Client.Register gives new accounts.
const Password = "correct horse battery"

// CookieKeys are fixed cookie keys, shared by every instance a test starts
// (instances must agree on them) and by tests that forge cookies.
const CookieKeys = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWYwMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZg=="

// MetricsToken is the bearer token every app a test starts takes for /metrics.
const MetricsToken = "metrics-token-for-tests"

var (
	buildOnce sync.Once
	buildDir  string
	binPath   string
	buildErr  error
)

// Main runs a test package that starts the app: the tests named in own,
// which use servers of their own only, first and outside the shared
// servers' lock, then the others once per Redis backend
// (storetest.RunOwnFirst), then the package's own clean-ups (done), then
// it removes the binary it built.
func Main(m *testing.M, own []string, done ...func()) {
	code := storetest.RunOwnFirst(m, own...)
	for _, f := range done {
		f()
	}
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// Binary returns the path of the storefront binary, building it on first
// use (with -race when the tests run with it).
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "storefront-apptest-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "storefront")
		args := []string{"build", "-o", binPath}
		if raceBuild {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, "storefront")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build storefront: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// clientGone is the status the app logs for a request whose client went
// away before its answer was ready.
const clientGone = 499

// App is the shop running as a child process.
type App struct {
	// URL is the shop's base URL, such as http://127.0.0.1:40123.
	URL string
	// Env is the whole environment the process was started with.
	Env map[string]string

	cmd   *exec.Cmd
	logs  chan map[string]any
	exitC chan error
	once  sync.Once
	err   error
	mu    sync.Mutex
	// waited is set once the app's exit has been waited for.
	waited bool
	// handled is the status the app logged for each request id.
	handled map[string]int
	// lines are the other log lines, in order; raw is every line as read.
	lines []map[string]any
	raw   strings.Builder
}

// Start runs the shop with env on a free port and waits until it listens.
// The process sees only env, PATH, HOME and TMPDIR, plus defaults for what
// env leaves out: ADDR (a free port), DATA_DIR (a temporary directory),
// ADMIN_PASSWORD (storetest.AdminPassword), COOKIE_KEYS (CookieKeys),
// METRICS_TOKEN (MetricsToken) and DRAIN_DELAY (0: no load balancer
// watches a test's app, so its stop need not wait for one to notice;
// tests of the drain set it).
// A variable set to "" in env is passed empty (so REDIS_URL="" selects the
// embedded Redis). The app is stopped (SIGTERM) when the test ends.
func Start(t testing.TB, env map[string]string) *App {
	t.Helper()
	full := map[string]string{
		"ADDR":           "127.0.0.1:0",
		"ADMIN_PASSWORD": storetest.AdminPassword,
		"COOKIE_KEYS":    CookieKeys,
		"METRICS_TOKEN":  MetricsToken,
		"DRAIN_DELAY":    "0",
	}
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			full[k] = v
		}
	}
	maps.Copy(full, env)
	if _, ok := full["DATA_DIR"]; !ok {
		full["DATA_DIR"] = t.TempDir()
	}
	cmd := exec.Command(Binary(t))
	for k, v := range full {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &App{Env: full, cmd: cmd, logs: make(chan map[string]any, 1000), exitC: make(chan error, 1), handled: map[string]int{}}
	read := make(chan struct{})
	go func() {
		defer close(read)
		a.readLogs(stderr)
	}()
	// Wait closes the pipe: it must come after the last line is read.
	go func() { <-read; a.exitC <- cmd.Wait() }()
	t.Cleanup(func() {
		a.mu.Lock()
		waited := a.waited
		a.mu.Unlock()
		if waited {
			return // the test saw the exit and judged it
		}
		if err := a.Stop(); err != nil {
			t.Errorf("the app stopped with: %v", err)
		}
	})
	m := a.waitLog(t, "storefront listening", StartDeadline)
	a.URL = "http://" + m["addr"].(string)
	return a
}

func (a *App) readLogs(r interface{ Read([]byte) (int, error) }) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		a.mu.Lock()
		a.raw.Write(sc.Bytes())
		a.raw.WriteByte('\n')
		a.mu.Unlock()
		if os.Getenv("STORETEST_LOG") != "" {
			fmt.Fprintln(os.Stderr, sc.Text())
		}
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		// Request lines are kept apart: under load they would fill the
		// channel and crowd out the lines tests wait for.
		if m["msg"] == "request" {
			id, _ := m["id"].(string)
			st, _ := m["status"].(float64)
			a.mu.Lock()
			// A client's transport sends a GET again, with the same
			// id, when its connection closed under the first attempt
			// (the server closing it as idle while the request was on
			// its way): that attempt is logged as the client gone (499),
			// the answer the client got as itself, in either order.
			if prev, seen := a.handled[id]; !seen || prev == clientGone {
				a.handled[id] = int(st)
			}
			a.mu.Unlock()
			continue
		}
		a.mu.Lock()
		a.lines = append(a.lines, m)
		a.mu.Unlock()
		select {
		case a.logs <- m:
		default:
		}
	}
	close(a.logs)
}

// WaitLog returns the next log line with msg, failing the test after a
// generous deadline (PollDeadline; this is no timing assertion) or when
// the app exits first.
func (a *App) WaitLog(t testing.TB, msg string) map[string]any {
	t.Helper()
	return a.waitLog(t, msg, PollDeadline)
}

// StartDeadline is how long Start waits for the app to listen: longer
// than PollDeadline because a first start draws the demo pictures, which
// under -race on a busy machine, with several apps starting at once, can
// take minutes. It is a limit for a hung start, not a timing assertion.
const StartDeadline = 6 * time.Minute

func (a *App) waitLog(t testing.TB, msg string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m, ok := <-a.logs:
			if !ok {
				t.Fatalf("the app exited before logging %q; it logged:\n%s", msg, tail(a.Logs(), 20))
			}
			if m["msg"] == msg {
				return m
			}
		case <-deadline:
			t.Fatalf("no %q log line after %v", msg, within)
		}
	}
}

// Logs returns everything the app wrote to stderr so far.
func (a *App) Logs() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.raw.String()
}

// Logged returns the log lines so far whose msg is msg.
func (a *App) Logged(msg string) []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []map[string]any
	for _, m := range a.lines {
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// HandledRequests returns the status the app logged for each request id.
func (a *App) HandledRequests() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.handled)
}

// Pid is the app's process id.
func (a *App) Pid() int { return a.cmd.Process.Pid }

// Signal sends sig to the app.
func (a *App) Signal(sig os.Signal) error { return a.cmd.Process.Signal(sig) }

// Wait waits for the app to exit and returns how it exited (nil for status
// 0). An app still running after a generous deadline is killed and
// reported.
func (a *App) Wait() error {
	a.mu.Lock()
	a.waited = true
	a.mu.Unlock()
	a.once.Do(func() {
		select {
		case a.err = <-a.exitC:
		case <-time.After(PollDeadline):
			_ = a.cmd.Process.Kill()
			a.err = <-a.exitC
			a.err = fmt.Errorf("still running %v after it was told to stop (killed): %v", PollDeadline, a.err)
		}
	})
	return a.err
}

// Stop asks the app to shut down (SIGTERM) and returns how it exited: nil
// for a clean exit with status 0.
func (a *App) Stop() error {
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	return a.Wait()
}

// Kill ends the app at once (SIGKILL), as a crash would.
func (a *App) Kill() {
	_ = a.cmd.Process.Kill()
	_ = a.Wait()
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Backend is the current test backend (storetest) for an app process: a
// flushed Redis (the test's miniredis, which the app reaches over TCP, on
// a fresh machine) and a fresh database (a schema of its own in
// DATABASE_URL, else SQLite in DATA_DIR), with a client of that Redis for
// the test's own checks and setup.
type Backend struct {
	// Env selects the Redis and database for Start; it includes DATA_DIR.
	Env map[string]string
	// Mode is the Redis mode the app runs in (a miniredis is a single server to it).
	Mode string
	// Redis is a client of the app's Redis.
	Redis redis.UniversalClient
}

// NewBackend prepares a clean Redis and database from storetest.
func NewBackend(t testing.TB) Backend {
	t.Helper()
	b := Backend{Env: map[string]string{"DATA_DIR": t.TempDir(), "REDIS_URL": "", "REDIS_CLUSTER_ADDRS": ""}, Mode: platform.ModeSingle}
	b.Redis = storetest.Redis(t) // flushed
	switch storetest.Backend() {
	case platform.ModeCluster:
		b.Env["REDIS_CLUSTER_ADDRS"] = os.Getenv("REDIS_CLUSTER_ADDRS")
		b.Mode = platform.ModeCluster
	case platform.ModeSingle:
		b.Env["REDIS_URL"] = os.Getenv("REDIS_URL")
	default:
		b.Env["REDIS_URL"] = "redis://" + storetest.Miniredis(t).Addr()
	}
	b.Env["DATABASE_URL"] = storetest.DatabaseURL(t) // "" for SQLite in DATA_DIR
	return b
}

// With returns b's environment with extra added.
func (b Backend) With(extra map[string]string) map[string]string {
	env := maps.Clone(b.Env)
	maps.Copy(env, extra)
	return env
}

// Parallel runs the test in parallel with the package's other parallel
// tests when its Redis is its own (a miniredis per test, on a fresh
// machine). On a shared Redis server or Cluster each test flushes it, so
// tests there run one at a time.
func Parallel(t *testing.T) {
	if storetest.Backend() == platform.ModeMiniredis {
		t.Parallel()
	}
}
