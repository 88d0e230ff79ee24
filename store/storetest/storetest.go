// Package storetest is test support, not part of the shop: it gives each
// test a clean Redis and a clean database, miniredis and a temporary
// SQLite file on a fresh machine, or real Redis (REDIS_URL), a Redis
// Cluster (REDIS_CLUSTER_ADDRS) and PostgreSQL (DATABASE_URL) when they
// are set. With both Redis variables set, Main runs every test of the
// package once on each.
//
// It builds on store/platform alone, so that any package's internal tests
// may use it; the whole shop on these backends is wiring/wiringtest's.
package storetest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"storefront/store/platform"
)

// AdminPassword is the admin account's password in tests.
const AdminPassword = "admin-password-for-tests"

var (
	mu      sync.Mutex
	backend = platform.ModeMiniredis
	pass    int                // the index of the current backend's pass
	ownPass bool               // RunOwnFirst's pass of tests on servers of their own
	onePass = map[string]int{} // OnePass tests: name -> the pass they ran on
	minis   = map[testing.TB]*miniredis.Miniredis{}
)

// Backends lists the Redis modes this run covers, from the environment.
func Backends() []string {
	var out []string
	if os.Getenv("REDIS_URL") != "" {
		out = append(out, platform.ModeSingle)
	}
	if os.Getenv("REDIS_CLUSTER_ADDRS") != "" {
		out = append(out, platform.ModeCluster)
	}
	if len(out) == 0 {
		out = append(out, platform.ModeMiniredis)
	}
	return out
}

// Main runs the package's tests once per Redis backend. Real servers are
// shared by every test binary, so a file lock makes packages take turns.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main without the exit: it returns the exit code, for a TestMain
// that has more to clean up.
func Run(m *testing.M) int { return RunOwnFirst(m) }

// RunOwnFirst is Run for a package whose top-level tests named in own use
// servers of their own only (an embedded Redis, a redis-server or a
// database of the test's), never the run's shared Redis: they run first,
// once, in a pass that does not wait for the shared servers' lock, so
// they overlap other packages' turns on the shared servers; the backend
// passes then leave them out (as -skip would). A test named here that
// asks for the shared Redis fails. With -run, -bench, -fuzz or -list
// given, there is no such pass: every test runs in the backend passes.
func RunOwnFirst(m *testing.M, own ...string) int {
	code := 0
	if !flag.Parsed() {
		flag.Parse() // as m.Run would: the user's -skip is read below
	}
	userSkip := flagValue("test.skip")
	if len(own) > 0 && flagValue("test.run") == "" && flagValue("test.bench") == "" &&
		flagValue("test.fuzz") == "" && flagValue("test.list") == "" {
		names := make([]string, len(own))
		for i, n := range own {
			names[i] = regexp.QuoteMeta(n)
		}
		pattern := "^(" + strings.Join(names, "|") + ")$"
		mu.Lock()
		backend, pass, ownPass = Backends()[0], 0, true
		mu.Unlock()
		fmt.Fprintf(os.Stderr, "storetest: tests on servers of their own (not the shared Redis) database=%s\n", DBKind())
		if err := flag.Set("test.run", pattern); err != nil {
			fmt.Fprintf(os.Stderr, "storetest: %v\n", err)
			return 1
		}
		if c := m.Run(); c != 0 {
			code = c
		}
		mu.Lock()
		ownPass = false
		mu.Unlock()
		if userSkip != "" {
			pattern = userSkip + "|" + pattern
		}
		userSkip = pattern
		if err := errors.Join(flag.Set("test.run", ""), flag.Set("test.skip", userSkip)); err != nil {
			fmt.Fprintf(os.Stderr, "storetest: %v\n", err)
			return 1
		}
	}
	for i, b := range Backends() {
		mu.Lock()
		backend = b
		pass = i
		mu.Unlock()
		if i > 0 {
			skipOnePassTests(userSkip)
		}
		unlock := func() {}
		if b != platform.ModeMiniredis {
			unlock = lockServer(b)
		}
		fmt.Fprintf(os.Stderr, "storetest: redis=%s database=%s\n", b, DBKind())
		if c := m.Run(); c != 0 {
			code = c
		}
		unlock()
	}
	runExitHooks()
	return code
}

// OnePass marks a test that learns nothing from another backend (it
// brings servers of its own, or it checks what a browser shows, which the
// Redis mode does not change and the HTTP tests cover on every backend):
// it runs on the
// first backend's pass only (called from a subtest, it is its top-level
// test that runs once). Run leaves it out of the later passes
// altogether (as -skip would), so it is neither reported as a pass that
// did nothing nor as a skip; were it reached on a later pass anyway, it
// skips with the reason.
func OnePass(t testing.TB) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	name := strings.SplitN(t.Name(), "/", 2)[0]
	first, seen := onePass[name]
	if !seen {
		onePass[name] = pass
		return
	}
	if first != pass {
		t.Skipf("learns nothing from a second backend: ran on the first backend's pass (this is redis=%s)", backend)
	}
}

// flagValue is the value of the testing flag name ("" if there is none).
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// skipOnePassTests sets -test.skip so that the OnePass tests seen so far
// do not run again, keeping the user's own -skip.
func skipOnePassTests(userSkip string) {
	mu.Lock()
	names := make([]string, 0, len(onePass))
	for name := range onePass {
		names = append(names, regexp.QuoteMeta(name))
	}
	mu.Unlock()
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	pattern := "^(" + strings.Join(names, "|") + ")$"
	if userSkip != "" {
		pattern = userSkip + "|" + pattern
	}
	if err := flag.Set("test.skip", pattern); err != nil {
		fmt.Fprintf(os.Stderr, "storetest: cannot leave out the one-pass tests: %v\n", err)
	}
}

// Backend is the Redis mode of the current run.
func Backend() string {
	mu.Lock()
	defer mu.Unlock()
	return backend
}

// DBKind is the database of this run.
func DBKind() string {
	if os.Getenv("DATABASE_URL") != "" {
		return platform.DBPostgres
	}
	return platform.DBSQLite
}

// lockServer makes test binaries that share one Redis server (or Cluster)
// take turns, since each test flushes it.
func lockServer(mode string) func() {
	addr := os.Getenv("REDIS_URL")
	if mode == platform.ModeCluster {
		addr = os.Getenv("REDIS_CLUSTER_ADDRS")
	}
	sum := sha256.Sum256([]byte(addr))
	name := "storefront-tests-" + hex.EncodeToString(sum[:6]) + ".lock"
	f, err := os.OpenFile(filepath.Join(os.TempDir(), name), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return func() {}
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }
}

// Redis returns an empty Redis for the test.
func Redis(t testing.TB) redis.UniversalClient {
	t.Helper()
	mu.Lock()
	own := ownPass
	mu.Unlock()
	if own {
		t.Fatalf("storetest: %s runs as a test on servers of its own (RunOwnFirst), outside the shared servers' lock, but asks for the shared Redis", t.Name())
	}
	ctx := context.Background()
	switch Backend() {
	case platform.ModeSingle:
		opt, err := redis.ParseURL(os.Getenv("REDIS_URL"))
		if err != nil {
			t.Fatalf("REDIS_URL: %v", err)
		}
		c := redis.NewClient(opt)
		if err := c.FlushDB(ctx).Err(); err != nil {
			t.Fatalf("flush redis: %v", err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	case platform.ModeCluster:
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(os.Getenv("REDIS_CLUSTER_ADDRS"), ",")})
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return m.FlushDB(ctx).Err() })
		if err != nil {
			t.Fatalf("flush cluster: %v", err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	mr := miniredis.RunT(t)
	mu.Lock()
	minis[t] = mr
	mu.Unlock()
	t.Cleanup(func() { mu.Lock(); delete(minis, t); mu.Unlock() })
	// miniredis runs in the test's own process: on a loaded machine (every
	// package's tests at once on two cores) a big pipeline can take longer
	// than go-redis's 3 s read timeout without anything being wrong.
	c := redis.NewClient(&redis.Options{Addr: mr.Addr(), ReadTimeout: time.Minute, WriteTimeout: time.Minute})
	t.Cleanup(func() { c.Close() })
	return c
}

// Miniredis returns the test's miniredis, or nil on a real server.
func Miniredis(t testing.TB) *miniredis.Miniredis {
	mu.Lock()
	defer mu.Unlock()
	return minis[t]
}

// Wait lets d pass for Redis TTLs: miniredis is fast-forwarded, a real
// server is waited for.
func Wait(t testing.TB, d time.Duration) {
	if mr := Miniredis(t); mr != nil {
		mr.FastForward(d)
		return
	}
	time.Sleep(d)
}

// DB returns an empty database for the test: a temporary SQLite file, or a
// fresh schema in DATABASE_URL that is dropped afterwards.
func DB(t testing.TB) *sql.DB {
	t.Helper()
	ctx := context.Background()
	if u := DatabaseURL(t); u != "" {
		db, err := platform.OpenDB(ctx, u, "")
		if err != nil {
			t.Fatalf("postgres: %v", err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db, err := platform.OpenDB(ctx, "", t.TempDir())
	if err != nil {
		t.Fatalf("sqlite: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// DatabaseURL returns a DATABASE_URL for an empty database: DATABASE_URL
// with search_path set to a fresh schema that is dropped after the test,
// or "" when DATABASE_URL is unset (SQLite). Tests that start the whole
// app (browser tests) pass it on.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("DATABASE_URL")
	if u == "" {
		return ""
	}
	ctx := context.Background()
	admin, err := platform.OpenDB(ctx, u, "")
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	schema := fmt.Sprintf("t_%d_%d", time.Now().UnixNano(), os.Getpid())
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	// Cleanups run last-in first-out: this one runs after the users of
	// the schema (registered later) have closed their connections.
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatalf("DATABASE_URL: %v", err)
	}
	q := pu.Query()
	q.Set("search_path", schema)
	pu.RawQuery = q.Encode()
	return pu.String()
}

// Logger discards logs unless STORETEST_LOG is set.
func Logger(t testing.TB) *slog.Logger {
	if os.Getenv("STORETEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// Must returns a read's value for the test, failing it on the read's error
// (redis.Nil, an absent key, is a value: the zero one). The reads that
// prove nothing changed go through it: an ignored error would read as
// "nothing there". Use: n := storetest.Must(rdb.Exists(ctx, k).Result())(t).
func Must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatalf("a read the test relies on failed: %v", err)
		}
		return v
	}
}

// PollDeadline bounds every wait for a condition: a busy machine makes a
// test slower, never red.
const PollDeadline = 2 * time.Minute

// Eventually polls cond until it holds, failing the test with msg after a
// generous deadline: tests wait for conditions, never for a fixed time.
func Eventually(t testing.TB, cond func() bool, msg string) {
	t.Helper()
	for deadline := time.Now().Add(PollDeadline); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not so after %v", msg, PollDeadline)
		}
	}
}

// Base is a platform.Base on a clean Redis and a clean, migrated
// database, for tests that build a service from its parts.
func Base(t testing.TB) platform.Base {
	t.Helper()
	db := DB(t)
	if err := platform.Migrate(context.Background(), db); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return platform.NewBase(Redis(t), db, Logger(t))
}
