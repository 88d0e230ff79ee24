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

func TestPageKeyNormalises(t *testing.T) {
	k1, ok1 := store.PageKey("/items/7", url.Values{"b": {"2"}, "a": {"1"}, "utm_source": {"x"}, "fbclid": {"y"}, "gclid": {"z"}})
	k2, ok2 := store.PageKey("/items/7", url.Values{"a": {"1"}, "b": {"2"}})
	k3, _ := store.PageKey("/items/7", url.Values{})
	if !ok1 || !ok2 || k1 != k2 || k1 == k3 || len(k1) != 64 {
		t.Fatalf("keys %q %q %q", k1, k2, k3)
	}
	if _, ok := store.PageKey("/items/7", url.Values{"_": {"1"}}); ok {
		t.Error("_ must bypass")
	}
}

// A purge that lands while a page is being rendered from older data voids
// that page, although it is stored after the purge.
func TestPurgeDuringRenderVoidsPage(t *testing.T) {
	st := storetest.Store(t)
	ctx := t.Context()
	key, _ := store.PageKey("/items/5", url.Values{})
	st.Redis().ZIncrBy(ctx, "viewed:", -1, "5")
	v, err := st.VisitItem(ctx, store.ItemVisit{ItemID: 5, PageKey: key})
	if err != nil {
		t.Fatal(err)
	}
	render := func(ctx context.Context, it store.Item) ([]byte, error) {
		if err := st.PurgeItemPages(ctx, it.ID); err != nil { // an edit commits meanwhile
			return nil, err
		}
		return page(it.Name), nil
	}
	p, outcome, err := st.FillPage(ctx, store.PageFill{Key: key, ItemID: 5, Gen: v.Gen, Render: render})
	if err != nil || p == nil || outcome != store.FillRendered {
		t.Fatalf("fill: %v %v", outcome, err)
	}
	v, err = st.VisitItem(ctx, store.ItemVisit{ItemID: 5, PageKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if v.Page != nil {
		t.Fatal("a page rendered before the purge was served")
	}
	p, outcome, err = st.FillPage(ctx, store.PageFill{Key: key, ItemID: 5, Gen: v.Gen,
		Render: func(_ context.Context, it store.Item) ([]byte, error) { return page(it.Name), nil }})
	if err != nil || outcome != store.FillRendered {
		t.Fatalf("second fill: %v %v", outcome, err)
	}
	if v, _ = st.VisitItem(ctx, store.ItemVisit{ItemID: 5, PageKey: key}); v.Page == nil || !v.Fresh {
		t.Fatal("the new page is not served")
	}
}

func TestFillFindsPageStoredMeanwhile(t *testing.T) {
	st := storetest.Store(t)
	ctx := t.Context()
	key, _ := store.PageKey("/items/6", url.Values{})
	renders := 0
	f := store.PageFill{Key: key, ItemID: 6, Render: func(_ context.Context, it store.Item) ([]byte, error) {
		renders++
		return page(it.Name), nil
	}}
	if _, o, err := st.FillPage(ctx, f); err != nil || o != store.FillRendered {
		t.Fatalf("%v %v", o, err)
	}
	// A request whose first round trip missed, arriving after the render.
	if _, o, err := st.FillPage(ctx, f); err != nil || o != store.FillFound || renders != 1 {
		t.Fatalf("%v %v, %d renders", o, err, renders)
	}
	if _, o, err := st.FillPage(ctx, store.PageFill{Key: key, ItemID: 999999, Render: f.Render}); err == nil {
		t.Fatalf("a page of another item was used: %v", o)
	}
	missing, _ := store.PageKey("/items/999999", url.Values{})
	if _, _, err := st.FillPage(ctx, store.PageFill{Key: missing, ItemID: 999999, Render: f.Render}); err != store.ErrNotFound {
		t.Fatalf("missing item: %v", err)
	}
	if n, _ := st.Redis().Exists(ctx, "{cache:"+missing+"}:lock").Result(); n != 0 {
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
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
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
