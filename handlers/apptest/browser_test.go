package apptest_test

// The browser test harness, shared by every e2e_*_test.go file: it starts
// the real app (apptest.Start) on the current test backend (a clean Redis and
// database from storetest) and drives headless Chromium through chromedp.
//
//	app := startBrowserApp(t, map[string]string{"PAGE_CACHE_TOP": "100"})
//	tab := newBrowser(t).tab(app)
//	tab.navigate("/")
//	tab.click(`a[href="/items"]`)
//	tab.waitText(`[data-testid="cart-count"]`, "1")
//
// Chromium is CHROMIUM_PATH or /usr/bin/chromium. Without it browser tests
// skip, unless E2E=1 (CI), when they fail. With E2E_SCREENSHOTS=<dir>,
// tab.screenshot saves pages there for people to look at; a failing step
// always saves one (to E2E_SCREENSHOTS, else the temporary directory).
//
// Waits poll for a condition up to a generous limit; nothing sleeps a
// fixed time, so a slow machine makes tests slower, not flaky.

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"storefront/handlers/apptest"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

const (
	// e2eStepTimeout bounds each browser step and each wait, so a missing
	// element fails the test instead of hanging it.
	e2eStepTimeout = 60 * time.Second
	// e2ePollInterval is how often waits look at the page again.
	e2ePollInterval = 25 * time.Millisecond
)

// browserApp is the shop started for a browser test, with handles on its
// Redis and database for what a test sets up behind the pages' back.
type browserApp struct {
	*apptest.App
	// AdminPassword signs in the seeded admin account.
	AdminPassword string
	// DataDir is the app's DATA_DIR (the SQLite file lives there).
	DataDir string
	// Redis is a client of the app's Redis server.
	Redis redis.UniversalClient
	// DB is a connection to the app's database.
	DB *sql.DB
	// Store is a store on the same Redis and database with the cheapest
	// bcrypt cost, for setup that no route does (posting as another
	// user...).
	Store *wiring.Services
}

// startBrowserApp starts the app (apptest.Start) on the current test
// backend's Redis (flushed) and a fresh database holding the demo
// catalog (a copy of a template database on PostgreSQL, of a template
// file in a temporary DATA_DIR on SQLite). env adds or overrides
// variables (SESSION_LIMIT...); edit, if given, adjusts the
// options the harness seeds with (SeedVariants for the demo sizes and
// colours).
//
// The harness seeds the demo data itself first, as another instance
// starting at the same time would, with the cheapest bcrypt cost: the app
// then finds it and leaves it alone. Otherwise the demo writers' random
// passwords, hashed at the default cost, would take most of each test's
// time (a second, and over ten under -race).
func startBrowserApp(t *testing.T, env map[string]string, edit ...func(*wiring.Options)) *browserApp {
	t.Helper()
	b := apptest.NewBackend(t)
	vars := b.With(env)
	ctx := context.Background()
	opt := wiringtest.Options()
	opt.RedisMode = b.Mode
	opt.SeedArticles = true
	for _, f := range edit {
		f(&opt)
	}
	if u := wiringtest.SeedData(t, vars["DATA_DIR"], opt); u != "" {
		vars["DATABASE_URL"] = u
	}
	db, err := platform.OpenDB(ctx, vars["DATABASE_URL"], vars["DATA_DIR"])
	if err != nil {
		t.Fatalf("open the app's database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	st := wiring.New(b.Redis, db, opt, storetest.Logger(t))
	t.Cleanup(st.Close)
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if _, err := st.SeedDemo(ctx, storetest.AdminPassword); err != nil {
		t.Fatalf("seed: %v", err)
	}
	// Started after the database's cleanups are registered, so it stops
	// before them: the app closes its connections before the schema is
	// dropped.
	app := apptest.Start(t, vars)
	return &browserApp{
		App:           app,
		AdminPassword: app.Env["ADMIN_PASSWORD"],
		DataDir:       app.Env["DATA_DIR"],
		Redis:         b.Redis,
		DB:            db,
		Store:         st,
	}
}

// client returns a new HTTP client (its own cookies) of the app.
func (a *browserApp) client(t *testing.T) *apptest.Client { return apptest.NewClient(t, a.URL) }

// e2eBrowser is a test's browser: a browser context of its own (its own
// cookies, storage and cache, like a fresh profile) in the test binary's
// one headless Chromium (sharedChromium).
type e2eBrowser struct {
	t       *testing.T
	ctx     context.Context // the browser's first tab
	cancel  context.CancelFunc
	started chan error // the tab's opening, which runs while the app starts
	once    sync.Once
	err     error
}

// findChromium finds Chromium, skipping the test when there is none (or
// failing it when E2E=1 demands browser tests). Every browser test calls
// it first, through newBrowser.
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

// newBrowser opens the test's browser (a new browser context in the
// shared Chromium, started on first use) and closes it at the end. Call
// it before startBrowserApp: a machine without Chromium skips at once,
// and the browser opens in the background while the app starts.
func newBrowser(t *testing.T) *e2eBrowser {
	t.Helper()
	path := findChromium(t)
	// What a page shows after its scripts ran is the same on a single
	// Redis and a Cluster, whose differences the HTTP tests cover: a
	// browser test runs on the first backend only.
	storetest.OnePass(t)
	b := &e2eBrowser{t: t, started: make(chan error, 1)}
	go func() {
		root, err := sharedChromium(path)
		if err != nil {
			b.started <- err
			return
		}
		// The first action opens the tab and must run on ctx itself: a
		// context derived from it would own the tab and close it when done.
		b.ctx, b.cancel = chromedp.NewContext(root, chromedp.WithNewBrowserContext())
		b.started <- chromedp.Do(b.ctx, chromedp.Navigate("about:blank"))
	}()
	t.Cleanup(func() {
		b.once.Do(func() { b.err = <-b.started })
		if b.cancel != nil {
			b.cancel() // closes the tabs and disposes of the browser context
		}
	})
	return b
}

// chromium is the test binary's one headless Chromium, which every
// browser test opens a browser context of its own in: starting a browser
// per test cost each test a Chromium start-up. A Chromium that died is
// started again for the next test.
var chromium struct {
	mu     sync.Mutex
	ctx    context.Context // the browser's first tab, which no test uses
	cancel func()
}

// sharedChromium returns the shared Chromium's first tab, starting the
// browser if it is not running.
func sharedChromium(path string) (context.Context, error) {
	chromium.mu.Lock()
	defer chromium.mu.Unlock()
	if chromium.ctx != nil && chromium.ctx.Err() == nil {
		return chromium.ctx, nil
	}
	if chromium.cancel != nil {
		chromium.cancel()
	}
	dir, err := os.MkdirTemp("", "storefront-chromium-")
	if err != nil {
		return nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), // containers have a tiny /dev/shm
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	chromium.ctx = ctx
	chromium.cancel = func() { cancel(); cancelAlloc(); os.RemoveAll(dir) }
	// The first action starts the browser and must run on ctx itself.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		chromium.cancel()
		chromium.ctx, chromium.cancel = nil, nil
		return nil, fmt.Errorf("start Chromium: %w", err)
	}
	return ctx, nil
}

// closeChromium stops the shared Chromium, if it was started (TestMain
// calls it once the tests are done).
func closeChromium() {
	chromium.mu.Lock()
	defer chromium.mu.Unlock()
	if chromium.cancel != nil {
		chromium.cancel()
	}
}

// ready waits for Chromium to have started.
func (b *e2eBrowser) ready(t *testing.T) {
	t.Helper()
	b.once.Do(func() { b.err = <-b.started })
	if b.err != nil {
		t.Fatalf("open the browser: %v", b.err)
	}
}

// e2eTab is a browser tab on one app; paths are relative to the app.
type e2eTab struct {
	t   *testing.T
	ctx context.Context
	app *browserApp
}

// tab returns the browser's first tab, pointed at app.
func (b *e2eBrowser) tab(app *browserApp) *e2eTab {
	b.t.Helper()
	b.ready(b.t)
	return &e2eTab{t: b.t, ctx: b.ctx, app: app}
}

// newTab opens another tab in the same browser (same cookies) for t,
// which may be a subtest of the browser's test.
func (b *e2eBrowser) newTab(t *testing.T, app *browserApp) *e2eTab {
	t.Helper()
	return b.open(t, app, "open a tab")
}

// freshTab opens a tab for t in a new browser context: its own cookies
// and storage, like another person's browser, without starting Chromium
// again.
func (b *e2eBrowser) freshTab(t *testing.T, app *browserApp) *e2eTab {
	t.Helper()
	return b.open(t, app, "open a tab in a new browser context", chromedp.WithNewBrowserContext())
}

func (b *e2eBrowser) open(t *testing.T, app *browserApp, what string, opts ...chromedp.ContextOption) *e2eTab {
	t.Helper()
	b.ready(t)
	ctx, cancel := chromedp.NewContext(b.ctx, opts...)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // opens the tab on ctx
		t.Fatalf("%s: %v", what, err)
	}
	return &e2eTab{t: t, ctx: ctx, app: app}
}

// disableScripts turns JavaScript off in the tab, as for a visitor who
// has it off: pages must work through plain forms and links.
func (tb *e2eTab) disableScripts() {
	tb.t.Helper()
	if _, err := chromedp.Call(tb.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		tb.failed("disable JavaScript", err)
	}
}

// try runs browser steps with a time limit and returns their error.
func (tb *e2eTab) try(steps ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(tb.ctx, e2eStepTimeout)
	defer cancel()
	return chromedp.Do(ctx, steps...)
}

// do runs browser steps with a time limit, failing the test (with a
// screenshot) on error.
func (tb *e2eTab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := tb.try(steps...); err != nil {
		tb.failed(what, err)
	}
}

// get runs one browser action that returns a value, failing the test on
// error.
//
// A read that found its element in a page since replaced (a form's answer
// still loading) is tried again on the new page, as click does.
func get[T any](tb *e2eTab, what string, a chromedp.Action[T]) T {
	tb.t.Helper()
	deadline := time.Now().Add(e2eStepTimeout)
	for {
		ctx, cancel := context.WithTimeout(tb.ctx, e2eStepTimeout)
		v, err := chromedp.Run(ctx, a)
		cancel()
		if err == nil {
			return v
		}
		if !staleNode(err) || time.Now().After(deadline) {
			tb.failed(what, err)
		}
	}
}

func (tb *e2eTab) failed(what string, err error) {
	tb.t.Helper()
	shot := tb.saveScreenshot(failureDir(), "failed-"+regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(tb.t.Name(), "_"))
	tb.t.Fatalf("%s: %v (screenshot: %s)", what, err, shot)
}

// navigate opens a path of the app and waits for the page to load.
func (tb *e2eTab) navigate(path string) {
	tb.t.Helper()
	tb.do("navigate to "+path, chromedp.Navigate(tb.app.URL+path), chromedp.WaitReady(chromedp.CSS("body")))
}

// navigateResponse opens a path of the app and returns the page's
// response (status, headers).
func (tb *e2eTab) navigateResponse(path string) *network.Response {
	tb.t.Helper()
	return get(tb, "navigate to "+path, chromedp.NavigateResponse(tb.app.URL+path))
}

// click clicks the first element matching a CSS selector. A click that
// loads another page does not wait for it: wait for what it shows.
//
// A page that is replaced between finding the element and clicking it
// (a form's answer still loading) leaves a node the browser no longer
// knows: nothing was clicked, so the click is tried again on the new page.
func (tb *e2eTab) click(sel string) {
	tb.t.Helper()
	deadline := time.Now().Add(e2eStepTimeout)
	for {
		err := tb.try(chromedp.Click(chromedp.CSS(sel)))
		if err == nil {
			return
		}
		if !staleNode(err) || time.Now().After(deadline) {
			tb.failed("click "+sel, err)
		}
	}
}

// staleNode tells whether a browser error is about a node of a document
// that has since been replaced.
func staleNode(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Could not find node with given id") ||
		strings.Contains(msg, "Node with given id does not belong to the document") ||
		strings.Contains(msg, "No node with given id found")
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
	return strings.TrimSpace(get(tb, "read the text of "+sel, chromedp.Text(chromedp.CSS(sel))))
}

// attr is an attribute of the first element matching the selector ("" if
// the element does not have it).
func (tb *e2eTab) attr(sel, name string) string {
	tb.t.Helper()
	return get(tb, "read "+name+" of "+sel, chromedp.AttributeValue(chromedp.CSS(sel), name)).Value
}

// eval runs JavaScript in the page and decodes its JSON result. It works
// with the page's scripts disabled too.
func eval[T any](tb *e2eTab, js string) T {
	tb.t.Helper()
	return get(tb, "evaluate "+js, chromedp.Evaluate[T](js))
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

// cookie is the value of the app's cookie name in the tab ("" if unset).
func (tb *e2eTab) cookie(name string) string {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, e2eStepTimeout)
	defer cancel()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		tb.failed("read cookies", err)
	}
	for _, c := range res.Cookies {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// waitUntil calls check until it reports true, for up to limit, and fails
// the test with what and check's last description otherwise. check may
// read a page that is still loading: its errors only mean "not yet".
func (tb *e2eTab) waitUntil(what string, limit time.Duration, check func() (ok bool, state string, err error)) {
	tb.t.Helper()
	for deadline := time.Now().Add(limit); ; {
		ok, last, err := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if err != nil {
				tb.failed(what, fmt.Errorf("still %q after %v (last error: %w)", last, limit, err))
			}
			tb.failed(what, fmt.Errorf("still %q after %v", last, limit))
		}
		time.Sleep(e2ePollInterval)
	}
}

// peek evaluates a JavaScript expression for a wait, in a short time so
// that a page being replaced only costs one poll.
func peek[T any](tb *e2eTab, js string) (T, error) {
	ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](js))
}

// waitText waits until the first element matching the selector has the
// text want (trimmed), through in-place updates or page loads.
func (tb *e2eTab) waitText(sel, want string) {
	tb.t.Helper()
	js := fmt.Sprintf("(e => e ? e.innerText.trim() : '<no %s>')(document.querySelector(%q))", sel, sel)
	tb.waitUntil(fmt.Sprintf("wait for the text of %s to be %q", sel, want), e2eStepTimeout, func() (bool, string, error) {
		got, err := peek[string](tb, js)
		return err == nil && got == want, got, err
	})
}

// waitAttr waits until the first element matching the selector has the
// attribute name set to want.
func (tb *e2eTab) waitAttr(sel, name, want string) {
	tb.t.Helper()
	js := fmt.Sprintf("(e => e ? e.getAttribute(%q) || '' : '<no %s>')(document.querySelector(%q))", name, sel, sel)
	tb.waitUntil(fmt.Sprintf("wait for %s of %s to be %q", name, sel, want), e2eStepTimeout, func() (bool, string, error) {
		got, err := peek[string](tb, js)
		return err == nil && got == want, got, err
	})
}

// waitPath waits until the current path (and query) starts with prefix,
// as after a form that redirects, and returns it.
func (tb *e2eTab) waitPath(prefix string) string {
	tb.t.Helper()
	var path string
	tb.waitUntil("wait for a page under "+prefix, e2eStepTimeout, func() (bool, string, error) {
		p, err := peek[string](tb, "location.pathname + location.search")
		path = p
		return err == nil && strings.HasPrefix(p, prefix), p, err
	})
	return path
}

// reloadUntil loads path again and again until the JavaScript expression
// js gives want, for up to limit: for pages that do not update themselves
// (an order's status, changed by a worker).
func (tb *e2eTab) reloadUntil(path, js, want string, limit time.Duration) {
	tb.t.Helper()
	tb.waitUntil(fmt.Sprintf("reload %s until %s is %q", path, js, want), limit, func() (bool, string, error) {
		if err := tb.try(chromedp.Navigate(tb.app.URL + path)); err != nil {
			return false, "", err
		}
		got, err := peek[string](tb, js)
		return err == nil && got == want, got, err
	})
}

// screenshot saves the whole page as name.png in E2E_SCREENSHOTS, when it
// is set (screenshots cost time, and nobody looks at them otherwise).
func (tb *e2eTab) screenshot(name string) {
	tb.t.Helper()
	dir := os.Getenv("E2E_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.t.Fatalf("E2E_SCREENSHOTS: %v", err)
	}
	if tb.saveScreenshot(dir, name) == "" {
		tb.t.Fatalf("screenshot %s failed", name)
	}
}

// failureDir is where a failing step's screenshot goes: E2E_SCREENSHOTS,
// else the system's temporary directory (a test's own would be removed).
func failureDir() string {
	if d := os.Getenv("E2E_SCREENSHOTS"); d != "" && os.MkdirAll(d, 0o755) == nil {
		return d
	}
	return os.TempDir()
}

// saveScreenshot writes the whole page to dir/name.png and returns the
// file's path, or "" if that failed.
func (tb *e2eTab) saveScreenshot(dir, name string) string {
	ctx, cancel := context.WithTimeout(tb.ctx, e2eStepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return ""
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return ""
	}
	return path
}

// readable is the readable URL path (/items/<id>-<slug>) the app moves a
// bare path to, so that a test compares the path the browser ends on.
func (a *browserApp) readable(t *testing.T, path string) string {
	t.Helper()
	return a.client(t).MustGet(path, http.StatusOK).URL
}
