package apptest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/storetest"
)

// shared is what app processes that share one Redis and one database
// are started with, and a client of that Redis for assertions.
type shared struct {
	env map[string]string
	rdb redis.UniversalClient
}

// sharedEnv is the environment of app processes that share one Redis and
// one database: the backend of this run (a Redis Cluster, a Redis server;
// on a fresh machine a redis-server of the test's own, else the test's
// miniredis, which other processes reach over TCP too), PostgreSQL in a
// fresh schema when DATABASE_URL is set, else one SQLite file in a shared
// DATA_DIR.
func sharedEnv(t *testing.T, extra map[string]string) shared {
	t.Helper()
	b := apptest.NewBackend(t)
	sh := shared{env: b.With(map[string]string{"REGISTER_RATE": "0", "LOGIN_RATE": "0", "LOGIN_ADDR_RATE": "0", "VOTE_RATE": "0", "FOLLOW_RATE": "0", "LIKE_RATE": "0", "SESSION_RATE": "0"}), rdb: b.Redis}
	if storetest.Backend() == platform.ModeMiniredis {
		if _, err := exec.LookPath("redis-server"); err == nil {
			rs := startOwnRedis(t, "--appendonly", "no")
			sh.env["REDIS_URL"], sh.rdb = rs.URL(), rs.Client()
		}
	}
	maps.Copy(sh.env, extra)
	return sh
}

// startInstances starts n app processes on env at the same time (as a
// deployment does: migrations and seeding must cope).
func startInstances(t *testing.T, n int, env map[string]string) []*apptest.App {
	t.Helper()
	ps := make([]*apptest.App, n)
	var wg sync.WaitGroup
	for i := range ps {
		wg.Go(func() { ps[i] = apptest.Start(t, env) })
	}
	wg.Wait()
	for _, p := range ps {
		if p == nil || p.URL == "" {
			t.FailNow()
		}
	}
	return ps
}

func TestSeveralInstances(t *testing.T) {
	apptest.Parallel(t)
	const rescaleEvery = time.Second
	const sessionLimit = 60
	sh := sharedEnv(t, map[string]string{"RESCALE_INTERVAL": rescaleEvery.String(), "SESSION_LIMIT": strconv.Itoa(sessionLimit)})
	ps := startInstances(t, 2, sh.env)
	a, b := ps[0].URL, ps[1].URL
	accounts := newAccountMaker(t, sh.env)
	ctx := t.Context()

	// makeShopState alternates instances between steps and checks the
	// result on both: the session, recently viewed items, cart, vote and
	// order made through both instances are seen by both.
	st := makeShopState(t, accounts, "multi", a, b)
	inStock := slices.Sorted(maps.Keys(st.cart))

	t.Run("each order is fulfilled once", func(t *testing.T) {
		const orders = 8
		placed := map[string]bool{}
		for i := range orders {
			s := signIn(t, accounts, a, fmt.Sprintf("orderer_%d", i))
			s.At(b).MustPost("/cart", url.Values{"item": {inStock[i%len(inStock)]}, "qty": {"1"}}, http.StatusSeeOther)
			r := placeOrder(t, s.At([]string{b, a}[i%2]), s.At([]string{a, b}[i%2]), http.StatusSeeOther)
			placed[r.Header.Get("Location")[len("/orders/"):]] = true
		}
		counts := map[string]int{}
		allSeen := func() bool {
			for id := range placed {
				if counts[id] == 0 {
					return false
				}
			}
			return true
		}
		for deadline := time.Now().Add(apptest.PollDeadline); !allSeen() && time.Now().Before(deadline); {
			counts = map[string]int{}
			for _, p := range ps {
				for _, m := range p.Logged("order processed") {
					counts[fmt.Sprint(m["order"])]++
				}
			}
			time.Sleep(25 * time.Millisecond)
		}
		for id := range placed {
			if counts[id] != 1 {
				t.Errorf("order %s processed %d times", id, counts[id])
			}
		}
	})

	t.Run("a page cached by one instance is a hit on the other, purges reach both", func(t *testing.T) {
		guest := apptest.NewClient(t, "")
		xcache := func(base, path string) string {
			t.Helper()
			return guest.At(base).MustGet(path, http.StatusOK).Header.Get("X-Cache")
		}
		// An item never viewed is not ranked, and not cached, until its
		// first view is counted; a response that sets the session cookie
		// is not stored either.
		xcache(b, "/items/42")
		if got := xcache(a, "/items/42"); got != "MISS" {
			t.Fatalf("second view, on A: X-Cache %q, want MISS", got)
		}
		if got := xcache(b, "/items/42"); got != "HIT" {
			t.Fatalf("then on B: X-Cache %q, want HIT", got)
		}
		admin := apptest.NewClient(t, "")
		admin.At(b).MustPost("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}, http.StatusSeeOther)
		admin.At(b).MustPost("/admin/cache/purge", url.Values{"item": {"42"}}, http.StatusSeeOther)
		// A holds the page in process until it hears the purge.
		storetest.Eventually(t, func() bool { return xcache(a, "/items/42") == "MISS" }, "A never rendered the page again after a purge on B")
		if got := xcache(b, "/items/42"); got != "HIT" {
			t.Errorf("on B after A rendered it again: X-Cache %q, want HIT", got)
		}
		admin.At(a).MustPost("/admin/cache/purge", url.Values{"all": {"1"}}, http.StatusSeeOther)
		storetest.Eventually(t, func() bool { return xcache(b, "/items/42") == "MISS" }, "B never rendered the page again after purging all on A")
	})

	t.Run("sessions over the limit are evicted once", func(t *testing.T) {
		before := sh.rdb.ZCard(ctx, keys.Recent).Val()
		if before >= sessionLimit {
			t.Fatalf("%d sessions before the flood, limit %d", before, sessionLimit)
		}
		// A flood of new guests, half on each instance.
		const guests = 200
		for i := range guests {
			apptest.NewClient(t, []string{a, b}[i%2]).MustGet("/items/"+strconv.Itoa(100+i%50), http.StatusOK)
		}
		// A first visit's session is created behind (within WRITE_BEHIND),
		// so wait until every guest's session was made and the sessions
		// over the limit evicted: then the evictions counted on the
		// instances are exactly the sessions made less those left.
		// Each eviction is counted where it happens: evicting a session
		// twice (two instances racing) would count it twice.
		var left, evicted, want int64
		for deadline := time.Now().Add(apptest.PollDeadline); time.Now().Before(deadline); {
			left = sh.rdb.ZCard(ctx, keys.Recent).Val()
			evicted = 0
			for _, p := range ps {
				evicted += metricValue(t, p.URL, "storefront_sessions_evicted_total")
			}
			if want = before + guests - left; left <= sessionLimit && evicted == want {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		if left > sessionLimit {
			t.Fatalf("%d sessions left, limit %d", left, sessionLimit)
		}
		if evicted != want {
			t.Errorf("the instances evicted %d sessions in all, want %d (%d + %d - %d)", evicted, want, before, guests, left)
		}
		total := int64(0)
		for deadline := time.Now().Add(apptest.PollDeadline); total < want && time.Now().Before(deadline); {
			total, _ = sh.rdb.HGet(ctx, keys.Worker(keys.LeaseCleanup), "total:evicted").Int64()
			time.Sleep(20 * time.Millisecond)
		}
		if total != want {
			t.Errorf("worker:cleanup says %d evicted in all, want %d", total, want)
		}
		// Guests go first: every signed-in shopper kept their session.
		if got := apptest.TextOf(st.keeper.At(a).MustGet("/", http.StatusOK).Body, "user-name"); got != st.keeperName {
			t.Errorf("a signed-in shopper lost their session to the flood of guests: %q", got)
		}
	})

	t.Run("the dashboard's samples are taken by one instance", func(t *testing.T) {
		// Both instances run the stats worker from the start; the lease
		// lets one sample (every 10 s). Without it each would add a sample
		// at start, from two instances, moments apart.
		var samples []string
		for deadline := time.Now().Add(apptest.PollDeadline); len(samples) == 0 && time.Now().Before(deadline); {
			samples = sh.rdb.ZRange(ctx, keys.StatsSamples, 0, -1).Val()
			time.Sleep(25 * time.Millisecond)
		}
		if len(samples) == 0 {
			t.Fatal("no dashboard sample was taken")
		}
		var last int64
		instances := map[string]bool{}
		for _, raw := range samples {
			var smp struct {
				T int64  `json:"t"`
				I string `json:"i"`
			}
			if err := json.Unmarshal([]byte(raw), &smp); err != nil {
				t.Fatalf("sample %q: %v", raw, err)
			}
			instances[smp.I] = true
			if last != 0 && smp.T-last < 5000 {
				t.Errorf("two samples %d ms apart, want one per 10 s interval", smp.T-last)
			}
			last = smp.T
		}
		if len(instances) != 1 {
			t.Errorf("samples from %d instances, want 1: %v", len(instances), instances)
		}
		if holder := sh.rdb.Get(ctx, keys.Lease(keys.LeaseStats)).Val(); !instances[holder] {
			t.Errorf("the stats lease is held by %q, the samples come from %v", holder, instances)
		}
	})

	t.Run("both instances' dashboards show the same workers, leases and runs", func(t *testing.T) {
		admin := apptest.NewClient(t, "")
		admin.At(a).MustPost("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}, http.StatusSeeOther)
		rowRE := regexp.MustCompile(`(?s)<tr data-worker="([^"]+)">.*?<td class="mono">([^<]*)</td>\s*<td class="mono">([^<]*)</td>`)
		workers := func(base string) map[string]string {
			body := admin.At(base).MustGet("/admin/system", http.StatusOK).Body
			out := map[string]string{}
			for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
				out[m[1]] = "ran on " + m[2] + ", lease " + m[3]
			}
			return out
		}
		// Wait for every leased worker's first run (the rescale's is one
		// interval after start), so that the two reads see the same runs.
		for _, w := range []string{"cleanup", "stats", "rescale"} {
			apptest.Eventually(t, "worker "+w+" reports", func() bool { return sh.rdb.HGet(ctx, keys.Worker(w), "instance").Val() != "" })
		}
		onA, onB := workers(a), workers(b)
		// The workers that run under a lease run on its holder only; the
		// others (fulfilment, row cache, fan-out) run everywhere and their
		// last run may come from either instance.
		for _, w := range []string{"cleanup", "stats", "rescale"} {
			if onA[w] == "" || onA[w] != onB[w] {
				t.Errorf("%s: A says %q, B says %q", w, onA[w], onB[w])
			}
		}
		if !strings.Contains(onA["cleanup"], "ran on "+sh.rdb.Get(ctx, keys.Lease(keys.LeaseCleanup)).Val()) {
			t.Errorf("cleanup: %s; the lease holder is %q", onA["cleanup"], sh.rdb.Get(ctx, keys.Lease(keys.LeaseCleanup)).Val())
		}
	})

	// The timed checks run side by side.
	t.Run("the view counts are rescaled once per interval, not once per instance", func(t *testing.T) {
		t.Parallel()
		// A marker item far ahead of the rest: each rescale halves it.
		const start = 1 << 30
		if err := sh.rdb.ZAdd(ctx, keys.ViewRanking, redis.Z{Score: -start, Member: "999999"}).Err(); err != nil {
			t.Fatal(err)
		}
		// Watch for at least four intervals and one halving. The bound
		// below grows with the time that really passed, so a slow machine
		// only loosens it: it counts runs, it does not time them.
		t0 := time.Now()
		var halvings float64
		var elapsed time.Duration
		apptest.Eventually(t, "the marker is rescaled", func() bool {
			score, err := sh.rdb.ZScore(ctx, keys.ViewRanking, "999999").Result()
			elapsed = time.Since(t0)
			if err != nil {
				return false
			}
			halvings = math.Round(math.Log2(start / -score))
			return halvings >= 1 && elapsed >= 4*rescaleEvery
		})
		most := math.Floor(elapsed.Seconds()/rescaleEvery.Seconds()) + 1
		if halvings > most {
			t.Errorf("%v halvings in %v, want at most %v: once per interval", halvings, elapsed, most)
		}
		holder := storetest.Must(sh.rdb.Get(ctx, keys.Lease(keys.LeaseRescale)).Result())(t)
		if holder == "" {
			t.Error("nobody holds the rescale lease")
		}
	})

	t.Run("a scheduled row is refreshed by one instance per due time", func(t *testing.T) {
		t.Parallel()
		admin := apptest.NewClient(t, "")
		admin.At(a).MustPost("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}, http.StatusSeeOther)
		const delay = 500 * time.Millisecond
		admin.At(a).MustPost("/admin/rowcache", url.Values{"row": {"77"}, "delay": {"0.5"}}, http.StatusSeeOther)
		// Every refresh writes a new cached_at; watch them for a while.
		// Watch for at least eight due times and two refreshes; as above,
		// the bound grows with the time that really passed.
		seen := map[float64]bool{}
		t0 := time.Now()
		var elapsed time.Duration
		apptest.Eventually(t, "the row is refreshed twice", func() bool {
			if v, err := sh.rdb.Get(ctx, keys.RowCache(77)).Result(); err == nil {
				var row struct {
					CachedAt float64 `json:"cached_at"`
				}
				if json.Unmarshal([]byte(v), &row) == nil {
					seen[row.CachedAt] = true
				}
			}
			elapsed = time.Since(t0)
			return len(seen) >= 2 && elapsed >= 8*delay
		})
		if most := int(elapsed/delay) + 2; len(seen) > most {
			t.Errorf("%d refreshes in %v, want at most %d: one per due time", len(seen), elapsed, most)
		}
		admin.At(b).MustPost("/admin/rowcache", url.Values{"row": {"77"}, "delay": {"0"}}, http.StatusSeeOther)
	})
}

// metricValue reads one unlabelled counter or gauge from base's /metrics.
func metricValue(t *testing.T, base, name string) int64 {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+apptest.MetricsToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s: %q", name, line)
			}
			return int64(f)
		}
	}
	t.Fatalf("no %s in %s/metrics", name, base)
	return 0
}
