package pagecache_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/pagecache"
	"storefront/store/sessions"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// pipeHook records the commands of each pipeline sent.
type pipeHook struct {
	mu    sync.Mutex
	pipes [][]string
	alone int
}

func (h *pipeHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *pipeHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		h.alone++
		h.mu.Unlock()
		return next(ctx, cmd)
	}
}
func (h *pipeHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		names := make([]string, len(cmds))
		for i, c := range cmds {
			names[i] = c.Name()
		}
		h.mu.Lock()
		h.pipes = append(h.pipes, names)
		h.mu.Unlock()
		return next(ctx, cmds)
	}
}

func viewItem(t *testing.T, st *wiring.Services, token string, id int64) pagecache.ItemView {
	t.Helper()
	v, err := st.Pages.ServeItemPage(t.Context(), pagecache.ItemPageRequest{ItemID: id, Token: token, Render: wiringtest.PageRender})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Hits' writes are coalesced per session, item and counter and sent in one
// pipeline; every view is counted in both the ranking and the item's own
// counter, whatever path served it.
func TestWriteBehindCoalesces(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.WriteBehind = time.Hour })
	ctx := t.Context()
	rdb := st.Redis()
	tokens := []string{"tok-a", "tok-b"}
	for _, tok := range tokens {
		if err := st.Sessions.CreateSession(ctx, tok, 0); err != nil {
			t.Fatal(err)
		}
	}
	results := map[string]int{}
	const views = 50
	for i := range views {
		v := viewItem(t, st, tokens[i%2], 7)
		results[v.Result]++
	}
	if results[pagecache.PageHit] < views-3 {
		t.Fatalf("results %v: want hits after the first views", results)
	}
	hook := &pipeHook{}
	rdb.AddHook(hook)
	if err := st.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	if len(hook.pipes) != 1 || hook.alone != 0 {
		t.Fatalf("flush sent %d pipelines and %d lone commands, want 1 pipeline", len(hook.pipes), hook.alone)
	}
	// Per session: touch, viewed items (one script), alive check; per
	// item: ranking, counter, hits, rank; the stats field.
	if n := len(hook.pipes[0]); n != 2*3+4+1 {
		t.Errorf("flush pipeline of %d commands %v, want 11 (coalesced)", n, hook.pipes[0])
	}
	score := storetest.Must(rdb.ZScore(ctx, keys.ViewRanking, "7").Result())(t)
	counter := storetest.Must(rdb.HGet(ctx, keys.ItemCounts(7), "views").Int64())(t)
	if score != -views || counter != views {
		t.Errorf("ranking %v, counter %d, want -%d and %d: every view counts once", score, counter, views, views)
	}
	stats, _ := st.Pages.PageCacheStats(ctx)
	if stats[pagecache.PageHit] != int64(results[pagecache.PageHit]) {
		t.Errorf("hits counted %d, served %d", stats[pagecache.PageHit], results[pagecache.PageHit])
	}
	for _, tok := range tokens {
		if ids := storetest.Must(sessions.ReadViewed(ctx, rdb, tok))(t); len(ids) != 1 || ids[0] != "7" {
			t.Errorf("%s viewed %v", tok, ids)
		}
	}
}

// Close flushes what is buffered (shutdown); a session gone meanwhile is
// not revived and its viewed list not left behind.
func TestWriteBehindFlushesOnClose(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.WriteBehind = time.Hour })
	ctx := t.Context()
	rdb := st.Redis()
	for _, tok := range []string{"live", "ending"} {
		if err := st.Sessions.CreateSession(ctx, tok, 0); err != nil {
			t.Fatal(err)
		}
	}
	viewItem(t, st, "live", 9)
	viewItem(t, st, "live", 9)
	if v := viewItem(t, st, "live", 9); v.Result != pagecache.PageHit {
		t.Fatalf("result %s", v.Result)
	}
	viewItem(t, st, "ending", 9)
	before := storetest.Must(rdb.ZScore(ctx, keys.ViewRanking, "9").Result())(t)
	if err := st.Sessions.EndSession(ctx, "ending"); err != nil { // signed out before the flush
		t.Fatal(err)
	}
	st.Close()
	after := storetest.Must(rdb.ZScore(ctx, keys.ViewRanking, "9").Result())(t)
	if after != before-2 {
		t.Errorf("ranking %v -> %v: the two buffered hits were not flushed on Close", before, after)
	}
	if n := storetest.Must(rdb.Exists(ctx, keys.OfSession("ending").Viewed).Result())(t); n != 0 {
		t.Error("a session that ended before the flush left its viewed list")
	}
	if _, err := rdb.ZScore(ctx, keys.Recent, keys.OfSession("ending").ID).Result(); err != redis.Nil {
		t.Error("the flush revived an ended session")
	}
}

// Two stores on one Redis (two instances): a purge on one is heard by the
// other's in-process copy, which then serves the new page.
func TestInProcessCopyHearsPurges(t *testing.T) {
	st := wiringtest.New(t)
	other := wiring.New(st.Redis(), st.DB(), st.Options(), storetest.Logger(t))
	t.Cleanup(other.Close)
	ctx := t.Context()
	st.Redis().ZIncrBy(ctx, keys.ViewRanking, -1, "12") // ranked, so cached
	gen := 0
	rendering := func(_ context.Context, d pagecache.PageData) ([]byte, error) {
		return wiringtest.PageHTML(d.Item.Name + " v" + strconv.Itoa(gen)), nil
	}
	serve := func(s *wiring.Services) pagecache.ItemView {
		v, err := s.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 12, Render: rendering})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, s := range []*wiring.Services{st, other} {
		storetest.Eventually(t, func() bool { return serve(s).Result == pagecache.PageHit && s.Pages.HeldPage(12) != nil },
			"the page is never held in process")
	}
	for round, purge := range []func() error{
		func() error { _, err := st.Pages.PurgeItemPages(ctx, 12); return err },
		func() error { _, err := st.Pages.PurgeAllPages(ctx); return err },
	} {
		gen = round + 1
		old := other.Pages.HeldPage(12)
		if err := purge(); err != nil {
			t.Fatal(err)
		}
		storetest.Eventually(t, func() bool { return other.Pages.HeldPage(12) != old }, "the other instance never heard the purge")
		v := serve(other)
		html, _ := v.Page.HTML(nil)
		if v.Result == pagecache.PageHit && !contains(html, " v"+strconv.Itoa(gen)) {
			t.Errorf("round %d: the other instance served the old page after the purge", round)
		}
	}
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }
