package apptest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/seed"
	"storefront/store/storetest"
)

// TestLoad is the load program: a mixed workload of signed-in
// shoppers (browse 70%, item pages 20% with skewed popularity, cart 5%,
// votes 5%) for LOAD (a duration) with LOAD_CONCURRENCY shoppers (default
// 32), reporting throughput, p50/p99 latency per kind and overall, the
// error rate and Redis memory before and after. It starts the app
// (apptest.Start) on this run's Redis and database:
//
//	LOAD=30s LOAD_CONCURRENCY=32 REDIS_URL=redis://127.0.0.1:6379/6 go test -run 'TestLoad$' -v ./handlers/apptest
//	LOAD=30s REDIS_URL=redis://127.0.0.1:6379/6 DATABASE_URL='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' go test -run 'TestLoad$' -v ./handlers/apptest
//	LOAD=30s REDIS_CLUSTER_ADDRS=127.0.0.1:7201,127.0.0.1:7202,127.0.0.1:7203 go test -run 'TestLoad$' -v ./handlers/apptest
//
// or targets a running shop with LOAD_URL (accounts are then registered
// through /register, which REGISTER_RATE may limit; LOAD_REDIS_URL, if
// given, is read for memory figures). LOAD_KIND=browse|item|cart|vote runs
// one kind alone, to see what each costs; the report lists Redis commands
// per request by command (INFO commandstats).
//
// Without LOAD it skips, saying so: it is a measurement first. CI sets a
// short LOAD for its run against the real services, where it is also a
// check: no answer is a 5xx or a transport error.
func TestLoad(t *testing.T) {
	d := os.Getenv("LOAD")
	if d == "" {
		t.Skip("LOAD unset: the load program runs for a duration, e.g. LOAD=30s (CI sets a short one)")
	}
	dur, err := time.ParseDuration(d)
	if err != nil || dur <= 0 {
		t.Fatalf("LOAD: want a duration such as 30s, got %q", d)
	}
	conc := 32
	if v := os.Getenv("LOAD_CONCURRENCY"); v != "" {
		if conc, err = strconv.Atoi(v); err != nil || conc < 1 {
			t.Fatalf("LOAD_CONCURRENCY: want a whole number >= 1, got %q", v)
		}
	}

	base, rdb, where := os.Getenv("LOAD_URL"), redis.UniversalClient(nil), ""
	var accounts *accountMaker
	if base == "" {
		env, client := loadEnv(t)
		app := startUnlimited(t, env)
		base, accounts, rdb = app.URL, accountsOf(t, app), client
		where = fmt.Sprintf("app process, redis=%s, database=%s", storetest.Backend(), storetest.DBKind())
	} else {
		if u := os.Getenv("LOAD_REDIS_URL"); u != "" {
			opt, err := redis.ParseURL(u)
			if err != nil {
				t.Fatalf("LOAD_REDIS_URL: %v", err)
			}
			rdb = redis.NewClient(opt)
		}
		where = "LOAD_URL=" + base
	}

	users := newLoadUsers(t, base, conc, 30*time.Second, accounts)
	cfg := workloadConfig{Bases: []string{base}, Duration: dur, Items: seed.DemoItemCount, Articles: articleIDs(t, base), Only: os.Getenv("LOAD_KIND")}
	// A short warm-up (not counted) fills the caches and the pools.
	runLoad(t.Context(), workloadConfig{Bases: cfg.Bases, Duration: min(dur/10, 3*time.Second), Items: cfg.Items, Articles: cfg.Articles}, users, &loadRecorder{})

	before, cpuBefore, appBefore := redisFigures(t, rdb), processCPU(), appCPU(base)
	rec := &loadRecorder{}
	took := runLoad(t.Context(), cfg, users, rec)
	after, cpuAfter, appAfter := redisFigures(t, rdb), processCPU(), appCPU(base)

	samples := rec.snapshot()
	var b strings.Builder
	fmt.Fprintf(&b, "load: %s, %d shoppers, %v, GOMAXPROCS=%d\n", where, conc, took.Round(time.Millisecond), runtimeProcs())
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\trequests\treq/s\tp50\tp99\tmax\terrors\t4xx\t")
	for _, k := range append(loadKinds, "") {
		st := summarise(samples, k)
		name := k
		if name == "" {
			name = "all"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%v\t%v\t%v\t%.2f%%\t%d\t\n", name, st.n, float64(st.n)/took.Seconds(),
			ms(st.p50), ms(st.p99), ms(st.max), pct(st.errs, st.n), st.rejected)
	}
	tw.Flush()
	if rdb != nil {
		fmt.Fprintf(&b, "redis used_memory: %s before, %s after (%+.1f MB); sessions in recent: %d before, %d after\n",
			mb(before.usedMemory), mb(after.usedMemory), float64(after.usedMemory-before.usedMemory)/1e6, before.sessions, after.sessions)
		if n := summarise(samples, "").n; n > 0 {
			fmt.Fprintf(&b, "redis commands: %d, %.1f per request; redis CPU %.0f µs per request (server totals: other clients of a shared server count too)\n",
				after.commands-before.commands, float64(after.commands-before.commands)/float64(n), (after.cpu-before.cpu)/float64(n)*1e6)
			fmt.Fprintf(&b, "redis commands per request by command (INFO commandstats; a script's own commands count too): %s\n",
				commandsPerRequest(before.calls, after.calls, n))
		}
	}
	if n := summarise(samples, "").n; n > 0 {
		perReq := func(d float64) float64 { return d / float64(n) * 1e6 }
		fmt.Fprintf(&b, "CPU of the app (its /metrics): %.0f µs per request; of the load generator: %.0f µs per request\n",
			perReq(appAfter-appBefore), perReq((cpuAfter - cpuBefore).Seconds()))
	}
	if errs := transportErrors(samples); len(errs) > 0 {
		fmt.Fprintf(&b, "transport errors: %v\n", errs)
	}
	t.Log("\n" + b.String())
	all := summarise(samples, "")
	for st, n := range all.statuses {
		if st >= 500 || st == 0 {
			t.Errorf("%d answers with status %d", n, st)
		}
	}
}

// loadEnv is the app's environment: this run's Redis (flushed;
// a client is returned) and a fresh database, limits off.
func loadEnv(t *testing.T) (map[string]string, redis.UniversalClient) {
	env := map[string]string{"REGISTER_RATE": "0", "LOGIN_RATE": "0", "VOTE_RATE": "0", "FOLLOW_RATE": "0", "LIKE_RATE": "0", "SESSION_RATE": "0",
		"METRICS_TOKEN": apptest.MetricsToken, "DATA_DIR": t.TempDir()}
	rdb := storetest.Redis(t)
	switch storetest.Backend() {
	case platform.ModeCluster:
		env["REDIS_CLUSTER_ADDRS"] = os.Getenv("REDIS_CLUSTER_ADDRS")
	case platform.ModeSingle:
		env["REDIS_URL"] = os.Getenv("REDIS_URL")
	default:
		env["REDIS_URL"] = "redis://" + storetest.Miniredis(t).Addr()
	}
	env["DATABASE_URL"] = storetest.DatabaseURL(t)
	return env, rdb
}

// redisStats are a Redis server's (or a Cluster's masters', summed)
// figures the load report shows.
type redisStats struct {
	usedMemory, commands, sessions int64
	cpu                            float64          // used_cpu_user + used_cpu_sys, seconds
	calls                          map[string]int64 // INFO commandstats: command -> calls

}

// redisFigures reads INFO's used_memory and total_commands_processed
// (zero without a client or on miniredis) and the number of sessions.
func redisFigures(t *testing.T, rdb redis.UniversalClient) redisStats {
	st := redisStats{calls: map[string]int64{}}
	if rdb == nil {
		return st
	}
	ctx := context.Background()
	st.sessions = storetest.Must(rdb.ZCard(ctx, keys.Recent).Result())(t)
	var mu sync.Mutex
	add := func(ctx context.Context, c *redis.Client) error {
		info, err := c.Info(ctx, "memory", "stats", "cpu", "commandstats").Result()
		if err != nil {
			return nil // miniredis has no such figures
		}
		mu.Lock()
		defer mu.Unlock()
		for _, line := range strings.Split(info, "\r\n") {
			name, v, _ := strings.Cut(line, ":")
			n, _ := strconv.ParseInt(v, 10, 64)
			if cmd, ok := strings.CutPrefix(name, "cmdstat_"); ok {
				calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
				n, _ := strconv.ParseInt(calls, 10, 64)
				st.calls[cmd] += n
			}
			switch name {
			case "used_memory":
				st.usedMemory += n
			case "total_commands_processed":
				st.commands += n
			case "used_cpu_user", "used_cpu_sys":
				f, _ := strconv.ParseFloat(v, 64)
				st.cpu += f
			}
		}
		return nil
	}
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		_ = c.ForEachMaster(ctx, add)
	case *redis.Client:
		_ = add(ctx, c)
	}
	return st
}

// commandsPerRequest lists the commands of a run, most called first, as
// calls per request.
func commandsPerRequest(before, after map[string]int64, requests int) string {
	type c struct {
		name string
		n    int64
	}
	var cs []c
	for name, n := range after {
		if d := n - before[name]; d > 0 && name != "info" {
			cs = append(cs, c{name, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].n > cs[j].n })
	parts := make([]string, len(cs))
	for i, x := range cs {
		parts[i] = fmt.Sprintf("%s %.2f", x.name, float64(x.n)/float64(requests))
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// processCPU is the user and system CPU time this process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// appCPU reads storefront_process_cpu_seconds_total from base's /metrics
// (0 if it cannot).
func appCPU(base string) float64 {
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+apptest.MetricsToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "storefront_process_cpu_seconds_total "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
	}
	return 0
}
