package pagecache_test

import (
	"testing"

	"storefront/store/keys"
	"storefront/store/pagecache"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// A page carries the build that rendered it in its generation: an
// instance of another build (a deploy that changed the templates) sharing
// the Redis misses it and renders its own, and an instance of the same
// build hits it.
func TestPageOfAnotherBuildIsAMiss(t *testing.T) {
	old := wiringtest.New(t, func(o *wiring.Options) { o.PageBuild = "build-one" })
	ctx := t.Context()
	old.Redis().ZIncrBy(ctx, keys.ViewRanking, -1, "5")
	serve := func(st *wiring.Services) string {
		t.Helper()
		v, err := st.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 5, Render: wiringtest.PageRender})
		if err != nil {
			t.Fatal(err)
		}
		return v.Result
	}
	if got := serve(old); got != pagecache.PageMiss {
		t.Fatalf("first request: %s", got)
	}
	instance := func(build string) *wiring.Services {
		opt := wiringtest.Options()
		opt.PageBuild = build
		st := wiring.New(old.Redis(), old.DB(), opt, storetest.Logger(t))
		t.Cleanup(st.Close)
		return st
	}
	if got := serve(instance("build-one")); got != pagecache.PageHit {
		t.Errorf("the same build on another instance: %s, want a hit", got)
	}
	deployed := instance("build-two")
	if got := serve(deployed); got != pagecache.PageMiss {
		t.Errorf("another build: %s, want a miss", got)
	}
	if got := serve(deployed); got != pagecache.PageHit {
		t.Errorf("the new build's own page: %s, want a hit", got)
	}
}
