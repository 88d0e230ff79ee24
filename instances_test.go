package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store"
	"storefront/store/storetest"
)

// shared is what app processes that share one Redis and one database
// are started with, and a client of that Redis for assertions.
type shared struct {
	env []string
	acc map[string]string // for newAccountMaker
	rdb redis.UniversalClient
}

// sharedEnv is the environment of app processes that share one Redis and
// one database: the backend of this run (a Redis Cluster, a Redis server;
// on a fresh machine a redis-server of the test's own, else the test's
// miniredis, which other processes reach over TCP too), PostgreSQL in a
// fresh schema when DATABASE_URL is set, else one SQLite file in a shared
// DATA_DIR.
func sharedEnv(t *testing.T, extra ...string) shared {
	t.Helper()
	dir := t.TempDir()
	sh := shared{env: []string{"DATA_DIR=" + dir, "COOKIE_KEYS=" + testCookieKeys, "ADMIN_PASSWORD=" + storetest.AdminPassword,
		"REGISTER_RATE=0", "LOGIN_RATE=0", "VOTE_RATE=0"}, acc: map[string]string{"DATA_DIR": dir}}
	switch storetest.Backend() {
	case store.ModeCluster:
		sh.rdb = storetest.Redis(t) // flushed
		sh.env = append(sh.env, "REDIS_URL=", "REDIS_CLUSTER_ADDRS="+os.Getenv("REDIS_CLUSTER_ADDRS"))
	case store.ModeSingle:
		sh.rdb = storetest.Redis(t)
		sh.env = append(sh.env, "REDIS_URL="+os.Getenv("REDIS_URL"), "REDIS_CLUSTER_ADDRS=")
	default:
		u := ""
		if _, err := exec.LookPath("redis-server"); err == nil {
			rs := startOwnRedis(t, "--appendonly", "no")
			u, sh.rdb = rs.URL(), rs.Client()
		} else {
			sh.rdb = storetest.Redis(t)
			u = "redis://" + storetest.Miniredis(t).Addr()
		}
		sh.env = append(sh.env, "REDIS_URL="+u, "REDIS_CLUSTER_ADDRS=")
	}
	db := storetest.DatabaseURL(t) // "" for SQLite in DATA_DIR
	sh.acc["DATABASE_URL"] = db
	sh.env = append(sh.env, "DATABASE_URL="+db)
	sh.env = append(sh.env, extra...)
	return sh
}

// startInstances starts n app processes on env at the same time (as a
// deployment does: migrations and seeding must cope).
func startInstances(t *testing.T, n int, env []string) []*appProcess {
	t.Helper()
	ps := make([]*appProcess, n)
	var wg sync.WaitGroup
	for i := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ps[i] = startProcess(t, env...)
		}()
	}
	wg.Wait()
	for _, p := range ps {
		if p == nil || p.addr == "" {
			t.FailNow()
		}
	}
	return ps
}

func (p *appProcess) base() string { return "http://" + p.addr }

func TestSeveralInstances(t *testing.T) {
	const rescaleEvery = time.Second
	const sessionLimit = 60
	sh := sharedEnv(t, "RESCALE_INTERVAL="+rescaleEvery.String(), "SESSION_LIMIT="+strconv.Itoa(sessionLimit))
	ps := startInstances(t, 2, sh.env)
	a, b := ps[0].base(), ps[1].base()
	accounts := newAccountMaker(t, sh.acc)
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
			s.mustPost(b, "/cart", url.Values{"item": {inStock[i%len(inStock)]}, "qty": {"1"}}, http.StatusSeeOther)
			r := s.mustPost([]string{a, b}[i%2], "/checkout", nil, http.StatusSeeOther)
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
		for i := 0; i < 400 && !allSeen(); i++ {
			counts = map[string]int{}
			for _, p := range ps {
				for _, m := range p.logged("order processed") {
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
		guest := newShopper(t)
		xcache := func(base, path string) string {
			t.Helper()
			return guest.mustGet(base, path, http.StatusOK).Header.Get("X-Cache")
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
		admin := newShopper(t)
		admin.mustPost(b, "/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}, http.StatusSeeOther)
		admin.mustPost(b, "/admin/cache/purge", url.Values{"item": {"42"}}, http.StatusSeeOther)
		if got := xcache(a, "/items/42"); got != "MISS" {
			t.Errorf("on A after a purge on B: X-Cache %q, want MISS", got)
		}
		if got := xcache(b, "/items/42"); got != "HIT" {
			t.Errorf("on B after A rendered it again: X-Cache %q, want HIT", got)
		}
		admin.mustPost(a, "/admin/cache/purge", url.Values{"all": {"1"}}, http.StatusSeeOther)
		if got := xcache(b, "/items/42"); got != "MISS" {
			t.Errorf("on B after purging all on A: X-Cache %q, want MISS", got)
		}
	})

	t.Run("sessions over the limit are evicted once", func(t *testing.T) {
		before := sh.rdb.ZCard(ctx, "recent:").Val()
		if before >= sessionLimit {
			t.Fatalf("%d sessions before the flood, limit %d", before, sessionLimit)
		}
		// A flood of new guests, half on each instance.
		const guests = 200
		for i := range guests {
			newShopper(t).mustGet([]string{a, b}[i%2], "/items/"+strconv.Itoa(100+i%50), http.StatusOK)
		}
		left := int64(0)
		for i := 0; i < 400; i++ {
			if left = sh.rdb.ZCard(ctx, "recent:").Val(); left <= sessionLimit {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		if left > sessionLimit {
			t.Fatalf("%d sessions left, limit %d", left, sessionLimit)
		}
		// Each eviction is counted where it happens: evicting a session
		// twice (two instances racing) would count it twice.
		// The counts follow the evictions: wait a moment for them to agree.
		want := before + guests - left
		evicted := int64(0)
		for i := 0; i < 100; i++ {
			evicted = 0
			for _, p := range ps {
				evicted += metricValue(t, p.base(), "storefront_sessions_evicted_total")
			}
			if evicted >= want {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if evicted != want {
			t.Errorf("the instances evicted %d sessions in all, want %d (%d + %d - %d)", evicted, want, before, guests, left)
		}
		total := int64(0)
		for i := 0; i < 100 && total < want; i++ {
			total, _ = sh.rdb.HGet(ctx, "worker:cleanup", "total:evicted").Int64()
			time.Sleep(20 * time.Millisecond)
		}
		if total != want {
			t.Errorf("worker:cleanup says %d evicted in all, want %d", total, want)
		}
		// Guests go first: every signed-in shopper kept their session.
		if got := textOf(st.keeper.mustGet(a, "/", http.StatusOK).Body, "user-name"); got != st.keeperName {
			t.Errorf("a signed-in shopper lost their session to the flood of guests: %q", got)
		}
	})

	t.Run("the dashboard's samples are taken by one instance", func(t *testing.T) {
		// Both instances run the stats worker from the start; the lease
		// lets one sample (every 10 s). Without it each would add a sample
		// at start, from two instances, moments apart.
		var samples []string
		for i := 0; i < 200 && len(samples) == 0; i++ {
			samples = sh.rdb.ZRange(ctx, "stats:samples", 0, -1).Val()
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
		if holder := sh.rdb.Get(ctx, "lease:stats").Val(); !instances[holder] {
			t.Errorf("the stats lease is held by %q, the samples come from %v", holder, instances)
		}
	})

	t.Run("both instances' dashboards show the same workers, leases and runs", func(t *testing.T) {
		admin := newShopper(t)
		admin.mustPost(a, "/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}, http.StatusSeeOther)
		rowRE := regexp.MustCompile(`(?s)<tr data-worker="([^"]+)">.*?<td class="mono">([^<]*)</td>\s*<td class="mono">([^<]*)</td>`)
		workers := func(base string) map[string]string {
			body := admin.mustGet(base, "/admin", http.StatusOK).Body
			out := map[string]string{}
			for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
				out[m[1]] = "ran on " + m[2] + ", lease " + m[3]
			}
			return out
		}
		// Wait for every leased worker's first run (the rescale's is one
		// interval after start), so that the two reads see the same runs.
		for _, w := range []string{"cleanup", "stats", "rescale"} {
			for i := 0; sh.rdb.HGet(ctx, "worker:"+w, "instance").Val() == ""; i++ {
				if i == 400 {
					t.Fatalf("worker %s never reported", w)
				}
				time.Sleep(10 * time.Millisecond)
			}
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
		if !strings.Contains(onA["cleanup"], "ran on "+sh.rdb.Get(ctx, "lease:cleanup").Val()) {
			t.Errorf("cleanup: %s; the lease holder is %q", onA["cleanup"], sh.rdb.Get(ctx, "lease:cleanup").Val())
		}
	})

	// The timed checks run side by side.
	t.Run("the view counts are rescaled once per interval, not once per instance", func(t *testing.T) {
		t.Parallel()
		// A marker item far ahead of the rest: each rescale halves it.
		const start = 1 << 30
		if err := sh.rdb.ZAdd(ctx, "viewed:", redis.Z{Score: -start, Member: "999999"}).Err(); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		time.Sleep(4 * rescaleEvery)
		score, err := sh.rdb.ZScore(ctx, "viewed:", "999999").Result()
		elapsed := time.Since(t0)
		if err != nil {
			t.Fatal(err)
		}
		halvings := math.Round(math.Log2(start / -score))
		most := math.Floor(elapsed.Seconds()/rescaleEvery.Seconds()) + 1
		t.Logf("%v halvings in %v with a %v interval on 2 instances", halvings, elapsed.Round(time.Millisecond), rescaleEvery)
		if halvings < 1 || halvings > most {
			t.Errorf("%v halvings in %v, want 1 to %v: once per interval", halvings, elapsed, most)
		}
		holder, _ := sh.rdb.Get(ctx, "lease:rescale").Result()
		if holder == "" {
			t.Error("nobody holds the rescale lease")
		}
	})

	t.Run("a scheduled row is refreshed by one instance per due time", func(t *testing.T) {
		t.Parallel()
		admin := newShopper(t)
		admin.mustPost(a, "/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}, http.StatusSeeOther)
		const delay = 500 * time.Millisecond
		admin.mustPost(a, "/admin/rowcache", url.Values{"row": {"77"}, "delay": {"0.5"}}, http.StatusSeeOther)
		// Every refresh writes a new cached_at; watch them for a while.
		seen := map[float64]bool{}
		t0 := time.Now()
		for time.Since(t0) < 8*delay {
			if v, err := sh.rdb.Get(ctx, "inv:77").Result(); err == nil {
				var row struct {
					CachedAt float64 `json:"cached_at"`
				}
				if json.Unmarshal([]byte(v), &row) == nil {
					seen[row.CachedAt] = true
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		elapsed := time.Since(t0)
		most := int(elapsed/delay) + 2
		t.Logf("%d refreshes in %v with a delay of %v on 2 instances", len(seen), elapsed.Round(time.Millisecond), delay)
		if len(seen) < 2 || len(seen) > most {
			t.Errorf("%d refreshes in %v, want 2 to %d: one per due time", len(seen), elapsed, most)
		}
		admin.mustPost(b, "/admin/rowcache", url.Values{"row": {"77"}, "delay": {"0"}}, http.StatusSeeOther)
	})
}

// metricValue reads one unlabelled counter or gauge from base's /metrics.
func metricValue(t *testing.T, base, name string) int64 {
	t.Helper()
	res, err := http.Get(base + "/metrics")
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
