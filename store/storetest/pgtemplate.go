package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"storefront/store/platform"
)

// Migrating every table and inserting a demo catalog costs more than most
// tests themselves. On PostgreSQL a test binary does it once per kind of
// contents, in a database of its own (a template), and each test gets a
// copy made by CREATE DATABASE ... TEMPLATE, which copies files instead
// of replaying statements. The binary's databases carry its process id in
// their names: they are dropped when its tests end, and those of a binary
// that died are dropped by the next one.

var (
	pgTemplatesMu sync.Mutex
	pgTemplates   = map[string]string{} // key -> template database name
	pgCopies      atomic.Int64
	pgNamePattern = regexp.MustCompile(`^sf(t|c)_(\d+)_`)
)

// DatabaseFromTemplate returns a DATABASE_URL for a database of the
// test's own holding what build put in the template named by key (built
// once per test binary, on first use), or "" when DATABASE_URL is unset.
// build gets the template's URL and must close every connection it opened
// before returning. The copy is dropped when the test ends.
func DatabaseFromTemplate(t testing.TB, key string, build func(ctx context.Context, databaseURL string) error) string {
	t.Helper()
	base := os.Getenv("DATABASE_URL")
	if base == "" {
		return ""
	}
	ctx := context.Background()
	admin, err := platform.OpenDB(ctx, base, "")
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	defer admin.Close()
	tmpl, err := pgTemplate(ctx, admin, base, key, build)
	if err != nil {
		t.Fatalf("database template %q: %v", key, err)
	}
	name := fmt.Sprintf("sfc_%d_%d", os.Getpid(), pgCopies.Add(1))
	if err := createDatabase(ctx, admin, name, tmpl); err != nil {
		t.Fatalf("copy of the database template %q: %v", key, err)
	}
	// Registered before the test's own clean-ups, so it runs after them:
	// the test's connections are closed by then (FORCE ends stragglers).
	t.Cleanup(func() { dropDatabases(base, name) })
	return withDatabase(base, name)
}

// pgTemplate returns the name of key's template database, building it
// the first time.
func pgTemplate(ctx context.Context, admin *sql.DB, base, key string, build func(context.Context, string) error) (string, error) {
	pgTemplatesMu.Lock()
	defer pgTemplatesMu.Unlock()
	if name, ok := pgTemplates[key]; ok {
		return name, nil
	}
	if len(pgTemplates) == 0 {
		dropDeadProcessesDatabases(ctx, admin, base)
	}
	name := fmt.Sprintf("sft_%d_%d", os.Getpid(), len(pgTemplates)+1)
	if err := createDatabase(ctx, admin, name, ""); err != nil {
		return "", err
	}
	if err := build(ctx, withDatabase(base, name)); err != nil {
		dropDatabases(base, name)
		return "", err
	}
	pgTemplates[key] = name
	atExit(func() { dropDatabases(base, name) })
	return name, nil
}

// createDatabase creates name, as a copy of template unless it is "".
// A template still held by a connection that is closing refuses to be
// copied for a moment; that is tried again.
func createDatabase(ctx context.Context, admin *sql.DB, name, template string) error {
	stmt := "CREATE DATABASE " + name
	if template != "" {
		stmt += " TEMPLATE " + template + " STRATEGY FILE_COPY"
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := admin.ExecContext(ctx, stmt)
		if err == nil || !strings.Contains(err.Error(), "is being accessed by other users") || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dropDatabases drops the named databases, ending any session still on them.
func dropDatabases(base string, names ...string) {
	ctx := context.Background()
	admin, err := platform.OpenDB(ctx, base, "")
	if err != nil {
		return
	}
	defer admin.Close()
	for _, n := range names {
		_, _ = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)")
	}
}

// dropDeadProcessesDatabases drops the templates and copies left by test
// binaries that no longer run (killed before their clean-ups).
func dropDeadProcessesDatabases(ctx context.Context, admin *sql.DB, base string) {
	rows, err := admin.QueryContext(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'sft\_%' OR datname LIKE 'sfc\_%'`)
	if err != nil {
		return
	}
	var dead []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) != nil {
			continue
		}
		m := pgNamePattern.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		pid, _ := strconv.Atoi(m[2])
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
			dead = append(dead, n)
		}
	}
	rows.Close()
	dropDatabases(base, dead...)
}

// withDatabase is base with its database name replaced.
func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = "/" + name
	q := u.Query()
	q.Del("search_path")
	u.RawQuery = q.Encode()
	return u.String()
}

var (
	exitMu    sync.Mutex
	exitHooks []func()
)

// atExit registers f to run when the package's tests have ended (Run).
func atExit(f func()) {
	exitMu.Lock()
	defer exitMu.Unlock()
	exitHooks = append(exitHooks, f)
}

func runExitHooks() {
	exitMu.Lock()
	hooks := exitHooks
	exitHooks = nil
	exitMu.Unlock()
	for _, f := range hooks {
		f()
	}
}
