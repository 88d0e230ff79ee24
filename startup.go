package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"storefront/handlers/web"
	"storefront/store/platform"
	"storefront/wiring"
)

// startup runs the start-up steps that talk to Redis and the database
// (connecting, migrating, seeding, the cookie keys) so that what a busy or
// restarting service does to them passes: a step that fails in a way that
// passes (platform.IsUnavailable: refused, reset or timed out, a server
// still loading its data or starting up) is tried again, with backoff,
// until START_TIMEOUT has passed since start-up began. Any other failure
// (a wrong password, a missing database, a broken migration) stops
// start-up at once with its message. One slow Redis reply while seeding
// used to end the process.
type startup struct {
	log      *slog.Logger
	timeout  time.Duration
	deadline time.Time
}

func newStartup(log *slog.Logger, timeout time.Duration) startup {
	return startup{log: log, timeout: timeout, deadline: time.Now().Add(timeout)}
}

// Backoff between attempts: doubling from startRetryFirst up to
// startRetryMax.
const (
	startRetryFirst = 100 * time.Millisecond
	startRetryMax   = 5 * time.Second
)

// step runs do until it succeeds, an error that does not pass stops it, ctx
// ends or the start deadline would pass before the next attempt.
func (s startup) step(ctx context.Context, name string, do func(context.Context) error) error {
	wait := startRetryFirst
	for attempt := 1; ; attempt++ {
		err := do(ctx)
		if err == nil {
			return nil
		}
		if !platform.IsUnavailable(err) || ctx.Err() != nil {
			return err
		}
		if time.Now().Add(wait).After(s.deadline) {
			return fmt.Errorf("%s: still failing %v after start-up began (START_TIMEOUT): %w", name, s.timeout, err)
		}
		s.log.Warn("start-up step failed, trying again", "step", name, "attempt", attempt, "retry_in", wait.String(), "err", err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait = min(2*wait, startRetryMax)
	}
}

// Where the cookie keys came from, as logged.
const (
	keysFromEnv        = "COOKIE_KEYS"
	keysFromDatabase   = "database"
	keysGenerated      = "generated, kept in the database"
	keysFromDataDir    = "DATA_DIR/cookie-keys, kept in the database"
	cookieKeysFileName = "cookie-keys"
)

// loadCookieKeys returns COOKIE_KEYS or, when it is not set, the keys kept
// in the database, which every instance on it shares: the first instance
// to start stores them (those of an older DATA_DIR/cookie-keys file, so
// that its visitors stay signed in, else new ones) and every other reads
// them back. Instances with DATA_DIRs of their own, on one PostgreSQL,
// agree on one set instead of each signing with its own. It logs where the
// keys came from.
func loadCookieKeys(ctx context.Context, start startup, cfg config, st *wiring.Services) (web.CookieKeys, error) {
	raw, source := cfg.CookieKeys, keysFromEnv
	if raw == "" {
		candidate, fromFile, err := candidateCookieKeys(cfg.DataDir)
		if err != nil {
			return nil, err
		}
		var stored bool
		err = start.step(ctx, "cookie keys", func(ctx context.Context) error {
			var err error
			raw, stored, err = st.Sessions.SharedCookieKeys(ctx, candidate)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("COOKIE_KEYS unset: %w", err)
		}
		switch {
		case !stored:
			source = keysFromDatabase
		case fromFile:
			source = keysFromDataDir
		default:
			source = keysGenerated
		}
	}
	keys, err := web.ParseCookieKeys(raw)
	if err != nil {
		return nil, fmt.Errorf("COOKIE_KEYS (%s): %w", source, err)
	}
	start.log.Info("cookie keys", "source", source, "keys", len(keys))
	return keys, nil
}

// candidateCookieKeys is what this instance offers to keep when the
// database holds no cookie keys yet: an older version's
// DATA_DIR/cookie-keys, else new keys.
func candidateCookieKeys(dataDir string) (keys string, fromFile bool, err error) {
	b, err := os.ReadFile(filepath.Join(dataDir, cookieKeysFileName))
	switch {
	case err == nil:
		keys = strings.TrimSpace(string(b))
		if _, err := web.ParseCookieKeys(keys); err != nil {
			return "", false, fmt.Errorf("COOKIE_KEYS unset and DATA_DIR/%s unreadable: %w", cookieKeysFileName, err)
		}
		return keys, true, nil
	case errors.Is(err, os.ErrNotExist):
		return web.GenerateCookieKeys(), false, nil
	default:
		return "", false, fmt.Errorf("COOKIE_KEYS unset: %w", err)
	}
}
