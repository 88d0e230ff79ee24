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
