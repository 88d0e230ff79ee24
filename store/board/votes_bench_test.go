package board_test

import (
	"sync/atomic"
	"testing"

	"storefront/wiring/wiringtest"
)

// BenchmarkStoreVote measures the vote script alone (one round trip per
// vote), parallel voters switching between up and down on 100 articles:
//
//	REDIS_URL=redis://127.0.0.1:6379/3 go test -run '^$' -bench StoreVote -benchtime 5s ./store/
func BenchmarkStoreVote(b *testing.B) {
	st := wiringtest.New(b)
	u, err := st.Sessions.CreateUser(b.Context(), "poster", "correct horse battery")
	if err != nil {
		b.Fatal(err)
	}
	const articles = 100
	for range articles {
		post(b, st, u, "bench")
	}
	var voter atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		id := voter.Add(1) + 1000
		for i := 0; pb.Next(); i++ {
			dir := []string{"up", "down"}[i/articles%2]
			if _, _, err := st.Board.Vote(b.Context(), int64(i%articles+1), id, dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "votes/s")
}
