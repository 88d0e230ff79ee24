package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/analytics"
	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func TestRescaleTrimsAndHalves(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.ViewedKeep = 3 })
	ctx := t.Context()
	rdb := st.Redis()
	for i := 1; i <= 6; i++ {
		rdb.ZAdd(ctx, keys.ViewRanking, redis.Z{Score: float64(-10 * i), Member: fmt.Sprint(i)})
	}
	if err := st.Analytics.Rescale(ctx); err != nil {
		t.Fatal(err)
	}
	top, err := st.Analytics.PopularItems(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []analytics.ItemViews{{ItemID: 6, Views: 30}, {ItemID: 5, Views: 25}, {ItemID: 4, Views: 20}}
	if fmt.Sprint(top) != fmt.Sprint(want) {
		t.Fatalf("after rescale %v, want %v", top, want)
	}
}

func TestRescaleWorkerRunsOnceAcrossInstances(t *testing.T) {
	opts := func(o *wiring.Options) { o.RescaleInterval = 20 * time.Millisecond }
	st := wiringtest.New(t, opts)
	o := st.Options()
	other := wiring.New(st.Redis(), st.DB(), o, storetest.Logger(t))
	t.Cleanup(other.Close)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	n := 0
	for _, s := range []*wiring.Services{st, other} {
		for _, w := range s.Workers() {
			if w.Name() == keys.LeaseRescale {
				n++
				go func() { w.Run(ctx); done <- struct{}{} }()
			}
		}
	}
	rdb := st.Redis()
	rdb.ZAdd(ctx, keys.ViewRanking, redis.Z{Score: -1 << 20, Member: "1"})
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if s := storetest.Must(rdb.ZScore(ctx, keys.ViewRanking, "1").Result())(t); s > -1<<17 {
			break // halved at least three times
		}
		if time.Now().After(deadline) {
			t.Fatal("the rescale worker never ran")
		}
	}
	holder, err := st.LeaseHolder(ctx, keys.LeaseRescale)
	if err != nil || (holder != st.Instance() && holder != other.Instance()) {
		t.Fatalf("lease holder %q %v", holder, err)
	}
	cancel()
	for range n {
		<-done
	}
}

// TestViewToBuy: the share of views that bought, shown only from
// analytics.ViewToBuyMinViews views on and when it is at least 1%: "0% of
// viewers bought it", or 100% of 3 views, says nothing to a shopper.
func TestViewToBuy(t *testing.T) {
	for _, tc := range []struct {
		buyers, views int64
		want          int64
		shown         bool
	}{
		{1, 3, 0, false},
		{5, 19, 0, false},
		{0, 0, 0, false},
		{0, 500, 0, false},
		{1, 300, 0, false}, // 0.3% rounds to 0
		{1, 20, 5, true},
		{7, 21, 33, true},
		{1, 150, 1, true},
		{50, 20, 100, true}, // more buyers than views counted
	} {
		got, ok := (analytics.AlsoBought{Buyers: tc.buyers}).ViewToBuy(tc.views)
		if ok != tc.shown || (ok && got != tc.want) {
			t.Errorf("%d buyers over %d views: %d%% shown %v, want %d%% shown %v", tc.buyers, tc.views, got, ok, tc.want, tc.shown)
		}
	}
	if analytics.ViewToBuyMinViews != 20 {
		t.Errorf("shown from %d views, want 20", analytics.ViewToBuyMinViews)
	}
}
