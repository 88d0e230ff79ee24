package catalog_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// clock is a settable time shared by stores in a test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func cachedRow(t *testing.T, rdb redis.UniversalClient, id string) (catalog.CachedRow, bool) {
	t.Helper()
	n, _ := strconv.ParseInt(id, 10, 64)
	b, err := rdb.Get(t.Context(), keys.RowCache(n)).Bytes()
	if err == redis.Nil {
		return catalog.CachedRow{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var r catalog.CachedRow
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("inv:%s is not JSON: %v", id, err)
	}
	return r, true
}

func TestRowCacheScheduleRefreshUnschedule(t *testing.T) {
	st := wiringtest.New(t)
	ck := &clock{t: time.Unix(1_800_000_000, 0)}
	st.SetClock(ck.now)
	ctx := t.Context()
	rdb := st.Redis()
	if err := st.Catalog.ScheduleRow(ctx, 7, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Catalog.CacheRows(ctx); err != nil || n != 1 {
		t.Fatalf("first pass: %d %v", n, err)
	}
	r1, ok := cachedRow(t, rdb, "7")
	if !ok || r1.ID != 7 || r1.Name == "" || r1.PriceCents == 0 || r1.CachedAt != 1_800_000_000 {
		t.Fatalf("inv:7 = %+v", r1)
	}
	raw := storetest.Must(rdb.Get(ctx, keys.RowCache(7)).Result())(t)
	var cols map[string]any
	_ = json.Unmarshal([]byte(raw), &cols)
	for _, k := range []string{"id", "slug", "name", "description", "category", "price_cents", "stock", "updated_at", "cached_at"} {
		if _, ok := cols[k]; !ok {
			t.Errorf("inv:7 lacks column %s", k)
		}
	}
	if n := storetest.Must(st.Catalog.CacheRows(ctx))(t); n != 0 {
		t.Fatal("refreshed before the delay")
	}
	ck.add(5 * time.Second)
	if _, err := st.DB().ExecContext(ctx, `UPDATE items SET stock = 3 WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Catalog.CacheRows(ctx); n != 1 {
		t.Fatal("not refreshed after the delay")
	}
	r2, _ := cachedRow(t, rdb, "7")
	if r2.CachedAt != r1.CachedAt+5 || r2.Stock != 3 {
		t.Fatalf("after refresh: cached_at %v stock %d", r2.CachedAt, r2.Stock)
	}
	rows, err := st.Catalog.ScheduledRows(ctx, 10)
	if err != nil || len(rows) != 1 || rows[0].ItemID != 7 || rows[0].Delay != 5 {
		t.Fatalf("scheduled rows %v %v", rows, err)
	}
	if err := st.Catalog.ScheduleRow(ctx, 7, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := cachedRow(t, rdb, "7"); ok {
		t.Error("unscheduling must delete inv:7")
	}
	for _, k := range []string{keys.RowSchedule, keys.RowDelay} {
		if _, err := rdb.ZScore(ctx, k, "7").Result(); err != redis.Nil {
			t.Errorf("7 still in %s", k)
		}
	}
}

func TestRowCacheDropsBadRows(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	rdb := st.Redis()
	now := float64(time.Now().Unix())
	rdb.ZAdd(ctx, keys.RowSchedule, redis.Z{Score: now, Member: "8"}, redis.Z{Score: now, Member: "9"},
		redis.Z{Score: now, Member: "999999"}, redis.Z{Score: now, Member: "junk"})
	rdb.ZAdd(ctx, keys.RowDelay, redis.Z{Score: -1, Member: "9"}, redis.Z{Score: 5, Member: "999999"})
	rdb.Set(ctx, keys.RowCache(8), "{}", 0)
	rdb.Set(ctx, keys.RowCache(9), "{}", 0)
	// 8 has no delay (a refresh loop that assumes one would crash), 9 a
	// negative one,
	// 999999 is no item and "junk" no id: all are dropped.
	if _, err := st.Catalog.CacheRows(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Catalog.CacheRows(ctx); n != 0 {
		t.Fatalf("refreshed %d rows", n)
	}
	if n := storetest.Must(rdb.ZCard(ctx, keys.RowSchedule).Result())(t); n != 0 {
		t.Errorf("%d rows still scheduled", n)
	}
	if n := storetest.Must(rdb.ZCard(ctx, keys.RowDelay).Result())(t); n != 0 {
		t.Errorf("%d delays left", n)
	}
	for _, id := range []string{"8", "9", "999999"} {
		if _, ok := cachedRow(t, rdb, id); ok {
			t.Errorf("inv:%s left", id)
		}
	}
}

func TestRowCacheTwoWorkersRefreshOnce(t *testing.T) {
	st := wiringtest.New(t)
	ck := &clock{t: time.Unix(1_800_000_000, 0)}
	st.SetClock(ck.now)
	other := wiring.New(st.Redis(), st.DB(), st.Options(), storetest.Logger(t))
	t.Cleanup(other.Close)
	other.SetClock(ck.now)
	ctx := t.Context()
	for _, id := range []int64{3, 4, 5} {
		if err := st.Catalog.ScheduleRow(ctx, id, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 20 {
		var total atomic.Int64
		var wg sync.WaitGroup
		for _, s := range []*wiring.Services{st, other, st, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := s.Catalog.CacheRows(ctx)
				if err != nil {
					t.Error(err)
				}
				total.Add(int64(n))
			}()
		}
		wg.Wait()
		if total.Load() != 3 {
			t.Fatalf("round %d: %d refreshes of 3 due rows", round, total.Load())
		}
		ck.add(time.Second)
	}
}

func TestRowCacheWorkerRuns(t *testing.T) {
	st := wiringtest.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for _, w := range st.Workers() {
		if w.Name() == "rowcache" {
			wg.Add(1)
			go func() { defer wg.Done(); w.Run(ctx) }()
		}
	}
	defer func() { cancel(); wg.Wait() }()
	if err := st.Catalog.ScheduleRow(ctx, 11, time.Hour); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := cachedRow(t, st.Redis(), "11"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker never cached the row")
		}
	}
}

func TestRowsFromCacheReadPath(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	if err := st.Catalog.ScheduleRow(ctx, 7, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Catalog.CacheRows(ctx); err != nil {
		t.Fatal(err)
	}
	// The cache is what the shop reads while the row is scheduled.
	st.Redis().Set(ctx, keys.RowCache(7), `{"id":7,"name":"From the cache","price_cents":111,"stock":2,"cached_at":1}`, 0)
	row, cached, err := st.Catalog.ItemRow(ctx, 7)
	if err != nil || !cached || row.Name != "From the cache" || row.CachedAt != 1 {
		t.Fatalf("item row %+v %v %v", row, cached, err)
	}
	rows, err := st.Catalog.CatalogRows(ctx, []int64{7, 8, 999999})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[7].Name != "From the cache" || rows[7].Stock != 2 || rows[8].Name == "" {
		t.Fatalf("rows %+v", rows)
	}
}

// A checkout calls PurgeItemPages: the item's cached row must not outlive
// the sale either, or the next page render would show the old stock.
func TestPurgeDropsCachedRow(t *testing.T) {
	st := wiringtest.New(t)
	ck := &clock{t: time.Unix(1_800_000_000, 0)}
	st.SetClock(ck.now)
	ctx := t.Context()
	rdb := st.Redis()
	if err := st.Catalog.ScheduleRow(ctx, 7, time.Hour); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Catalog.CacheRows(ctx); n != 1 {
		t.Fatal("not cached")
	}
	ck.add(time.Minute)
	if _, err := st.Pages.PurgeItemPages(ctx, 7, 8); err != nil {
		t.Fatal(err)
	}
	if _, ok := cachedRow(t, rdb, "7"); ok {
		t.Error("inv:7 survived the purge")
	}
	if n, _ := st.Catalog.CacheRows(ctx); n != 1 {
		t.Error("the purged row was not refreshed at once")
	}
	if r, ok := cachedRow(t, rdb, "7"); !ok || r.CachedAt != 1_800_000_060 {
		t.Errorf("refreshed row %+v", r)
	}
	if _, err := rdb.ZScore(ctx, keys.RowSchedule, "8").Result(); err != redis.Nil {
		t.Error("purging an unscheduled row scheduled it")
	}
}
