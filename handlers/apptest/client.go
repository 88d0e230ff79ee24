package apptest

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Client is a browser without JavaScript, the one HTTP client of every
// test that talks to the shop over HTTP: it keeps cookies, posts forms
// same-origin and follows no redirect but a permanent move (301, 308) of
// a GET on the same host, as a browser's address bar does (a page asked
// for by its bare id moves to its readable URL); GetExact follows none. Cookies are kept per host, and
// every test server is 127.0.0.1, so At moves a client between instances
// as a load balancer would, session and all.
type Client struct {
	// Base is the shop's URL that paths are relative to.
	Base string
	t    testing.TB
	hc   *http.Client
	// exact follows no redirect at all.
	exact *http.Client
	jar   *cookiejar.Jar
}

// Response is a finished request.
type Response struct {
	Status int
	Header http.Header
	Body   string
	// URL is the path and query that answered, after any permanent move.
	URL string
}

// NewClient returns a client of the shop at base with no cookies.
func NewClient(t testing.TB, base string) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{Base: base, t: t, jar: jar, hc: &http.Client{
		Jar:           jar,
		CheckRedirect: FollowMoves,
		// A bound so a hung request fails the test instead of hanging
		// it; generous because this is no timing assertion.
		Timeout: 60 * time.Second,
	}, exact: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       60 * time.Second,
	}}
}

// FollowMoves follows a permanent move of a GET or HEAD on the same host,
// a few times at most; every other redirect is the answer.
func FollowMoves(req *http.Request, via []*http.Request) error {
	code := req.Response.StatusCode
	prev := via[len(via)-1]
	if (code != http.StatusMovedPermanently && code != http.StatusPermanentRedirect) || len(via) > 3 ||
		(prev.Method != http.MethodGet && prev.Method != http.MethodHead) || req.URL.Host != prev.URL.Host {
		return http.ErrUseLastResponse
	}
	return nil
}

// At returns the same client (cookies and connections) speaking to base.
func (c *Client) At(base string) *Client {
	d := *c
	d.Base = base
	return &d
}

// HTTP returns the underlying client, for requests the helpers do not make.
func (c *Client) HTTP() *http.Client { return c.hc }

// Do sends req and reads the whole answer; a transport error fails the test.
// A request naming another Host (a forged one) still carries the client's
// cookies for Base, as an attacker's own browser session would.
func (c *Client) Do(req *http.Request) Response {
	c.t.Helper()
	return c.do(c.hc, req)
}

func (c *Client) do(hc *http.Client, req *http.Request) Response {
	c.t.Helper()
	if req.Host != "" && req.Host != req.URL.Host {
		for _, ck := range c.jar.Cookies(req.URL) {
			req.AddCookie(ck)
		}
	}
	res, err := hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatalf("%s %s: read the body: %v", req.Method, req.URL, err)
	}
	return Response{Status: res.StatusCode, Header: res.Header, Body: string(b), URL: res.Request.URL.RequestURI()}
}

// Try sends method path (form may be nil) and returns a transport error
// instead of failing the test: polls during a fault use it, where "no
// answer yet" is a state to wait through.
func (c *Client) Try(method, path string, form url.Values) (Response, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.Base+path, body)
	if err != nil {
		return Response{}, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return Response{}, err
	}
	return Response{Status: res.StatusCode, Header: res.Header, Body: string(b)}, nil
}

// Get requests path; headers are name, value pairs.
func (c *Client) Get(path string, headers ...string) Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.Base+path, nil)
	if err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	setHeaders(req, headers)
	return c.Do(req)
}

// GetExact requests path and follows no redirect, not even a permanent
// move: the tests of the moves themselves.
func (c *Client) GetExact(path string, headers ...string) Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.Base+path, nil)
	if err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	setHeaders(req, headers)
	return c.do(c.exact, req)
}

// Post sends a same-origin form, as a browser would; headers are name,
// value pairs and override the defaults.
func (c *Client) Post(path string, form url.Values, headers ...string) Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatalf("POST %s: %v", path, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.Base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	setHeaders(req, headers)
	return c.Do(req)
}

// MustGet gets path and fails the test unless the status is want.
func (c *Client) MustGet(path string, want int) Response {
	c.t.Helper()
	r := c.Get(path)
	if r.Status != want {
		c.t.Fatalf("GET %s%s: status %d, want %d: %.400s", c.Base, path, r.Status, want, r.Body)
	}
	return r
}

// MustPost posts form to path and fails the test unless the status is want.
func (c *Client) MustPost(path string, form url.Values, want int) Response {
	c.t.Helper()
	r := c.Post(path, form)
	if r.Status != want {
		c.t.Fatalf("POST %s%s: status %d, want %d: %.400s", c.Base, path, r.Status, want, r.Body)
	}
	return r
}

// Register creates the account name with Password and the address
// Email(name), and signs the client in.
func (c *Client) Register(name string) {
	c.t.Helper()
	c.MustPost("/register", url.Values{"username": {name}, "password": {Password}, "email": {Email(name)}}, http.StatusSeeOther)
}

// Email is the address Register gives the account name.
func Email(name string) string { return strings.ToLower(name) + "@example.com" }

// Login signs the client in as name with password.
func (c *Client) Login(name, password string) {
	c.t.Helper()
	c.MustPost("/login", url.Values{"username": {name}, "password": {password}}, http.StatusSeeOther)
}

// Cookie returns the value of the cookie name the client holds for Base.
func (c *Client) Cookie(name string) string {
	u, _ := url.Parse(c.Base)
	for _, ck := range c.jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// SetCookie stores a cookie for Base, as a forged or copied cookie would.
func (c *Client) SetCookie(name, value string) {
	u, _ := url.Parse(c.Base)
	c.jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

// CloseIdle drops the client's keep-alive connections.
func (c *Client) CloseIdle() { c.hc.CloseIdleConnections() }

func setHeaders(req *http.Request, headers []string) {
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "Host") {
			req.Host = headers[i+1] // what the request names, whatever it is sent to
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
}

// AttrsOf returns attr of every element whose data-testid is id, in order.
func AttrsOf(body, id, attr string) []string {
	re := regexp.MustCompile(`<[^>]*data-testid="` + regexp.QuoteMeta(id) + `"[^>]*>`)
	attrRe := regexp.MustCompile(`\s` + regexp.QuoteMeta(attr) + `="([^"]*)"`)
	var out []string
	for _, tag := range re.FindAllString(body, -1) {
		if m := attrRe.FindStringSubmatch(tag); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// FirstAttr returns attr of the first element whose data-testid is id, or "".
func FirstAttr(body, id, attr string) string {
	if v := AttrsOf(body, id, attr); len(v) > 0 {
		return v[0]
	}
	return ""
}

// TextOf returns the text of the first element whose data-testid is id.
func TextOf(body, id string) string {
	re := regexp.MustCompile(`data-testid="` + regexp.QuoteMeta(id) + `"[^>]*>([^<]*)<`)
	if m := re.FindStringSubmatch(body); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// ListIDs returns data-item-id of the children of the list whose
// data-testid is id (nil when the page has no such list).
func ListIDs(body, id string) []string {
	i := strings.Index(body, `data-testid="`+id+`"`)
	if i < 0 {
		return nil
	}
	rest := body[i:]
	if end := strings.Index(rest, "</ol>"); end >= 0 {
		rest = rest[:end]
	}
	var out []string
	for _, m := range regexp.MustCompile(`<li[^>]*data-item-id="(\d+)"`).FindAllStringSubmatch(rest, -1) {
		out = append(out, m[1])
	}
	return out
}

// Eventually polls check until it reports true, failing the test with
// what after a generous deadline. It is a bound, not a timing assertion:
// a slow machine makes a test slower, never red.
func Eventually(t testing.TB, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(PollDeadline)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not so after %v", what, PollDeadline)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// PollDeadline bounds every wait for a condition.
const PollDeadline = 2 * time.Minute
