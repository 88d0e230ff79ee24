package stats_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/pagecache"
	"storefront/store/storetest"
	"storefront/store/workers"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// twin is a second instance over the same Redis and database.
func twin(t *testing.T, st *wiring.Services, edit ...func(*wiring.Options)) *wiring.Services {
	opt := st.Options()
	for _, f := range edit {
		f(&opt)
	}
	other := wiring.New(st.Redis(), st.DB(), opt, storetest.Logger(t))
	t.Cleanup(other.Close)
	return other
}

func TestSampleStatsHistory(t *testing.T) {
	st := wiringtest.New(t)
	other := twin(t, st)
	ctx := t.Context()
	rdb := st.Redis()
	start := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	// Two hours of samples, one a minute, alternating instances (as after
	// lease hand-overs), with the counters moving.
	for i := 0; i <= 120; i++ {
		at := start.Add(time.Duration(i) * time.Minute)
		rdb.HIncrBy(ctx, keys.PageStats, "hit", 3)
		rdb.HIncrBy(ctx, keys.PageStats, "miss", 1)
		rdb.ZAdd(ctx, keys.Recent, redis.Z{Score: float64(at.Unix()), Member: fmt.Sprint("tok", i)})
		s := []*wiring.Services{st, other}[i%2]
		s.SetClock(func() time.Time { return at })
		smp, err := s.Stats.SampleStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if smp.Hits != int64(3*(i+1)) || smp.Misses != int64(i+1) || smp.Sessions != int64(i+1) {
			t.Fatalf("sample %d: %+v", i, smp)
		}
	}
	// The history keeps a little over an hour, and both instances read the
	// same one.
	now := start.Add(120 * time.Minute)
	for _, s := range []*wiring.Services{st, other} {
		h, err := s.Stats.StatsHistory(ctx, now.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != 61 || !h[0].At.Equal(now.Add(-time.Hour)) || !h[60].At.Equal(now) {
			t.Fatalf("history: %d samples from %v to %v", len(h), h[0].At, h[len(h)-1].At)
		}
		if h[60].Hits != 363 || h[60].Sessions != 121 {
			t.Errorf("last sample %+v", h[60])
		}
	}
	if n := rdb.ZCard(ctx, keys.StatsSamples).Val(); n > 66 {
		t.Errorf("%d samples kept; the history is capped at about 65 minutes", n)
	}
}

func TestStatsWorkerOnceAcrossInstances(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.StatsInterval = 20 * time.Millisecond })
	others := []*wiring.Services{st, twin(t, st), twin(t, st)}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, s := range others {
		for _, w := range s.Workers() {
			if w.Name() == "stats" {
				wg.Add(1)
				go func() { defer wg.Done(); w.Run(ctx) }()
			}
		}
	}
	deadline := time.Now().Add(2 * time.Minute) // a bound, not a timing assertion
	rdb := st.Redis()
	for (rdb.ZCard(t.Context(), keys.StatsSamples).Val() < 10 || !rdb.HExists(t.Context(), keys.KeyspaceScan, "at").Val()) &&
		time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	wg.Wait()
	h, err := st.Stats.StatsHistory(t.Context(), time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(h) < 10 {
		t.Fatalf("%d samples", len(h))
	}
	for _, s := range h {
		if s.Instance != h[0].Instance {
			t.Fatalf("samples from %s and %s: the lease should let one instance sample", h[0].Instance, s.Instance)
		}
	}
	w, err := st.WorkerStatus(t.Context(), "stats")
	if err != nil || w.Instance != h[0].Instance || w.LastRun.IsZero() || w.Error != "" {
		t.Errorf("stats worker report %+v (%v)", w, err)
	}
	all, err := others[1].WorkerStatuses(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]workers.Status{}
	for _, w := range all {
		names[w.Name] = w
	}
	if s, ok := names["stats"]; !ok || s.Instance != h[0].Instance || len(names) != len(all) {
		t.Errorf("worker statuses %+v", all)
	}
	// The holder scanned the keyspace beside its sampling.
	if ks, err := st.Stats.LastKeyspace(t.Context()); err != nil || ks.At.IsZero() {
		t.Errorf("no keyspace scan: %+v (%v)", ks, err)
	}
	// The holder gave the lease up on the way out.
	if holder, err := st.LeaseHolder(t.Context(), "stats"); err != nil || holder != "" {
		t.Errorf("lease held by %q after shutdown (%v)", holder, err)
	}
}

func TestScanKeyspace(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	rdb := st.Redis()
	pipe := rdb.Pipeline()
	for i := range 150 {
		pipe.Set(ctx, keys.Page(fmt.Sprintf("%064x", i)), strings.Repeat("x", 100+i), 0)
	}
	for i := range 30 {
		pipe.HSet(ctx, keys.GuestCart(fmt.Sprintf("tok%d", i)), "1", 2)
	}
	for i := range 10 { // signed-in accounts' carts
		pipe.HSet(ctx, keys.AccountCart(int64(i)), "1", 2)
	}
	// Names the scan pattern also matches, and page locks: not counted.
	for _, k := range []string{"cacti", "carts", "cathedral", "cache", keys.PageLock("ab"), "category:1", keys.CheckoutLock(1, ""), "{user:1}:cartography"} {
		pipe.Set(ctx, k, "v", 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	ks, err := st.Stats.ScanKeyspace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantBytes := int64(150*100 + 149*150/2)
	if ks.Pages != 150 || ks.PageBytes != wantBytes || ks.Carts != 40 || ks.At.IsZero() {
		t.Fatalf("scan: %+v, want 150 pages of %d bytes, 40 carts", ks, wantBytes)
	}
	last, err := twin(t, st).Stats.LastKeyspace(ctx)
	if err != nil || last.Pages != 150 || last.PageBytes != wantBytes || last.Carts != 40 {
		t.Errorf("stored scan %+v (%v)", last, err)
	}
}

func TestDashboard(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	rdb := st.Redis()
	now := time.Now()
	rdb.HSet(ctx, keys.PageStats, "hit", 5, "miss", 3, "stale", 1, "bypass", 2, "renders", 4)
	rdb.ZAdd(ctx, keys.PageHits, redis.Z{Score: 4, Member: "7"}, redis.Z{Score: 1, Member: "3"}, redis.Z{Score: 0, Member: "999999"})
	for i := range 30 {
		rdb.ZAdd(ctx, keys.ViewRanking, redis.Z{Score: -float64(100 - i), Member: fmt.Sprint(i + 1)})
	}
	for i := range 5 {
		tok := fmt.Sprint("tok", i)
		if err := st.Sessions.CreateSession(ctx, tok, int64(i%2)); err != nil { // 0: guest
			t.Fatal(err)
		}
	}
	rdb.ZAdd(ctx, keys.RowSchedule, redis.Z{Score: float64(now.Unix() + 60), Member: "9"}, redis.Z{Score: float64(now.Unix()), Member: "4"})
	rdb.ZAdd(ctx, keys.RowDelay, redis.Z{Score: 30, Member: "9"}, redis.Z{Score: 5, Member: "4"})
	rdb.Set(ctx, keys.RowCache(4), fmt.Sprintf(`{"id":4,"cached_at":%d.5}`, now.Unix()-2), 0)
	rdb.HSet(ctx, keys.Worker(keys.LeaseCleanup), "instance", "box-1", "last_run", now.UnixMilli(), "result", "sessions evicted: 3", "error", "", "total:evicted", 12)
	rdb.Set(ctx, keys.Lease(keys.LeaseCleanup), "box-1", time.Minute)

	d, err := twin(t, st).Stats.Dashboard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := d.Page
	if p.Hits != 5 || p.Misses != 3 || p.Stale != 1 || p.Bypass != 2 || p.Renders != 4 || p.Lookups() != 9 {
		t.Errorf("page cache %+v", p)
	}
	if len(p.TopHits) != 2 || p.TopHits[0] != (pagecache.ItemHits{ItemID: 7, Hits: 4}) || p.TopHits[1].ItemID != 3 {
		t.Errorf("most-hit %+v", p.TopHits)
	}
	if s := d.Sessions; s.Total != 5 || s.SignedIn != 2 || s.Guests != 3 || s.Evicted != 12 || s.Cleanup.Instance != "box-1" {
		t.Errorf("sessions %+v", s)
	}
	if len(d.Popular) != 20 || d.Popular[0].ItemID != 1 || d.Popular[0].Views != 100 || d.Popular[19].ItemID != 20 {
		t.Errorf("popular: %d items, first %+v", len(d.Popular), d.Popular)
	}
	if len(d.Rows) != 2 || d.RowCount != 2 || d.Rows[0].ItemID != 4 || d.Rows[0].Delay != 5 || d.Rows[1].ItemID != 9 {
		t.Fatalf("rows %+v", d.Rows)
	}
	if got := d.Rows[0].LastRefresh.Unix(); got != now.Unix()-2 || !d.Rows[1].LastRefresh.IsZero() {
		t.Errorf("last refresh %v, %v", d.Rows[0].LastRefresh, d.Rows[1].LastRefresh)
	}
	found := false
	for _, w := range d.Workers {
		if w.Name == "stats" {
			found = w.Leased && w.Holder == "" && w.LastRun.IsZero()
		}
	}
	if !found {
		t.Errorf("workers %+v: want the stats worker, leased, never run", d.Workers)
	}
	if d.Redis.Mode != storetest.Backend() || d.Redis.Keys < 10 || d.Redis.Masters < 1 {
		t.Errorf("redis %+v", d.Redis)
	}
	if storetest.Miniredis(t) == nil && (d.Redis.Version == "" || d.Redis.UsedMemory <= 0) {
		t.Errorf("redis %+v: a real server reports its version and memory", d.Redis)
	}
	if d.DBKind != storetest.DBKind() || d.DBSize <= 0 {
		t.Errorf("database %s of %d bytes", d.DBKind, d.DBSize)
	}
}
