package pagecache_test

import (
	"context"
	"testing"

	"storefront/store/keys"
	"storefront/store/pagecache"
	"storefront/wiring/wiringtest"
)

// A purge that lands while a page is being rendered from older data voids
// that page, although it is stored after the purge.
func TestPurgeDuringRenderVoidsPage(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	st.Redis().ZIncrBy(ctx, keys.ViewRanking, -1, "5")
	purging := func(ctx context.Context, d pagecache.PageData) ([]byte, error) {
		if _, err := st.Pages.PurgeItemPages(ctx, d.Item.ID); err != nil { // an edit commits meanwhile
			return nil, err
		}
		return wiringtest.PageHTML(d.Item.Name), nil
	}
	// A miss reads the purge generations, then renders and stores.
	if v, err := st.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 5, Render: purging}); err != nil || v.Result != pagecache.PageMiss {
		t.Fatalf("first request: %v %v", v.Result, err)
	}
	v, err := st.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 5, Render: wiringtest.PageRender})
	if err != nil {
		t.Fatal(err)
	}
	if v.Result != pagecache.PageMiss {
		t.Fatalf("a page rendered before the purge was served (%s)", v.Result)
	}
	if v, _ = st.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 5, Render: wiringtest.PageRender}); v.Result != pagecache.PageHit {
		t.Fatalf("the new page is not served: %s", v.Result)
	}
}

// A purge of every page that lands while a page is being rendered voids
// that page too, although it is stored after the purge: pages older than a
// purge-all are never served, from Redis or from the in-process copy.
func TestPurgeAllDuringRenderVoidsPage(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	st.Redis().ZIncrBy(ctx, keys.ViewRanking, -1, "5")
	purging := func(ctx context.Context, d pagecache.PageData) ([]byte, error) {
		if _, err := st.Pages.PurgeAllPages(ctx); err != nil { // an admin purges everything meanwhile
			return nil, err
		}
		return wiringtest.PageHTML("before the purge"), nil
	}
	if v, err := st.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 5, Render: purging}); err != nil || v.Result != pagecache.PageMiss {
		t.Fatalf("first request: %v %v", v.Result, err)
	}
	for i := range 3 {
		v, err := st.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 5, Render: wiringtest.PageRender})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && v.Result != pagecache.PageMiss {
			t.Fatalf("a page rendered before the purge of every page was served (%s)", v.Result)
		}
		if i > 0 && v.Result != pagecache.PageHit {
			t.Fatalf("request %d: the page rendered after the purge is not served: %s", i, v.Result)
		}
	}
	// A purge of every page is complete when it returns: the next request
	// on this instance renders afresh, from neither Redis nor a copy held
	// in process.
	for i := range 5 {
		if _, err := st.Pages.PurgeAllPages(ctx); err != nil {
			t.Fatal(err)
		}
		for j, want := range []string{pagecache.PageMiss, pagecache.PageHit} {
			v, err := st.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 5, Render: wiringtest.PageRender})
			if err != nil {
				t.Fatal(err)
			}
			if v.Result != want {
				t.Fatalf("purge %d, request %d after it: %s, want %s", i, j, v.Result, want)
			}
		}
	}
}
