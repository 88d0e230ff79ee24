package wiringtest

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"storefront/store/platform"
	"storefront/wiring"
)

// Every test of the HTTP layer starts from a migrated database holding the
// demo catalog. Migrating and inserting 1,200 items costs more than most
// tests themselves, so on SQLite each test binary does it once per kind
// of catalog and every test gets a copy of that file. PostgreSQL tests
// keep migrating a fresh schema each: they run in CI only.

var (
	templatesMu sync.Mutex
	templates   = map[templateKind][]byte{}
)

// templateKind is what of the options decides a template's contents.
type templateKind struct{ variants, noDemo bool }

// sqliteFromTemplate returns a fresh SQLite database for the test, already
// migrated and holding the demo catalog that opt asks for, or nil on
// PostgreSQL.
func sqliteFromTemplate(t testing.TB, opt wiring.Options) *sql.DB {
	t.Helper()
	if os.Getenv("DATABASE_URL") != "" {
		return nil
	}
	dir := t.TempDir()
	SeedDataDir(t, dir, opt)
	db, err := platform.OpenDB(context.Background(), "", dir)
	if err != nil {
		t.Fatalf("sqlite: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// SeedDataDir puts a copy of the template that opt asks for in dir as the
// app's SQLite file (shop.db), for an app a test starts with DATA_DIR=dir:
// it then finds its schema and catalog in place instead of building them.
// On PostgreSQL it does nothing.
func SeedDataDir(t testing.TB, dir string, opt wiring.Options) {
	t.Helper()
	if os.Getenv("DATABASE_URL") != "" {
		return
	}
	file, err := template(opt)
	if err != nil {
		t.Fatalf("database template: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop.db"), file, 0o600); err != nil {
		t.Fatalf("database template: %v", err)
	}
}

// template builds (once per process and catalog kind) a database that is
// migrated and holds the demo items (unless opt starts empty), and
// returns its file's bytes.
func template(opt wiring.Options) ([]byte, error) {
	templatesMu.Lock()
	defer templatesMu.Unlock()
	kind := templateKind{variants: opt.SeedVariants, noDemo: opt.NoDemo}
	if file, ok := templates[kind]; ok {
		return file, nil
	}
	dir, err := os.MkdirTemp("", "wiringtest-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file, err := buildTemplate(filepath.Join(dir, "shop.db"), opt)
	if err != nil {
		return nil, err
	}
	templates[kind] = file
	return file, nil
}

func buildTemplate(path string, opt wiring.Options) ([]byte, error) {
	ctx := context.Background()
	db, err := platform.OpenDB(ctx, "", filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	mr, err := miniredis.Run()
	if err != nil {
		return nil, err
	}
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	st := wiring.New(rdb, db, opt, slog.New(slog.DiscardHandler))
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if !opt.NoDemo {
		if err := st.Seeder.Items(ctx); err != nil {
			return nil, fmt.Errorf("seed: %w", err)
		}
	}
	// Fold the write-ahead log into the file, so that the file alone is
	// the whole database.
	if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}
