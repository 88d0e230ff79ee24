package store_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store"
	"storefront/store/storetest"
)

func page(name string) []byte {
	return []byte(`<html><!--hole:account-->anon<!--/hole:account--><h1>` + name + `</h1></html>`)
}

func TestPageKeyDropsUnreadParameters(t *testing.T) {
	k1, ok1 := store.CacheKeyOf(7, url.Values{"b": {"2"}, "a": {"1"}, "utm_source": {"x"}, "fbclid": {"y"}, "gclid": {"z"}})
	k2, ok2 := store.CacheKeyOf(7, url.Values{})
	if !ok1 || !ok2 || k1 != k2 || k1 != store.PageKey(7) || len(k1) != 64 || k1 == store.PageKey(8) {
		t.Fatalf("keys %q %q", k1, k2)
	}
	if _, ok := store.CacheKeyOf(7, url.Values{"_": {"1"}}); ok {
		t.Error("_ must bypass")
	}
}

func render(name func(string) []byte) store.RenderFunc {
	return func(_ context.Context, it store.Item, _ store.PageFacts) ([]byte, error) { return name(it.Name), nil }
}

// A purge that lands while a page is being rendered from older data voids
// that page, although it is stored after the purge.
func TestPurgeDuringRenderVoidsPage(t *testing.T) {
	st := storetest.Store(t)
	ctx := t.Context()
	st.Redis().ZIncrBy(ctx, "viewed:", -1, "5")
	gen := store.PageGens(ctx, st, 5)
	purging := func(ctx context.Context, it store.Item, _ store.PageFacts) ([]byte, error) {
		if err := st.PurgeItemPages(ctx, it.ID); err != nil { // an edit commits meanwhile
			return nil, err
		}
		return page(it.Name), nil
	}
	if outcome, err := store.FillPage(ctx, st, 5, gen, purging); err != nil || outcome != store.FillRendered {
		t.Fatalf("fill: %v %v", outcome, err)
	}
	v, err := st.ServeItemPage(ctx, store.ItemPageRequest{ItemID: 5, Render: render(page)})
	if err != nil {
		t.Fatal(err)
	}
	if v.Result != store.PageMiss {
		t.Fatalf("a page rendered before the purge was served (%s)", v.Result)
	}
	if v, _ = st.ServeItemPage(ctx, store.ItemPageRequest{ItemID: 5, Render: render(page)}); v.Result != store.PageHit {
		t.Fatalf("the new page is not served: %s", v.Result)
	}
}

func TestFillFindsPageStoredMeanwhile(t *testing.T) {
	st := storetest.Store(t)
	ctx := t.Context()
	renders := 0
	counting := func(_ context.Context, it store.Item, _ store.PageFacts) ([]byte, error) {
		renders++
		return page(it.Name), nil
	}
	if o, err := store.FillPage(ctx, st, 6, store.PageGen{}, counting); err != nil || o != store.FillRendered {
		t.Fatalf("%v %v", o, err)
	}
	// A request whose read round trip missed, arriving after the render.
	if o, err := store.FillPage(ctx, st, 6, store.PageGen{}, counting); err != nil || o != store.FillFound || renders != 1 {
		t.Fatalf("%v %v, %d renders", o, err, renders)
	}
	if _, err := store.FillPage(ctx, st, 999999, store.PageGen{}, counting); err != store.ErrNotFound {
		t.Fatalf("missing item: %v", err)
	}
	if n, _ := st.Redis().Exists(ctx, "{cache:"+store.PageKey(999999)+"}:lock").Result(); n != 0 {
		t.Error("a failed render kept its lock")
	}
}

func TestRescaleTrimsAndHalves(t *testing.T) {
	st := storetest.Store(t, func(o *store.Options) { o.ViewedKeep = 3 })
	ctx := t.Context()
	rdb := st.Redis()
	for i := 1; i <= 6; i++ {
		rdb.ZAdd(ctx, "viewed:", redis.Z{Score: float64(-10 * i), Member: fmt.Sprint(i)})
	}
	if err := st.Rescale(ctx); err != nil {
		t.Fatal(err)
	}
	top, err := st.PopularItems(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.ItemViews{{ItemID: 6, Views: 30}, {ItemID: 5, Views: 25}, {ItemID: 4, Views: 20}}
	if fmt.Sprint(top) != fmt.Sprint(want) {
		t.Fatalf("after rescale %v, want %v", top, want)
	}
}

func TestRescaleWorkerRunsOnceAcrossInstances(t *testing.T) {
	opts := func(o *store.Options) { o.RescaleInterval = 20 * time.Millisecond }
	st := storetest.Store(t, opts)
	o := st.Options()
	other := store.New(st.Redis(), st.DB(), o, storetest.Logger(t))
	t.Cleanup(other.Close)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	n := 0
	for _, s := range []*store.Store{st, other} {
		for _, w := range s.Workers() {
			if w.Name() == "rescale" {
				n++
				go func() { w.Run(ctx); done <- struct{}{} }()
			}
		}
	}
	rdb := st.Redis()
	rdb.ZAdd(ctx, "viewed:", redis.Z{Score: -1 << 20, Member: "1"})
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if s, _ := rdb.ZScore(ctx, "viewed:", "1").Result(); s > -1<<17 {
			break // halved at least three times
		}
		if time.Now().After(deadline) {
			t.Fatal("the rescale worker never ran")
		}
	}
	holder, err := st.LeaseHolder(ctx, "rescale")
	if err != nil || (holder != st.Instance() && holder != other.Instance()) {
		t.Fatalf("lease holder %q %v", holder, err)
	}
	cancel()
	for range n {
		<-done
	}
}
