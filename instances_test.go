package main

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"storefront/store"
	"storefront/store/storetest"
)

// sharedEnv is the environment of app processes that share one Redis and
// one database: the backend of this run (a Redis Cluster, a Redis server;
// on a fresh machine a redis-server of the test's own, else the test's
// miniredis, which other processes reach over TCP too), PostgreSQL in a
// fresh schema when DATABASE_URL is set, else one SQLite file in a shared
// DATA_DIR. It also returns the settings for newAccountMaker.
func sharedEnv(t *testing.T, extra ...string) ([]string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	env := []string{"DATA_DIR=" + dir, "COOKIE_KEYS=" + testCookieKeys, "ADMIN_PASSWORD=" + storetest.AdminPassword,
		"REGISTER_RATE=0", "LOGIN_RATE=0", "VOTE_RATE=0"}
	switch storetest.Backend() {
	case store.ModeCluster:
		storetest.Redis(t) // flushed
		env = append(env, "REDIS_URL=", "REDIS_CLUSTER_ADDRS="+os.Getenv("REDIS_CLUSTER_ADDRS"))
	case store.ModeSingle:
		storetest.Redis(t)
		env = append(env, "REDIS_URL="+os.Getenv("REDIS_URL"), "REDIS_CLUSTER_ADDRS=")
	default:
		u := ""
		if _, err := exec.LookPath("redis-server"); err == nil {
			u = startOwnRedis(t).URL()
		} else {
			storetest.Redis(t)
			u = "redis://" + storetest.Miniredis(t).Addr()
		}
		env = append(env, "REDIS_URL="+u, "REDIS_CLUSTER_ADDRS=")
	}
	acc := map[string]string{"DATA_DIR": dir}
	db := ""
	if u := os.Getenv("DATABASE_URL"); u != "" {
		db = freshSchema(t, u)
		acc["DATABASE_URL"] = db
	}
	env = append(env, "DATABASE_URL="+db)
	return append(env, extra...), acc
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
	env, acc := sharedEnv(t)
	ps := startInstances(t, 2, env)
	a, b := ps[0].base(), ps[1].base()
	accounts := newAccountMaker(t, acc)

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
		for i := 0; i < 400 && len(counts) < len(placed); i++ {
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
}
