package main

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"storefront/store"
)

// The fault tests break Redis and PostgreSQL servers of their own while
// the shop is under load and check what shoppers see: a friendly 503 (or
// an item page from the database), never a 500, a panic or a hang; full
// service within 5 s of the server coming back; nothing lost.

// recoveryBudget is how soon after a server returns full service must.
const recoveryBudget = 5 * time.Second

var ranOnce sync.Map

// firstPass reports whether this is the test's first run in this process.
// storetest.Main runs the package once per Redis backend; tests that bring
// their own servers do not depend on the backend and run only once.
func firstPass(t *testing.T) bool {
	if _, again := ranOnce.LoadOrStore(t.Name(), true); again {
		t.Log("uses servers of its own, not the backend: already ran on the first backend")
		return false
	}
	return true
}

// someRedisURL is a Redis for tests that break only the database: a
// redis-server of the test's own, else miniredis.
func someRedisURL(t *testing.T) string {
	if _, err := exec.LookPath("redis-server"); err == nil {
		return startOwnRedis(t).URL()
	}
	return "redis://" + miniredis.RunT(t).Addr()
}

// goroutinesSettle waits for the goroutine count to fall to at most want,
// and returns the last count seen.
func goroutinesSettle(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 100 && n > want; i++ {
		time.Sleep(50 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// closeIdle drops the test clients' keep-alive connections (and their
// goroutines) before goroutines are counted.
func closeIdle(users []*loadUser, shoppers ...*shopper) {
	for _, u := range users {
		u.hc.CloseIdleConnections()
	}
	for _, s := range shoppers {
		s.hc.CloseIdleConnections()
	}
	http.DefaultClient.CloseIdleConnections()
}

// faultLoad runs a small load in the background until stop is called,
// and returns the recorder.
func faultLoad(t *testing.T, base string, users []*loadUser, articles []string) (rec *loadRecorder, stop func()) {
	rec = &loadRecorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runLoad(ctx, workloadConfig{Bases: []string{base}, Items: store.DemoItemCount, Articles: articles}, users, rec)
	}()
	return rec, func() { cancel(); <-done }
}

// waitSamples waits until rec has n more samples than it had at mark.
func waitSamples(t *testing.T, rec *loadRecorder, mark, n int) {
	t.Helper()
	for i := 0; len(rec.snapshot()) < mark+n; i++ {
		if i == 600 {
			t.Fatalf("load made no progress: %d samples", len(rec.snapshot())-mark)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkSamples fails the test for any answer that is not a page, a
// redirect, a 4xx or a 503, for transport errors and for requests slower
// than limit (a hang).
func checkSamples(t *testing.T, samples []sample, limit time.Duration) (unavailable int) {
	t.Helper()
	for _, s := range samples {
		switch {
		case s.err != nil:
			t.Errorf("%s: transport error %v", s.kind, s.err)
		case s.status == http.StatusServiceUnavailable:
			unavailable++
		case s.status >= 500:
			t.Errorf("%s: status %d", s.kind, s.status)
		}
		if s.took > limit {
			t.Errorf("%s: took %v, over %v", s.kind, s.took, limit)
		}
	}
	return unavailable
}

// waitRecovered polls until /readyz says ready and the shopper's home page
// renders signed in, and returns how long that took.
func waitRecovered(t *testing.T, base string, s *shopper, name string) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		r := s.get(base, "/readyz")
		if r.Status == http.StatusOK {
			if h := s.get(base, "/"); h.Status == http.StatusOK && textOf(h.Body, "user-name") == name {
				return time.Since(start)
			}
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("no recovery within 30 s: readyz %d", r.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkFriendly503 checks that path answers the friendly 503 page.
func checkFriendly503(t *testing.T, s *shopper, base, path string) {
	t.Helper()
	r := s.get(base, path)
	if r.Status != http.StatusServiceUnavailable {
		t.Fatalf("GET %s during the outage: status %d, want 503", path, r.Status)
	}
	if r.Header.Get("Retry-After") == "" {
		t.Errorf("GET %s: 503 without Retry-After", path)
	}
	if !strings.Contains(r.Body, "be right back") {
		t.Errorf("GET %s: 503 is not the friendly page: %.300s", path, r.Body)
	}
}

func TestRedisOutage(t *testing.T) {
	if !firstPass(t) {
		return
	}
	rs := startOwnRedis(t)
	before := runtime.NumGoroutine()
	const budget = 2 * time.Second // REQUEST_TIMEOUT
	app := startInProcess(t, map[string]string{"REDIS_URL": rs.URL(), "REQUEST_TIMEOUT": budget.String()})

	// State made before the fault.
	st := makeShopState(t, app.Accounts(t), "redis", app.URL)
	s := st.keeper

	users := newLoadUsers(t, app.URL, 8, 30*time.Second, app.Accounts(t))
	rec, stop := faultLoad(t, app.URL, users, articleIDs(t, app.URL))
	waitSamples(t, rec, 0, 50)

	rs.Stop()
	n := len(rec.snapshot())
	waitSamples(t, rec, n, 40)
	checkFriendly503(t, s, app.URL, "/")
	if r := s.get(app.URL, "/readyz"); r.Status != http.StatusServiceUnavailable {
		t.Errorf("readyz during the outage: %d", r.Status)
	}

	rs.Start()
	took := waitRecovered(t, app.URL, s, st.keeperName)
	t.Logf("full service %v after Redis came back", took)
	if took > recoveryBudget {
		t.Errorf("full service took %v after Redis came back, want at most %v", took, recoveryBudget)
	}
	n = len(rec.snapshot())
	waitSamples(t, rec, n, 20)
	stop()

	samples := rec.snapshot()
	if u := checkSamples(t, samples, budget+3*time.Second); u == 0 { // slower than that is a hang
		t.Error("no 503 during the outage")
	}
	st.check(t, app.URL)
	if strings.Contains(app.Logs(), "panic") {
		t.Errorf("the app panicked:\n%s", app.Logs())
	}
	if err := app.Stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	closeIdle(users, s)
	if n := goroutinesSettle(before + 5); n > before+5 {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
	logSummary(t, samples)
}

// logSummary logs the status counts per kind.
func logSummary(t *testing.T, samples []sample) {
	for _, k := range loadKinds {
		st := summarise(samples, k)
		t.Logf("%-6s n=%d statuses=%v p50=%v max=%v", k, st.n, st.statuses, st.p50, st.max)
	}
}

func TestPostgresOutage(t *testing.T) {
	if !firstPass(t) {
		return
	}
	pg := startOwnPostgres(t)
	app := startInProcess(t, map[string]string{"REDIS_URL": someRedisURL(t), "DATABASE_URL": pg.URL(), "REQUEST_TIMEOUT": "2s"})

	st := makeShopState(t, app.Accounts(t), "pg", app.URL)
	s := st.keeper

	users := newLoadUsers(t, app.URL, 8, 30*time.Second, app.Accounts(t))
	rec, stop := faultLoad(t, app.URL, users, articleIDs(t, app.URL))
	waitSamples(t, rec, 0, 50)

	pg.Stop()
	n := len(rec.snapshot())
	waitSamples(t, rec, n, 40)
	checkFriendly503(t, s, app.URL, "/items?page=2")
	if r := s.get(app.URL, "/readyz"); r.Status != http.StatusServiceUnavailable {
		t.Errorf("readyz during the outage: %d", r.Status)
	}

	pg.Start()
	took := waitRecovered(t, app.URL, s, st.keeperName)
	t.Logf("full service %v after PostgreSQL came back", took)
	if took > recoveryBudget {
		t.Errorf("full service took %v after PostgreSQL came back, want at most %v", took, recoveryBudget)
	}
	n = len(rec.snapshot())
	waitSamples(t, rec, n, 20)
	stop()
	samples := rec.snapshot()
	if u := checkSamples(t, samples, 5*time.Second); u == 0 {
		t.Error("no 503 during the outage")
	}
	st.check(t, app.URL)
	// An account made before the outage still signs in.
	s2 := newShopper(t)
	s2.mustPost(app.URL, "/login", url.Values{"username": {st.keeperName}, "password": {loadPassword}}, http.StatusSeeOther)
	logSummary(t, samples)
}

func TestSlowRedis(t *testing.T) {
	if !firstPass(t) {
		return
	}
	rs := startOwnRedis(t)
	proxy := startDelayProxy(t, rs.Addr())
	const budget = time.Second
	app := startInProcess(t, map[string]string{"REDIS_URL": "redis://" + proxy.Addr() + "/0", "REQUEST_TIMEOUT": budget.String()})
	s := app.signedIn(t, "hurried")
	users := newLoadUsers(t, app.URL, 8, 30*time.Second, app.Accounts(t))
	rec, stop := faultLoad(t, app.URL, users, articleIDs(t, app.URL))
	waitSamples(t, rec, 0, 50)

	proxy.SetDelay(3 * time.Second) // longer than the budget and than go-redis's own timeouts
	n := len(rec.snapshot())
	waitSamples(t, rec, n, 16)
	start := time.Now()
	checkFriendly503(t, s, app.URL, "/")
	if took := time.Since(start); took > budget+time.Second {
		t.Errorf("503 after %v with a budget of %v", took, budget)
	}

	proxy.SetDelay(0)
	took := waitRecovered(t, app.URL, s, "hurried")
	t.Logf("full service %v after Redis was fast again", took)
	if took > recoveryBudget {
		t.Errorf("full service took %v after Redis was fast again, want at most %v", took, recoveryBudget)
	}
	stop()
	samples := rec.snapshot()
	if u := checkSamples(t, samples, budget+time.Second); u == 0 {
		t.Error("no 503 while Redis was slow")
	}
	logSummary(t, samples)
}

func TestSIGTERMUnderLoad(t *testing.T) {
	if !firstPass(t) {
		return
	}
	rs := startOwnRedis(t)
	dir := t.TempDir()
	p := startProcess(t, "DATA_DIR="+dir, "REDIS_URL="+rs.URL(), "REDIS_CLUSTER_ADDRS=", "DATABASE_URL=",
		"ADMIN_PASSWORD=x", "REGISTER_RATE=0", "LOGIN_RATE=0", "VOTE_RATE=0", "COOKIE_KEYS="+testCookieKeys,
		"RESCALE_INTERVAL=100ms")
	base := "http://" + p.addr
	users := newLoadUsers(t, base, 16, 30*time.Second, newAccountMaker(t, map[string]string{"DATA_DIR": dir}))
	rec, stop := faultLoad(t, base, users, articleIDs(t, base))
	defer stop()
	waitSamples(t, rec, 0, 200)
	rdb := rs.Client()
	for i := 0; rdb.Exists(t.Context(), "lease:rescale").Val() == 0; i++ {
		if i == 200 {
			t.Fatal("the rescale worker never took its lease")
		}
		time.Sleep(10 * time.Millisecond)
	}

	mark := len(rec.snapshot())
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exitC:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v, want status 0", err)
		}
		t.Logf("exited %v after SIGTERM", time.Since(sent))
	case <-time.After(10 * time.Second):
		t.Fatal("no exit within 10 s of SIGTERM")
	}
	stop()

	// Every request the app handled was answered, with the status it
	// logged. The only failures allowed are connections it never took:
	// refused once it stopped listening, or reset in the listener's
	// backlog by the close (always fresh connections: a request on a
	// keep-alive connection the server closes is retried by the client).
	samples := rec.snapshot()
	handled := p.handledRequests()
	answered := map[string]int{}
	after := 0
	for i, s := range samples {
		if s.err == nil {
			answered[s.id] = s.status
			if i >= mark {
				after++
			}
			if s.status >= 500 {
				t.Errorf("%s: status %d", s.kind, s.status)
			}
			continue
		}
		if _, ok := handled[s.id]; ok {
			t.Errorf("%s: the app handled the request but it got %v", s.kind, s.err)
		} else if s.reused && !errors.Is(s.err, syscall.ECONNREFUSED) {
			t.Errorf("%s: %v on a keep-alive connection", s.kind, s.err)
		}
	}
	for id, st := range handled {
		if got, ok := answered[id]; ok && got != st {
			t.Errorf("request %s: the app logged %d, the client got %d", id, st, got)
		}
	}
	if len(handled) < len(answered) {
		t.Errorf("the app logged %d requests, the client got %d answers", len(handled), len(answered))
	}
	t.Logf("%d requests answered after SIGTERM was sent, %d handled in all", after, len(handled))
	for _, msg := range []string{"shutting down", "storefront stopped cleanly"} {
		p.waitLog(t, msg)
	}
	// The workers stopped and gave their leases up for another instance.
	if holder := rdb.Get(t.Context(), "lease:rescale").Val(); holder != "" {
		t.Errorf("the rescale lease is still held by %q after the exit", holder)
	}
}
