package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"storefront/store"
	"storefront/store/storetest"
)

// chromiumPath is Debian's Chromium, which the browser tests drive.
const chromiumPath = "/usr/bin/chromium"

// e2eApp is the whole program started by run, on the current test
// backend, with a store of its own on the same Redis and database for
// what no route does yet (posting articles comes with the article board).
type e2eApp struct {
	URL   string
	Store *store.Store
}

// startApp runs the program on a free port with a fresh Redis (the
// backend storetest picked, flushed) and a fresh database.
func startApp(t *testing.T) *e2eApp {
	t.Helper()
	rdb := storetest.Redis(t)
	dataDir := t.TempDir()
	env := map[string]string{
		"ADDR":           "127.0.0.1:0",
		"DATA_DIR":       dataDir,
		"ADMIN_PASSWORD": storetest.AdminPassword,
		"REGISTER_RATE":  "0",
		"LOGIN_RATE":     "0",
	}
	switch storetest.Backend() {
	case store.ModeSingle:
		env["REDIS_URL"] = os.Getenv("REDIS_URL")
	case store.ModeCluster:
		env["REDIS_CLUSTER_ADDRS"] = os.Getenv("REDIS_CLUSTER_ADDRS")
	default:
		env["REDIS_URL"] = "redis://" + storetest.Miniredis(t).Addr()
	}
	if u := os.Getenv("DATABASE_URL"); u != "" {
		env["DATABASE_URL"] = freshSchema(t, u)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("STORETEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	go func() { done <- run(ctx, func(k string) string { return env[k] }, logger, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("app did not start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("app stopped with %v", err)
		}
	})
	db, err := store.OpenDB(t.Context(), env["DATABASE_URL"], dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &e2eApp{URL: "http://" + addr, Store: store.New(rdb, db, storetest.Options(), logger)}
}

// freshSchema makes a schema for this test in DATABASE_URL and returns
// the URL that uses it; the schema is dropped afterwards.
func freshSchema(t *testing.T, u string) string {
	t.Helper()
	admin, err := store.OpenDB(t.Context(), u, "")
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("e2e_%d_%d", time.Now().UnixNano(), os.Getpid())
	if _, err := admin.ExecContext(t.Context(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	pu, _ := url.Parse(u)
	q := pu.Query()
	q.Set("search_path", schema)
	pu.RawQuery = q.Encode()
	return pu.String()
}

// browser starts headless Chromium, or skips the test without one
// (unless E2E=1, where a missing browser is a failure).
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("E2E") == "1" {
			t.Fatalf("E2E=1 but no browser: %v", err)
		}
		t.Skip("no Chromium at " + chromiumPath + "; set E2E=1 to require it")
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
	ctx, cancelCtx := chromedp.NewContext(actx)
	// A bound on the whole browser session, not a timing assertion.
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

func TestBrowserEngagement(t *testing.T) {
	ctx := browser(t)
	app := startApp(t)
	suffix := fmt.Sprintf("%d", time.Now().UnixNano()%1_000_000)
	reader, writer := "reader"+suffix, "writer"+suffix

	// The writer exists and has posted once before the reader comes.
	w, err := app.Store.CreateUser(t.Context(), writer, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	publish := func(id int64, title string) {
		t.Helper()
		err := app.Store.RecordPost(t.Context(), store.FeedEntry{ArticleID: id, AuthorID: w.ID, AuthorName: writer,
			Title: title, Link: "https://example.com/" + fmt.Sprint(id)})
		if err != nil {
			t.Fatal(err)
		}
	}
	publish(9001, "Before you followed")

	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	do("register",
		chromedp.Navigate(app.URL+"/register"),
		chromedp.SendKeys(chromedp.ID("username"), reader),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`form[action="/register"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=user-name]`)),
	)

	// Like an item: engage.js updates the count in place (the marker
	// survives: the page was not reloaded).
	do("item page",
		chromedp.Navigate(app.URL+"/items/5"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=like-box][data-liked="false"]`)),
	)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded = true`)); err != nil {
		t.Fatal(err)
	}
	do("like",
		chromedp.Click(chromedp.CSS(`[data-testid=like-box] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=like-box][data-liked="true"]`)),
	)
	if got := text(`[data-testid=like-count]`); got != "1" {
		t.Errorf("like count %q after liking", got)
	}
	if same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.notReloaded === true`)); err != nil || !same {
		t.Errorf("liking reloaded the page (%v): engage.js did not handle it", err)
	}
	do("home", chromedp.Navigate(app.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=most-liked] li[data-item-id="5"]`)))

	// Follow the writer: their post shows up in the feed at once, and new
	// posts arrive by fan-out.
	do("follow",
		chromedp.Navigate(app.URL+"/users/"+writer),
		chromedp.Click(chromedp.CSS(`[data-testid=follow-button]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=follow-button][aria-pressed="true"]`)),
	)
	if got := text(`[data-testid=followers-count]`); got != "1" {
		t.Errorf("followers %q after following", got)
	}
	publish(9002, "After you followed")
	do("feed",
		chromedp.Navigate(app.URL+"/feed"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=article][data-article-id="9002"]`)),
	)
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('[data-testid=article]')).map(e => e.dataset.articleId)`))
	if err != nil || strings.Join(ids, ",") != "9002,9001" {
		t.Errorf("feed %v (%v), want newest first [9002 9001]", ids, err)
	}

	// The writer follows back: the reader sees a notification count,
	// reads it, and the count clears.
	if _, err := app.Store.Follow(t.Context(), w.ID, readerID(t, app, reader), true); err != nil {
		t.Fatal(err)
	}
	if err := app.Store.NotifyFollower(t.Context(), readerID(t, app, reader), writer); err != nil {
		t.Fatal(err)
	}
	do("home again", chromedp.Navigate(app.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=unread-count]`)))
	if got := text(`[data-testid=unread-count]`); got != "1" {
		t.Errorf("unread %q, want 1", got)
	}
	do("notifications",
		chromedp.Click(chromedp.CSS(`a[href="/notifications"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=notification][data-kind=follower][data-unread="true"]`)),
	)
	if got := text(`[data-testid=unread-count]`); got != "0" {
		t.Errorf("unread %q on the notifications page, want 0", got)
	}
}

func readerID(t *testing.T, app *e2eApp, name string) int64 {
	t.Helper()
	u, err := app.Store.UserByName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}
