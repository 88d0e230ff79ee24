package apptest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/handlers/apptest"
	"storefront/store/storetest"
)

// TestStartRidesOutALateAndSlowRedis: an app started while its Redis
// drops every connection (not up yet, or restarting), and whose Redis
// then turns slower than the client waits in the middle of seeding (one
// slow reply while seeding the articles used to end the process), keeps
// trying each step within START_TIMEOUT and comes up, seeded and serving,
// once Redis answers.
func TestStartRidesOutALateAndSlowRedis(t *testing.T) {
	storetest.OnePass(t) // its own servers: nothing to learn from a second backend
	t.Parallel()
	rs := startOwnRedis(t, "--appendonly", "no")
	proxy := startDelayProxy(t, rs.Addr())
	proxy.SetDrop(true)
	// Each fault is lifted once the app met it: the proxy's counter, not
	// a clock, says when. go-redis itself tries a command up to 4 times
	// on a dropped connection: 12 drops are at least 3 start-up attempts.
	go func() {
		for proxy.Hindered() < 12 {
			time.Sleep(10 * time.Millisecond)
		}
		mark := proxy.Hindered()
		// The first write of a demo article: seeding is under way.
		proxy.SlowAfter("{a}article:", 3*time.Second) // longer than go-redis's 2 s read timeout
		proxy.SetDrop(false)
		for proxy.Hindered() < mark+2 {
			time.Sleep(10 * time.Millisecond)
		}
		proxy.SetDelay(0)
	}()
	app := apptest.Start(t, map[string]string{"REDIS_URL": "redis://" + proxy.Addr() + "/0", "START_TIMEOUT": "5m"})

	retries := app.Logged("start-up step failed, trying again")
	var dropped, slowSeed bool
	for _, m := range retries {
		msg, _ := m["err"].(string)
		dropped = dropped || m["step"] == "redis"
		slowSeed = slowSeed || m["step"] == "seed" && strings.Contains(msg, "timeout")
	}
	if !dropped || !slowSeed {
		logs := app.Logs()
		t.Errorf("start-up retried %d times (connecting: %v, seeding after a time-out: %v); want both:\n%s",
			len(retries), dropped, slowSeed, logs[max(0, len(logs)-4000):])
	}
	s := apptest.NewClient(t, app.URL)
	s.MustGet("/readyz", http.StatusOK)
	if got := apptest.TextOf(s.MustGet("/items/1", http.StatusOK).Body, "item-price"); got == "" {
		t.Error("the item page after a late start shows no price: the catalog was not seeded")
	}
	s.Register("late_start")
	if got := apptest.TextOf(s.MustGet("/", http.StatusOK).Body, "user-name"); got != "late_start" {
		t.Errorf("signed in as %q after a late start", got)
	}
}
