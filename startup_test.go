package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"storefront/handlers/web"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestStartupStepRidesOutWhatPasses: a start-up step that fails in a way
// that passes (refused, timed out) is tried again until it succeeds; one
// that fails otherwise stops at once; one that keeps failing stops once
// START_TIMEOUT has passed, saying so.
func TestStartupStepRidesOutWhatPasses(t *testing.T) {
	ctx := t.Context()
	refused := fmt.Errorf("dial: %w", syscall.ECONNREFUSED)
	attempts := 0
	err := newStartup(quiet, time.Minute).step(ctx, "redis", func(context.Context) error {
		if attempts++; attempts < 4 {
			return refused
		}
		return nil
	})
	if err != nil || attempts != 4 {
		t.Errorf("a step refused 3 times: %v after %d attempts, want success on the 4th", err, attempts)
	}

	wrong := errors.New("WRONGPASS invalid username-password pair")
	attempts = 0
	err = newStartup(quiet, time.Minute).step(ctx, "redis", func(context.Context) error { attempts++; return wrong })
	if !errors.Is(err, wrong) || attempts != 1 {
		t.Errorf("a wrong password: %v after %d attempts, want it at once", err, attempts)
	}

	attempts = 0
	err = newStartup(quiet, 300*time.Millisecond).step(ctx, "seed", func(context.Context) error { attempts++; return refused })
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "START_TIMEOUT") || attempts < 2 {
		t.Errorf("a step refused past the deadline: %v after %d attempts, want the error naming START_TIMEOUT", err, attempts)
	}
}

// keysStore is a migrated store on the test's database, for the cookie
// keys.
func keysStore(t *testing.T) *wiring.Services {
	t.Helper()
	st := wiring.New(storetest.Redis(t), storetest.DB(t), wiringtest.Options(), quiet)
	t.Cleanup(st.Close)
	if err := st.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return st
}

func hashOf(t *testing.T, keys web.CookieKeys) string {
	t.Helper()
	if len(keys) == 0 {
		t.Fatal("no cookie keys")
	}
	return string(keys[0].Hash)
}

// TestCookieKeysSharedThroughTheDatabase: without COOKIE_KEYS, instances
// with DATA_DIRs of their own on one database, started one after another
// or all at once, sign with one key set, kept in the database.
func TestCookieKeysSharedThroughTheDatabase(t *testing.T) {
	ctx := t.Context()
	st := keysStore(t)
	start := newStartup(quiet, time.Minute)
	first, err := loadCookieKeys(ctx, start, config{DataDir: t.TempDir()}, st)
	if err != nil {
		t.Fatal(err)
	}
	again, err := loadCookieKeys(ctx, start, config{DataDir: t.TempDir()}, st)
	if err != nil {
		t.Fatal(err)
	}
	if hashOf(t, first) != hashOf(t, again) || len(first[0].Block) != 32 {
		t.Error("a second instance, with a DATA_DIR of its own, signs with other keys")
	}

	fresh := keysStore(t) // a new database: the first start of a deployment
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			keys, err := loadCookieKeys(ctx, start, config{DataDir: t.TempDir()}, fresh)
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = string(keys[0].Hash)
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("instances starting at once sign with %d different key sets", len(got))
		}
	}

	set, err := loadCookieKeys(ctx, start, config{DataDir: t.TempDir(), CookieKeys: web.GenerateCookieKeys()}, fresh)
	if err != nil || hashOf(t, set) == got[0] {
		t.Errorf("COOKIE_KEYS set: %v, or the database's keys were used", err)
	}
	if _, err := loadCookieKeys(ctx, start, config{DataDir: t.TempDir(), CookieKeys: "bm90IGEga2V5"}, fresh); err == nil || !strings.Contains(err.Error(), "COOKIE_KEYS") {
		t.Errorf("short COOKIE_KEYS: %v", err)
	}
}

// TestCookieKeysFromAnOlderDataDir: a shop that kept its generated keys
// in DATA_DIR/cookie-keys keeps signing with them (its visitors stay
// signed in, their guest carts stay theirs); a damaged file stops
// start-up with a message naming it.
func TestCookieKeysFromAnOlderDataDir(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	old := web.GenerateCookieKeys()
	if err := os.WriteFile(filepath.Join(dir, "cookie-keys"), []byte(old+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := web.ParseCookieKeys(old)
	if err != nil {
		t.Fatal(err)
	}
	start := newStartup(quiet, time.Minute)
	st := keysStore(t)
	got, err := loadCookieKeys(ctx, start, config{DataDir: dir}, st)
	if err != nil || hashOf(t, got) != hashOf(t, want) {
		t.Fatalf("the kept keys were not used: %v", err)
	}
	other, err := loadCookieKeys(ctx, start, config{DataDir: t.TempDir()}, st)
	if err != nil || hashOf(t, other) != hashOf(t, want) {
		t.Fatalf("another instance does not share the kept keys: %v", err)
	}

	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "cookie-keys"), []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadCookieKeys(ctx, start, config{DataDir: bad}, keysStore(t)); err == nil || !strings.Contains(err.Error(), "cookie-keys") {
		t.Errorf("a damaged DATA_DIR/cookie-keys: %v", err)
	}
}
