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
	"storefront/store/storetest"
	"storefront/wiring"
)

// Every test of the HTTP layer starts from a migrated database holding the
// demo catalog. Migrating and inserting 1,200 items costs more than most
// tests themselves, so each test binary does it once per kind of catalog:
// on SQLite every test gets a copy of that file, on PostgreSQL a copy of
// that database (storetest.DatabaseFromTemplate).

var (
	templatesMu sync.Mutex
	templates   = map[templateKind][]byte{}
)

// templateKind is what of the options decides a template's contents.
type templateKind struct{ variants, noDemo bool }

// dbFromTemplate returns a fresh database for the test, already migrated
// and holding the demo catalog that opt asks for.
func dbFromTemplate(t testing.TB, opt wiring.Options) *sql.DB {
	t.Helper()
	dir := t.TempDir()
	u := SeedData(t, dir, opt)
	db, err := platform.OpenDB(context.Background(), u, dir)
	if err != nil {
		t.Fatalf("database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// SeedData prepares a database holding the template that opt asks for,
// for an app a test starts with DATA_DIR=dir and the DATABASE_URL it
// returns: it then finds its schema and catalog in place instead of
// building them. On SQLite it puts a copy of the template file in dir as
// the app's shop.db and returns ""; on PostgreSQL it returns the URL of a
// copy of the template database.
func SeedData(t testing.TB, dir string, opt wiring.Options) string {
	t.Helper()
	kind := templateKind{variants: opt.SeedVariants, noDemo: opt.NoDemo}
	if os.Getenv("DATABASE_URL") != "" {
		return storetest.DatabaseFromTemplate(t, fmt.Sprintf("wiringtest-%+v", kind), func(ctx context.Context, u string) error {
			db, err := platform.OpenDB(ctx, u, "")
			if err != nil {
				return err
			}
			defer db.Close()
			return fill(ctx, db, opt)
		})
	}
	file, err := template(kind, opt)
	if err != nil {
		t.Fatalf("database template: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop.db"), file, 0o600); err != nil {
		t.Fatalf("database template: %v", err)
	}
	return ""
}

// template builds (once per process and catalog kind) a database that is
// migrated and holds the demo items (unless opt starts empty), and
// returns its file's bytes.
func template(kind templateKind, opt wiring.Options) ([]byte, error) {
	templatesMu.Lock()
	defer templatesMu.Unlock()
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
	if err := fill(ctx, db, opt); err != nil {
		return nil, err
	}
	// Fold the write-ahead log into the file, so that the file alone is
	// the whole database.
	if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// fill migrates db and inserts the demo items unless opt starts empty,
// with the shop built on a Redis of its own that is thrown away after.
func fill(ctx context.Context, db *sql.DB, opt wiring.Options) error {
	mr, err := miniredis.Run()
	if err != nil {
		return err
	}
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	opt.RedisMode = platform.ModeSingle
	st := wiring.New(rdb, db, opt, slog.New(slog.DiscardHandler))
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if !opt.NoDemo {
		if err := st.Seeder.Items(ctx); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	return nil
}
