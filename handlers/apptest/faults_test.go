package apptest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/store/seed"
	"storefront/store/storetest"
)

// The fault tests break Redis and PostgreSQL servers of their own while
// the shop is under load and check what shoppers see: a friendly 503 (or
// an item page from the database), never a 500, a panic or a hang; full
// service once the server is back; nothing lost. How fast service returns
// is a measurement (the load program), not an assertion here.

// someRedisURL is a Redis for tests that break only the database: a
// redis-server of the test's own, else miniredis.
func someRedisURL(t *testing.T) string {
	if _, err := exec.LookPath("redis-server"); err == nil {
		return startOwnRedis(t).URL()
	}
	return "redis://" + miniredis.RunT(t).Addr()
}

// faultLoad runs a small load in the background until stop is called,
// and returns the recorder.
func faultLoad(t *testing.T, base string, users []*loadUser, articles []string) (rec *loadRecorder, stop func()) {
	rec = &loadRecorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runLoad(ctx, workloadConfig{Bases: []string{base}, Items: seed.DemoItemCount, Articles: articles}, users, rec)
	}()
	return rec, func() { cancel(); <-done }
}

// waitSamples waits until rec has n more samples than it had at mark.
func waitSamples(t *testing.T, rec *loadRecorder, mark, n int) {
	t.Helper()
	apptest.Eventually(t, fmt.Sprintf("%d more load samples", n), func() bool { return len(rec.snapshot()) >= mark+n })
}

// checkSamples fails the test for any answer that is not a page, a
// redirect, a 4xx or a 503, and for transport errors (a hung request ends
// as one when the load client's timeout gives up on it).
func checkSamples(t *testing.T, samples []sample) (unavailable int) {
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
	}
	return unavailable
}

// waitRecovered polls until /readyz says ready and the shopper's home page
// renders signed in, and returns how long that took. The deadline is
// generous: how soon service returns is logged as a measurement (the
// docs/operations.md quotes it), never asserted.
func waitRecovered(t *testing.T, base string, s *apptest.Client, name string) time.Duration {
	t.Helper()
	start := time.Now()
	apptest.Eventually(t, "the app serves the signed-in shopper again", func() bool {
		if s.At(base).Get("/readyz").Status != http.StatusOK {
			return false
		}
		h := s.At(base).Get("/")
		return h.Status == http.StatusOK && apptest.TextOf(h.Body, "user-name") == name
	})
	return time.Since(start)
}

// checkFriendly503 checks that path answers the friendly 503 page.
func checkFriendly503(t *testing.T, s *apptest.Client, base, path string) {
	t.Helper()
	r := s.At(base).Get(path)
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
	storetest.OnePass(t) // its own servers: nothing to learn from a second backend
	t.Parallel()
	rs := startOwnRedis(t)
	const budget = 2 * time.Second // REQUEST_TIMEOUT
	app := startUnlimited(t, map[string]string{"REDIS_URL": rs.URL(), "REQUEST_TIMEOUT": budget.String()})

	_, samples := outageUnderLoad(t, app, rs, "redis", "/")
	if strings.Contains(app.Logs(), "panic") {
		t.Errorf("the app panicked:\n%s", app.Logs())
	}
	// After the outage the app still shuts down cleanly: no request or
	// worker is left stuck on the connection that broke.
	if err := app.Stop(); err != nil {
		t.Fatalf("exit after SIGTERM: %v, want status 0", err)
	}
	if len(app.Logged("storefront stopped cleanly")) == 0 {
		t.Errorf("no clean stop logged:\n%s", app.Logs())
	}
	logSummary(t, samples)
}

// server is a service a fault test stops and starts again.
type server interface {
	Stop()
	Start()
}

// outageUnderLoad is the script every outage test follows: shop state is
// made (tagged tag), load runs, srv stops while the load goes on (page
// must be a friendly 503, /readyz not ready), srv starts again and the
// app recovers by itself (how soon is logged, never asserted). It checks
// that the outage gave 503s and nothing worse and that the state made
// before it is whole, and returns the state and the load's samples.
func outageUnderLoad(t *testing.T, app *apptest.App, srv server, tag, page string) (*shopState, []sample) {
	t.Helper()
	st := makeShopState(t, accountsOf(t, app), tag, app.URL)
	s := st.keeper

	users := newLoadUsers(t, app.URL, 8, 30*time.Second, accountsOf(t, app))
	rec, stop := faultLoad(t, app.URL, users, articleIDs(t, app.URL))
	waitSamples(t, rec, 0, 50)

	srv.Stop()
	n := len(rec.snapshot())
	waitSamples(t, rec, n, 40)
	checkFriendly503(t, s, app.URL, page)
	if r := s.At(app.URL).Get("/readyz"); r.Status != http.StatusServiceUnavailable {
		t.Errorf("readyz during the outage: %d", r.Status)
	}

	srv.Start()
	t.Logf("full service %v after the server came back (a measurement)", waitRecovered(t, app.URL, s, st.keeperName))
	n = len(rec.snapshot())
	waitSamples(t, rec, n, 20)
	stop()

	samples := rec.snapshot()
	if u := checkSamples(t, samples); u == 0 {
		t.Error("no 503 during the outage")
	}
	st.check(t, app.URL)
	return st, samples
}

// logSummary logs the status counts per kind.
func logSummary(t *testing.T, samples []sample) {
	for _, k := range loadKinds {
		st := summarise(samples, k)
		t.Logf("%-6s n=%d statuses=%v p50=%v max=%v", k, st.n, st.statuses, st.p50, st.max)
	}
}

func TestPostgresOutage(t *testing.T) {
	storetest.OnePass(t) // its own servers: nothing to learn from a second backend
	t.Parallel()
	pg := startOwnPostgres(t)
	app := startUnlimited(t, map[string]string{"REDIS_URL": someRedisURL(t), "DATABASE_URL": pg.URL(), "REQUEST_TIMEOUT": "2s"})

	st, samples := outageUnderLoad(t, app, pg, "pg", "/items?page=2")
	// An account made before the outage still signs in.
	s2 := apptest.NewClient(t, "")
	s2.At(app.URL).MustPost("/login", url.Values{"username": {st.keeperName}, "password": {loadPassword}}, http.StatusSeeOther)
	logSummary(t, samples)
}

func TestSlowRedis(t *testing.T) {
	storetest.OnePass(t) // its own servers: nothing to learn from a second backend
	t.Parallel()
	rs := startOwnRedis(t)
	proxy := startDelayProxy(t, rs.Addr())
	const budget = time.Second
	app := startUnlimited(t, map[string]string{"REDIS_URL": "redis://" + proxy.Addr() + "/0", "REQUEST_TIMEOUT": budget.String()})
	s := signedIn(t, app, "hurried")
	users := newLoadUsers(t, app.URL, 8, 30*time.Second, accountsOf(t, app))
	rec, stop := faultLoad(t, app.URL, users, articleIDs(t, app.URL))
	waitSamples(t, rec, 0, 50)

	proxy.SetDelay(3 * time.Second) // longer than the budget and than go-redis's own timeouts
	n := len(rec.snapshot())
	waitSamples(t, rec, n, 16)
	checkFriendly503(t, s, app.URL, "/")

	proxy.SetDelay(0)
	t.Logf("full service %v after the server came back (a measurement)", waitRecovered(t, app.URL, s, "hurried"))
	stop()
	samples := rec.snapshot()
	if u := checkSamples(t, samples); u == 0 {
		t.Error("no 503 while Redis was slow")
	}
	logSummary(t, samples)
}

func TestSIGTERMUnderLoad(t *testing.T) {
	storetest.OnePass(t) // its own servers: nothing to learn from a second backend
	t.Parallel()
	rs := startOwnRedis(t)
	dir := t.TempDir()
	p := startUnlimited(t, map[string]string{"DATA_DIR": dir, "REDIS_URL": rs.URL(), "RESCALE_INTERVAL": "100ms", "DRAIN_DELAY": "2s"})
	base := p.URL
	users := newLoadUsers(t, base, 16, 30*time.Second, newAccountMaker(t, map[string]string{"DATA_DIR": dir}))
	rec, stop := faultLoad(t, base, users, articleIDs(t, base))
	defer stop()
	waitSamples(t, rec, 0, 200)
	rdb := rs.Client()
	apptest.Eventually(t, "the rescale worker takes its lease", func() bool { return rdb.Exists(t.Context(), keys.Lease(keys.LeaseRescale)).Val() == 1 })

	mark := len(rec.snapshot())
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v, want status 0", err)
	}
	stop()

	// Every request the app handled was answered, with the status it
	// logged. The only failures allowed are connections it never took:
	// refused once it stopped listening, or reset in the listener's
	// backlog by the close (always fresh connections: a request on a
	// keep-alive connection the server closes is retried by the client).
	samples := rec.snapshot()
	handled := p.HandledRequests()
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
		p.WaitLog(t, msg)
	}
	// The workers stopped and gave their leases up for another instance.
	if holder := storetest.Must(rdb.Get(t.Context(), keys.Lease(keys.LeaseRescale)).Result())(t); holder != "" {
		t.Errorf("the rescale lease is still held by %q after the exit", holder)
	}
}
