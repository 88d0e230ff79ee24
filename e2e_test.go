package main

// The browser test harness: it starts the real app with run() on a clean
// Redis and database and drives headless Chromium through chromedp. Any
// browser test in this package can use it:
//
//	app := startBrowserApp(t, nil)
//	tab := newBrowser(t).tab(app)
//	tab.navigate("/")
//	tab.click(`a[href="/items"]`)
//
// Chromium is CHROMIUM_PATH or /usr/bin/chromium. Without it the tests
// skip, unless E2E=1 (CI), when they fail. Screenshots go to
// E2E_SCREENSHOTS, else to a temporary directory; a failing step saves one
// as well, named after the test.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"storefront/store"
	"storefront/store/storetest"
)

// e2eStepTimeout bounds each browser step, so a missing element fails the
// test instead of hanging it.
const e2eStepTimeout = 20 * time.Second

// browserApp is the shop started by run() for a browser test.
type browserApp struct {
	// URL is the shop's base URL, such as http://127.0.0.1:40123.
	URL string
}

// startBrowserApp runs the app on a free port with a temporary DATA_DIR, the
// current test backend's Redis (flushed) and a fresh database, and stops
// it when the test ends. env adds or overrides variables (SESSION_LIMIT...).
func startBrowserApp(t *testing.T, env map[string]string) *browserApp {
	t.Helper()
	storetest.Redis(t) // flushes the test's Redis
	vars := map[string]string{
		"ADDR":           "127.0.0.1:0",
		"DATA_DIR":       t.TempDir(),
		"ADMIN_PASSWORD": storetest.AdminPassword,
		"DATABASE_URL":   storetest.DatabaseURL(t),
	}
	switch storetest.Backend() {
	case store.ModeSingle:
		vars["REDIS_URL"] = os.Getenv("REDIS_URL")
	case store.ModeCluster:
		vars["REDIS_CLUSTER_ADDRS"] = os.Getenv("REDIS_CLUSTER_ADDRS")
	default:
		vars["REDIS_URL"] = "redis://" + storetest.Miniredis(t).Addr()
	}
	for k, v := range env {
		vars[k] = v
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("STORETEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	ctx, stop := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, func(k string) string { return vars[k] }, logger, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		stop()
		t.Fatalf("the app did not start: %v", err)
	case <-time.After(60 * time.Second):
		stop()
		t.Fatal("the app did not start in 60 s")
	}
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("the app stopped with: %v", err)
		}
	})
	return &browserApp{URL: "http://" + addr}
}

// e2eBrowser is one headless Chromium with its own profile.
type e2eBrowser struct {
	t   *testing.T
	ctx context.Context // the browser's first tab
}

// findChromium finds Chromium, skipping the test when there is none (or
// failing it when E2E=1 demands browser tests).
func findChromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("CHROMIUM_PATH")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if fi, err := os.Stat(path); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		if os.Getenv("E2E") == "1" {
			t.Fatalf("E2E=1 but there is no Chromium at %s (set CHROMIUM_PATH)", path)
		}
		t.Skipf("no Chromium at %s: browser tests skipped (set CHROMIUM_PATH, or E2E=1 to require them)", path)
	}
	return path
}

// newBrowser starts Chromium for the test and stops it at the end.
func newBrowser(t *testing.T) *e2eBrowser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(findChromium(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), // containers have a tiny /dev/shm
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first action starts the browser and must run on ctx itself: a
	// context derived from it would own the browser and close it when done.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return &e2eBrowser{t: t, ctx: ctx}
}

// e2eTab is a browser tab on one app; paths are relative to the app.
type e2eTab struct {
	t   *testing.T
	ctx context.Context
	app *browserApp
}

// tab returns the browser's first tab, pointed at app.
func (b *e2eBrowser) tab(app *browserApp) *e2eTab { return &e2eTab{t: b.t, ctx: b.ctx, app: app} }

// newTab opens another tab in the same browser (same cookies).
func (b *e2eBrowser) newTab(app *browserApp) *e2eTab {
	ctx, cancel := chromedp.NewContext(b.ctx)
	b.t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // opens the tab on ctx
		b.t.Fatalf("open a tab: %v", err)
	}
	return &e2eTab{t: b.t, ctx: ctx, app: app}
}

// do runs browser steps with a time limit, failing the test (with a
// screenshot) on error.
func (tb *e2eTab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, e2eStepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.failed(what, err)
	}
}

func (tb *e2eTab) failed(what string, err error) {
	tb.t.Helper()
	name := "failed-" + regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(tb.t.Name(), "_")
	shot := tb.trySnapshot(name)
	tb.t.Fatalf("%s: %v (screenshot: %s)", what, err, shot)
}

// navigate opens a path of the app and waits for the page to load.
func (tb *e2eTab) navigate(path string) {
	tb.t.Helper()
	tb.do("navigate to "+path, chromedp.Navigate(tb.app.URL+path), chromedp.WaitReady(chromedp.CSS("body")))
}

// click clicks the first element matching a CSS selector.
func (tb *e2eTab) click(sel string) {
	tb.t.Helper()
	tb.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// fill replaces the value of a form field.
func (tb *e2eTab) fill(sel, value string) {
	tb.t.Helper()
	tb.do("fill "+sel, chromedp.SetValue(chromedp.CSS(sel), value))
}

// typeInto types text into a field, as a person would.
func (tb *e2eTab) typeInto(sel, text string) {
	tb.t.Helper()
	tb.do("type into "+sel, chromedp.SendKeys(chromedp.CSS(sel), text))
}

// waitFor waits until an element matching the selector is visible.
func (tb *e2eTab) waitFor(sel string) {
	tb.t.Helper()
	tb.do("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
}

// text is the visible text of the first element matching the selector.
func (tb *e2eTab) text(sel string) string {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, e2eStepTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		tb.failed("read text of "+sel, err)
	}
	return strings.TrimSpace(s)
}

// eval runs JavaScript in the page and decodes its JSON result.
func eval[T any](tb *e2eTab, js string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, e2eStepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		tb.failed("evaluate "+js, err)
	}
	return v
}

// count is the number of elements matching the selector.
func (tb *e2eTab) count(sel string) int {
	tb.t.Helper()
	return eval[int](tb, fmt.Sprintf("document.querySelectorAll(%q).length", sel))
}

// attrs is the value of attr on every element matching the selector, in
// document order.
func (tb *e2eTab) attrs(sel, attr string) []string {
	tb.t.Helper()
	return eval[[]string](tb, fmt.Sprintf("Array.from(document.querySelectorAll(%q), e => e.getAttribute(%q) || '')", sel, attr))
}

// path is the current URL's path and query.
func (tb *e2eTab) path() string {
	tb.t.Helper()
	return eval[string](tb, "location.pathname + location.search")
}

// screenshotDir is E2E_SCREENSHOTS, else a directory of the test's own.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("E2E_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err == nil {
			return d
		}
	}
	return t.TempDir()
}

// screenshot saves the whole page as name.png and returns the file's path.
func (tb *e2eTab) screenshot(name string) string {
	tb.t.Helper()
	path := tb.trySnapshot(name)
	if path == "" {
		tb.t.Fatalf("screenshot %s failed", name)
	}
	return path
}

func (tb *e2eTab) trySnapshot(name string) string {
	ctx, cancel := context.WithTimeout(tb.ctx, e2eStepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return ""
	}
	path := filepath.Join(screenshotDir(tb.t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return ""
	}
	return path
}
