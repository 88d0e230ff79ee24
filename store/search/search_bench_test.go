package search_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"storefront/store/search"
	"storefront/store/seed"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// benchCatalogSize is the catalog the search benchmark runs on.
const benchCatalogSize = 100_000

// BenchmarkSearch100k times catalog queries on a 100,000-item catalog
// (the demo's 1,200 plus generated ones), on SQLite by default and on
// PostgreSQL with DATABASE_URL, each query computed afresh (cold) and
// answered from the search cache (warm):
//
//	go test ./store -run '^$' -bench BenchmarkSearch100k -benchtime 200x
//	DATABASE_URL=postgres://... go test ./store -run '^$' -bench BenchmarkSearch100k -benchtime 200x
func BenchmarkSearch100k(b *testing.B) {
	db := storetest.DB(b)
	rdb := storetest.Redis(b)
	st := wiring.New(rdb, db, wiringtest.Options(), storetest.Logger(b))
	ctx := context.Background()
	if err := st.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := st.SeedDemo(ctx, storetest.AdminPassword); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := insertBenchItems(ctx, db, seed.DemoItemCount+1, benchCatalogSize); err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: inserted %d items (index kept by the database) in %s", storetest.DBKind(), benchCatalogSize-seed.DemoItemCount, time.Since(start).Round(time.Millisecond))
	// Planner statistics and PostgreSQL's visibility map as a running
	// shop has them (autovacuum takes them soon after a bulk insert):
	// without them the planner guesses a handful of matches everywhere.
	analyze := "ANALYZE"
	if storetest.DBKind() == "postgres" {
		analyze = "VACUUM ANALYZE items"
	}
	if _, err := db.ExecContext(ctx, analyze); err != nil {
		b.Fatal(err)
	}
	for id := int64(1); id <= 2000; id += 3 { // a view ranking for the popular sort
		if err := st.Sessions.UpdateToken(ctx, "bench", true, id); err != nil {
			b.Fatal(err)
		}
	}
	cases := []struct {
		name string
		q    search.SearchQuery
	}{
		{"word", search.SearchQuery{Q: "lantern"}},
		{"two_words", search.SearchQuery{Q: "walnut lantern"}},
		{"word_filters", search.SearchQuery{Q: "lantern", Category: "Home", MinCents: 1000, HasMin: true, MaxCents: 9000, HasMax: true, InStock: true}},
		{"word_price_desc", search.SearchQuery{Q: "lantern", Sort: search.SortPriceDesc}},
		{"word_popular", search.SearchQuery{Q: "lantern", Sort: search.SortPopular}},
		{"typo", search.SearchQuery{Q: "lanterm"}},
		{"browse_all", search.SearchQuery{}},
		{"browse_category_price_asc", search.SearchQuery{Category: "Kitchen", Sort: search.SortPriceAsc}},
		{"browse_newest_page_100", search.SearchQuery{Sort: search.SortNewest, Page: 100}},
		{"browse_popular", search.SearchQuery{Sort: search.SortPopular}},
	}
	// cold computes every search (no result cache); warm asks again for a
	// result already cached, as shoppers repeating a query do until the
	// catalog changes.
	opt := wiringtest.Options()
	opt.SearchCacheBytes = -1
	uncached := wiring.New(rdb, db, opt, storetest.Logger(b))
	for _, run := range []struct {
		name  string
		st    *wiring.Services
		prime bool
	}{{"cold", uncached, false}, {"warm", st, true}} {
		for _, c := range cases {
			b.Run(run.name+"/"+c.name, func(b *testing.B) {
				q := c.q
				if q.Page == 0 {
					q.Page = 1
				}
				q.PerPage = 24
				if run.prime {
					if _, err := run.st.Search.Search(ctx, q); err != nil {
						b.Fatal(err)
					}
				}
				var total int
				for b.Loop() {
					res, err := run.st.Search.Search(ctx, q)
					if err != nil {
						b.Fatal(err)
					}
					total = res.Total
				}
				b.ReportMetric(float64(total), "matches")
			})
		}
	}
}

var (
	benchAdjectives = strings.Fields("Classic Compact Deluxe Everyday Heritage Nordic Pro Rustic Studio Urban Vintage Summit Coastal Midnight Evergreen Walnut Copper Linen Granite Harbor")
	benchNouns      = strings.Fields("Lantern Kettle Backpack Notebook Blanket Speaker Trowel Puzzle Jacket Racket Teapot Compass Satchel Tumbler Easel Ottoman Hammock Skillet Journal Planter")
	benchWords      = strings.Fields("durable light handmade recycled waterproof quiet soft bright warm sturdy portable elegant simple modern cosy")
	benchCategories = strings.Fields("Kitchen Outdoors Books Electronics Garden Toys Office Apparel Home Sports")
)

// insertBenchItems adds generated items with ids from..to in batches.
func insertBenchItems(ctx context.Context, db *sql.DB, from, to int) error {
	rng := rand.New(rand.NewPCG(7, 11))
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	const batch = 500
	for start := from; start <= to; start += batch {
		var sb strings.Builder
		var args []any
		sb.WriteString(`INSERT INTO items (id, slug, name, description, category, price_cents, stock, updated_at) VALUES `)
		for id := start; id < start+batch && id <= to; id++ {
			name := fmt.Sprintf("%s %s %s %d", benchAdjectives[rng.IntN(len(benchAdjectives))], benchNouns[rng.IntN(len(benchNouns))], benchWords[rng.IntN(len(benchWords))], id)
			desc := fmt.Sprintf("A %s, %s and %s %s for every day.", benchWords[rng.IntN(len(benchWords))], benchWords[rng.IntN(len(benchWords))],
				benchWords[rng.IntN(len(benchWords))], strings.ToLower(benchNouns[rng.IntN(len(benchNouns))]))
			if len(args) > 0 {
				sb.WriteByte(',')
			}
			n := len(args)
			fmt.Fprintf(&sb, "($%d,$%d,$%d,$%d,$%d,$%d,$%d,$%d)", n+1, n+2, n+3, n+4, n+5, n+6, n+7, n+8)
			args = append(args, id, fmt.Sprintf("bench-%d", id), name, desc, benchCategories[id%len(benchCategories)],
				int64(500+rng.IntN(30000)), int64(rng.IntN(40)), int64(0))
		}
		if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}
