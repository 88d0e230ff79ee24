package handlers_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/store"
	"storefront/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// testKeys are fixed cookie keys so tests can forge and rotate cookies.
const testKeys = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWYwMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZg=="

// app is the real router over a clean store, served by httptest.
type app struct {
	t     *testing.T
	store *store.Store
	h     *handlers.Handler
	srv   *httptest.Server
}

// testConfig is the HTTP config tests start from.
func testConfig(t testing.TB) handlers.Config {
	keys, err := handlers.ParseCookieKeys(testKeys)
	if err != nil {
		t.Fatal(err)
	}
	return handlers.Config{
		CookieKeys:       keys,
		ItemsPerPage:     24,
		ArticlesPage:     25,
		MaxLineQty:       99,
		ViewedPerSession: 25,
		PageCacheTTL:     300 * time.Second,
		PageCacheTop:     10_000,
		RequestTimeout:   5 * time.Second,
	}
}

// newApp builds the app; edits adjust the store options and HTTP config.
func newApp(t *testing.T, editStore func(*store.Options), editCfg func(*handlers.Config)) *app {
	t.Helper()
	var st *store.Store
	if editStore != nil {
		st = storetest.Store(t, editStore)
	} else {
		st = storetest.Store(t)
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
	return &app{t: t, store: st, h: h, srv: srv}
}

// client is a browser: it keeps cookies and does not follow redirects.
type client struct {
	a   *app
	hc  *http.Client
	jar *cookiejar.Jar
}

func (a *app) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{a: a, jar: jar, hc: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       20 * time.Second,
	}}
}

// response is a finished request: status, headers and body.
type response struct {
	Status int
	Header http.Header
	Body   string
}

func (c *client) do(req *http.Request) response {
	c.a.t.Helper()
	res, err := c.hc.Do(req)
	if err != nil {
		c.a.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: string(b)}
}

func (c *client) get(path string) response {
	c.a.t.Helper()
	req, _ := http.NewRequest("GET", c.a.srv.URL+path, nil)
	return c.do(req)
}

// post sends a same-origin form, as a browser would.
func (c *client) post(path string, form url.Values, headers ...string) response {
	c.a.t.Helper()
	req, _ := http.NewRequest("POST", c.a.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.a.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.do(req)
}

func (c *client) cookie(name string) string {
	u, _ := url.Parse(c.a.srv.URL)
	for _, ck := range c.jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

func (c *client) setCookie(name, value string) {
	u, _ := url.Parse(c.a.srv.URL)
	c.jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

// register creates an account and signs this client in.
func (c *client) register(name string) {
	c.a.t.Helper()
	res := c.post("/register", url.Values{"username": {name}, "password": {"correct horse battery"}})
	if res.Status != http.StatusSeeOther {
		c.a.t.Fatalf("register %s: status %d: %s", name, res.Status, res.Body)
	}
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
	st := storetest.Store(b)
	h, err := handlers.New(testConfig(b), st, storetest.Logger(b))
	if err != nil {
		b.Fatal(err)
	}
	return &app{store: st, h: h}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
