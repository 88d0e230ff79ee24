package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/handlers/web"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// testKeys are fixed cookie keys so tests can forge and rotate cookies.
const testKeys = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWYwMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZg=="

// app is the real router over a clean store, served by httptest.
type app struct {
	t     *testing.T
	store *wiring.Services
	h     *handlers.Handler
	srv   *httptest.Server
	shift time.Duration // how far tests moved the store's clock
	links *linkBook     // the single-use links made, by row
}

// testConfig is the HTTP config tests start from.
func testConfig(t testing.TB) handlers.Config {
	keys, err := web.ParseCookieKeys(testKeys)
	if err != nil {
		t.Fatal(err)
	}
	return handlers.Config{
		CookieKeys:   keys,
		ItemsPerPage: 24,
		ArticlesPage: 25,
		MaxLineQty:   99,
		// Generous: the tests check what is answered, and a loaded machine
		// (-race, a Cluster, CPU-bound neighbours) must not turn a slow
		// answer into a 503. Tests of the budget set their own.
		RequestTimeout: 30 * time.Second,
		MetricsToken:   testMetricsToken,
	}
}

// newApp builds the app; edits adjust the store options and HTTP config.
func newApp(t *testing.T, editStore func(*wiring.Options), editCfg func(*handlers.Config)) *app {
	t.Helper()
	var st *wiring.Services
	if editStore != nil {
		st = wiringtest.New(t, editStore)
	} else {
		st = wiringtest.New(t)
	}
	cfg := testConfig(t)
	if editCfg != nil {
		editCfg(&cfg)
	}
	h, err := handlers.New(cfg, st, storetest.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Router())
	t.Cleanup(srv.Close)
	return &app{t: t, store: st, h: h, srv: srv, links: watchLinks(st)}
}

// client is the tests' one HTTP client (apptest.Client: cookies, no
// redirects, same-origin forms) speaking to this app, with helpers that
// know the app's store.
type client struct {
	*apptest.Client
	a *app
}

func (a *app) client() *client {
	return &client{Client: apptest.NewClient(a.t, a.srv.URL), a: a}
}

func mustContain(t *testing.T, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("body does not contain %q", w)
		}
	}
}

// newBenchApp builds the app for a benchmark.
func newBenchApp(b *testing.B) *app {
	b.Helper()
	st := wiringtest.New(b)
	h, err := handlers.New(testConfig(b), st, storetest.Logger(b))
	if err != nil {
		b.Fatal(err)
	}
	return &app{store: st, h: h}
}

// testMetricsToken is the bearer token tests scrape /metrics with.
const testMetricsToken = "metrics-token-for-tests"

// scrape reads /metrics as Prometheus would, with the bearer token.
func (a *app) scrape(t testing.TB) string {
	t.Helper()
	req, _ := http.NewRequest("GET", a.srv.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+testMetricsToken)
	res := a.client().Do(req)
	if res.Status != http.StatusOK {
		t.Fatalf("/metrics with the token: %d", res.Status)
	}
	return res.Body
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
