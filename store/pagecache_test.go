package store_test

import (
	"context"
	"net/url"
	"testing"

	"storefront/store"
	"storefront/wiring/wiringtest"
)

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

// A purge that lands while a page is being rendered from older data voids
// that page, although it is stored after the purge.
func TestPurgeDuringRenderVoidsPage(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	st.Redis().ZIncrBy(ctx, "viewed:", -1, "5")
	gen := store.PageGens(ctx, st, 5)
	purging := func(ctx context.Context, it store.Item, _ store.PageFacts) ([]byte, error) {
		if err := st.PurgeItemPages(ctx, it.ID); err != nil { // an edit commits meanwhile
			return nil, err
		}
		return wiringtest.PageHTML(it.Name), nil
	}
	if outcome, err := store.FillPage(ctx, st, 5, gen, purging); err != nil || outcome != store.FillRendered {
		t.Fatalf("fill: %v %v", outcome, err)
	}
	v, err := st.ServeItemPage(ctx, store.ItemPageRequest{ItemID: 5, Render: wiringtest.PageRender})
	if err != nil {
		t.Fatal(err)
	}
	if v.Result != store.PageMiss {
		t.Fatalf("a page rendered before the purge was served (%s)", v.Result)
	}
	if v, _ = st.ServeItemPage(ctx, store.ItemPageRequest{ItemID: 5, Render: wiringtest.PageRender}); v.Result != store.PageHit {
		t.Fatalf("the new page is not served: %s", v.Result)
	}
}

func TestFillFindsPageStoredMeanwhile(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	renders := 0
	counting := func(_ context.Context, it store.Item, _ store.PageFacts) ([]byte, error) {
		renders++
		return wiringtest.PageHTML(it.Name), nil
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
