package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// signInAdmin signs this client in as the admin account.
func (c *client) signInAdmin() {
	c.a.t.Helper()
	res := c.Post("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}})
	if res.Status != http.StatusSeeOther {
		c.a.t.Fatalf("admin sign-in: status %d: %s", res.Status, res.Body)
	}
}

// crossPost sends a form as another site would.
func (c *client) crossPost(path string, form url.Values) apptest.Response {
	c.a.t.Helper()
	req, _ := http.NewRequest("POST", c.a.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	return c.Do(req)
}

// stat returns the text of the <dd data-stat="name"> inside the element
// with the testid, without its hints.
func stat(t *testing.T, body, testid, name string) string {
	t.Helper()
	i := strings.Index(body, `data-testid="`+testid+`"`)
	if i < 0 {
		t.Fatalf("no %s in page", testid)
	}
	m := regexp.MustCompile(`data-stat="` + regexp.QuoteMeta(name) + `"[^>]*>([^<]*)`).FindStringSubmatch(body[i:])
	if m == nil {
		t.Fatalf("no stat %s in %s", name, testid)
	}
	return strings.TrimSpace(m[1])
}

func TestAdminAccess(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	shopper := a.client()
	shopper.Register("shopper1")

	tampered := a.client()
	tampered.signInAdmin()
	ck := tampered.Cookie("user")
	tampered.SetCookie("user", flip(ck))

	// The admin's signed `user` cookie on the shopper's token: the cookie is
	// bound to the admin's token, so here it counts for nothing: the visitor
	// is anonymous (not even the shopper), and anonymous goes to sign in.
	swapped := a.client()
	swapped.Register("shopper2")
	swapped.SetCookie("user", admin.Cookie("user"))

	// An admin whose token the server ended (signed out elsewhere, evicted).
	ended := a.client()
	ended.signInAdmin()
	if err := a.store.Sessions.EndSession(t.Context(), ended.Cookie("sid")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		c      *client
		method string
		path   string
		cross  bool
		status int
		where  string // Location for redirects
	}{
		{"anonymous dashboard", a.client(), "GET", "/admin", false, http.StatusSeeOther, "/login?next=%2Fadmin"},
		{"anonymous edit page", a.client(), "GET", "/admin/items/3?x=1", false, http.StatusSeeOther, "/login?next=%2Fadmin%2Fitems%2F3%3Fx%3D1"},
		{"anonymous post", a.client(), "POST", "/admin/rescale", false, http.StatusSeeOther, "/login?next=%2Fadmin"},
		{"shopper dashboard", shopper, "GET", "/admin", false, http.StatusForbidden, ""},
		{"shopper post", shopper, "POST", "/admin/cache/purge", false, http.StatusForbidden, ""},
		{"admin dashboard", admin, "GET", "/admin", false, http.StatusOK, ""},
		{"admin system page", admin, "GET", "/admin/system", false, http.StatusOK, ""},
		{"anonymous system page", a.client(), "GET", "/admin/system", false, http.StatusSeeOther, "/login?next=%2Fadmin%2Fsystem"},
		{"shopper system page", shopper, "GET", "/admin/system", false, http.StatusForbidden, ""},
		{"admin tampered cookie", tampered, "GET", "/admin", false, http.StatusSeeOther, "/login?next=%2Fadmin"},
		{"admin cookie on another token", swapped, "GET", "/admin", false, http.StatusSeeOther, "/login?next=%2Fadmin"},
		{"admin session ended", ended, "GET", "/admin", false, http.StatusSeeOther, "/login?next=%2Fadmin"},
		{"admin cross-origin post", admin, "POST", "/admin/rescale", true, http.StatusForbidden, ""},
		{"admin cross-origin purge", admin, "POST", "/admin/cache/purge", true, http.StatusForbidden, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var res apptest.Response
			switch {
			case tc.cross:
				res = tc.c.crossPost(tc.path, url.Values{"all": {"1"}})
			case tc.method == "POST":
				res = tc.c.Post(tc.path, url.Values{"all": {"1"}})
			default:
				res = tc.c.Get(tc.path)
			}
			if res.Status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", res.Status, tc.status, res.Body)
			}
			if tc.where != "" && res.Header.Get("Location") != tc.where {
				t.Errorf("Location %q, want %q", res.Header.Get("Location"), tc.where)
			}
			if res.Status == http.StatusOK {
				if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
					t.Errorf("Cache-Control %q, want no-store", cc)
				}
				for _, id := range []string{"cache-stats", "session-stats", "top-items", "row-cache", "workers"} {
					if n := len(testids(res.Body, id, "")); n != 1 && tc.path == "/admin/system" {
						t.Errorf("the system page has no %s", id)
					} else if n != 0 && tc.path == "/admin" {
						t.Errorf("the dashboard still shows %s: it moved to /admin/system", id)
					}
				}
			}
		})
	}
	// The cross-origin posts changed nothing; the admin is still signed in.
	if res := admin.Get("/admin"); res.Status != http.StatusOK {
		t.Fatalf("admin after the refused posts: %d", res.Status)
	}
}

// TestAdminRevoked: an admin whose rights were taken away in the database
// but who still holds the signed cookie that says admin gets 403 on the
// admin's pages and 404 on another shopper's order, which the admin could
// open the moment before.
func TestAdminRevoked(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(5, 10)
	shopper := a.client()
	shopper.Register("watched")
	order := "/orders/" + itoa(shopper.orderFor("watched", 5, 1))
	admin := a.client()
	admin.signInAdmin()
	if res := admin.Get("/admin"); res.Status != http.StatusOK {
		t.Fatalf("admin: %d", res.Status)
	}
	if res := admin.Get(order); res.Status != http.StatusOK {
		t.Fatalf("the admin opens a shopper's order: %d", res.Status)
	}
	// The signed cookie still says admin; the database no longer does.
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE users SET is_admin = $1, role = '' WHERE username_key = $2`, false, "admin"); err != nil {
		t.Fatal(err)
	}
	if res := admin.Get("/admin"); res.Status != http.StatusForbidden {
		t.Fatalf("revoked admin: %d, want 403", res.Status)
	}
	if res := admin.Get(order); res.Status != http.StatusNotFound {
		t.Fatalf("revoked admin on a shopper's order: %d, want 404", res.Status)
	}
	if res := shopper.Get(order); res.Status != http.StatusOK {
		t.Fatalf("the shopper's own order: %d", res.Status)
	}
}

// metricValue returns the value of one series in a /metrics body, or ""
// when it is absent. series is the name with its labels as printed.
func metricValue(body, series string) string {
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// second starts another instance of the app over the same Redis and
// database: its own store (instance name, Prometheus counters), handlers
// and server.
func (a *app) second(t *testing.T) *app {
	t.Helper()
	st := wiring.New(a.store.Redis(), a.store.DB(), a.store.Options(), storetest.Logger(t))
	t.Cleanup(st.Close)
	h, err := handlers.New(testConfig(t), st, storetest.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Router())
	t.Cleanup(srv.Close)
	return &app{t: t, store: st, h: h, srv: srv}
}

// logBuffer collects JSON log lines, safe for the server's goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// lines returns the logged records with the given message.
func (l *logBuffer) lines(msg string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(l.buf.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// audited lists the logged admin actions, oldest first and separated by
// commas, each as its fields (such as "action" and "target") joined by
// spaces.
func (l *logBuffer) audited(fields ...string) string {
	var actions []string
	for _, rec := range l.lines("admin action") {
		var parts []string
		for _, f := range fields {
			parts = append(parts, fmt.Sprint(rec[f]))
		}
		actions = append(actions, strings.Join(parts, " "))
	}
	return strings.Join(actions, ",")
}

// newLoggedApp is newApp with the handlers' logs kept for the test.
func newLoggedApp(t *testing.T) (*app, *logBuffer) {
	t.Helper()
	st := wiringtest.New(t)
	logs := &logBuffer{}
	h, err := handlers.New(testConfig(t), st, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Router())
	t.Cleanup(srv.Close)
	return &app{t: t, store: st, h: h, srv: srv}, logs
}

// TestAdminControls uses every control on the system page: each answers
// with a flash on the system page and writes an audit line; bad input is a
// 422 on the system page and changes nothing.
func TestAdminControls(t *testing.T) {
	a, logs := newLoggedApp(t)
	admin := a.client()
	admin.signInAdmin()
	admin.Get("/admin/system") // the sign-in flash goes
	ctx := t.Context()
	rdb := a.store.Redis()
	rdb.ZAdd(ctx, keys.ViewRanking, redis.Z{Score: -10, Member: "21"}, redis.Z{Score: -4, Member: "22"})

	steps := []struct {
		name   string
		form   url.Values
		path   string
		flash  string
		action string
		target string
	}{
		{"schedule a row", url.Values{"row": {"7"}, "delay": {"5"}}, "/admin/rowcache", "Row 7 is cached and refreshed every 5 s.", "schedule row", "row 7"},
		{"purge an item", url.Values{"item": {"21"}}, "/admin/cache/purge", "Purged 0 cached pages of item 21.", "purge item pages", "item 21"},
		{"purge all", url.Values{"all": {"1"}}, "/admin/cache/purge", "Purged every cached page: 0 pages.", "purge all pages", "all pages"},
		{"rescale", nil, "/admin/rescale", "View counts rescaled.", "rescale views", keys.ViewRanking},
		{"unschedule the row", url.Values{"row": {"7"}, "delay": {"0"}}, "/admin/rowcache", "Row 7 is no longer cached.", "unschedule row", "row 7"},
	}
	for i, st := range steps {
		res := admin.Post(st.path, st.form)
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/admin/system" {
			t.Fatalf("%s: %d to %q", st.name, res.Status, res.Header.Get("Location"))
		}
		page := admin.Get("/admin/system")
		if got := textOf(page.Body, "flash"); got != st.flash {
			t.Errorf("%s: flash %q, want %q", st.name, got, st.flash)
		}
		audits := logs.lines("admin action")
		if len(audits) != i+1 {
			t.Fatalf("%s: %d audit lines, want %d", st.name, len(audits), i+1)
		}
		rec := audits[i]
		if rec["who"] != "admin" || rec["action"] != st.action || rec["target"] != st.target || rec["at"] == nil {
			t.Errorf("%s: audit line %v", st.name, rec)
		}
		switch st.name {
		case "schedule a row":
			if got := listItems(t, page.Body, "row-cache"); strings.Join(got, ",") != "7" || !strings.Contains(page.Body, `data-stat="delay">5 s<`) {
				t.Errorf("the row cache lists %v, want row 7 every 5 s", got)
			}
		case "rescale":
			if v := rdb.ZScore(ctx, keys.ViewRanking, "21").Val(); v != -5 {
				t.Errorf("viewed: score of 21 after rescale %v, want -5", v)
			}
		case "unschedule the row":
			if got := listItems(t, page.Body, "row-cache"); len(got) != 0 {
				t.Errorf("the row cache still lists %v", got)
			}
		}
	}
	// Links to edit items sit beside the popular items.
	page := admin.Get("/admin/system")
	if got := listItems(t, page.Body, "top-items"); strings.Join(got, ",") != "21,22" {
		t.Errorf("top items %v", got)
	}
	mustContain(t, page.Body, `href="/admin/items/21"`, `href="/admin/items/22"`)

	// Bad input: 422 on the dashboard with the message, no audit line.
	for _, bad := range []struct {
		path string
		form url.Values
	}{
		{"/admin/rowcache", url.Values{"row": {"x"}, "delay": {"5"}}},
		{"/admin/rowcache", url.Values{"row": {"7"}, "delay": {"soon"}}},
		{"/admin/cache/purge", url.Values{"item": {"-3"}}},
	} {
		res := admin.Post(bad.path, bad.form)
		if res.Status != http.StatusUnprocessableEntity || textOf(res.Body, "flash") == "" || len(testids(res.Body, "cache-stats", "")) != 1 {
			t.Errorf("%s %v: %d, want 422 on the dashboard with a message", bad.path, bad.form, res.Status)
		}
	}
	if n := len(logs.lines("admin action")); n != len(steps) {
		t.Errorf("%d audit lines after bad input, want %d", n, len(steps))
	}
	if storetest.Must(rdb.Exists(ctx, keys.RowCache(7)).Result())(t) != 0 || storetest.Must(rdb.ZCard(ctx, keys.RowSchedule).Result())(t) != 0 {
		t.Error("bad input changed the row cache")
	}
}
