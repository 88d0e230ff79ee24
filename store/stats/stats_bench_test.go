package stats_test

import (
	"fmt"
	"testing"

	"storefront/store/keys"
	"storefront/wiring/wiringtest"
)

// BenchmarkScanKeyspace scans a keyspace of 100,000 keys, 2,000 of them
// cached pages and 5,000 carts: the stats worker's once-a-minute count.
func BenchmarkScanKeyspace(b *testing.B) {
	st := wiringtest.New(b)
	ctx := b.Context()
	rdb := st.Redis()
	pipe := rdb.Pipeline()
	for i := range 100_000 {
		switch {
		case i < 2000:
			pipe.Set(ctx, keys.Page(fmt.Sprintf("%064x", i)), "page", 0)
		case i < 7000:
			pipe.HSet(ctx, keys.GuestCart(fmt.Sprintf("tok%d", i)), "1", 1)
		default:
			pipe.Set(ctx, keys.SessionViewed(fmt.Sprintf("tok%d", i)), "x", 0)
		}
		if i%1000 == 999 {
			if _, err := pipe.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		ks, err := st.Stats.ScanKeyspace(ctx)
		if err != nil || ks.Pages != 2000 || ks.Carts != 5000 {
			b.Fatalf("%+v %v", ks, err)
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "keys/s")
}

// BenchmarkSampleStats takes one sample: two round trips.
func BenchmarkSampleStats(b *testing.B) {
	st := wiringtest.New(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Stats.SampleStats(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
