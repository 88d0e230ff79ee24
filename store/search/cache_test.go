package search_test

import (
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"testing"

	"storefront/store/catalog"
	"storefront/store/search"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// searchInstances is two stores (two app instances) on one database and
// one Redis, migrated and seeded, a third one that caches no search
// results, and the database handle.
func searchInstances(t *testing.T) (a, b, uncached *wiring.Services, db *sql.DB) {
	t.Helper()
	db = storetest.DB(t)
	rdb := storetest.Redis(t)
	a = wiring.New(rdb, db, wiringtest.Options(), storetest.Logger(t))
	b = wiring.New(rdb, db, wiringtest.Options(), storetest.Logger(t))
	opt := wiringtest.Options()
	opt.SearchCacheBytes = -1
	uncached = wiring.New(rdb, db, opt, storetest.Logger(t))
	t.Cleanup(uncached.Close)
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	if err := a.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SeedDemo(t.Context(), storetest.AdminPassword); err != nil {
		t.Fatal(err)
	}
	return a, b, uncached, db
}

// eventuallySearch polls st until the search's result satisfies ok. A
// cached result must give way at once, so the poll is only a guard
// against a slow machine, never a wait the test relies on.
func eventuallySearch(t *testing.T, st *wiring.Services, q search.SearchQuery, ok func(search.SearchResult) bool, msg string) {
	t.Helper()
	storetest.Eventually(t, func() bool { return ok(find(t, st, q)) }, msg)
}

// TestSearchCacheFollowsCatalogChanges: results cached on one instance
// give way to an admin edit, a price and stock change, an archive, a
// restore and a new item made on the other instance, and to a write
// behind the store's back.
func TestSearchCacheFollowsCatalogChanges(t *testing.T) {
	a, b, _, db := searchInstances(t)
	ctx := t.Context()
	byPrice := search.SearchQuery{Category: "Books", Sort: search.SortPriceAsc, PerPage: 5}
	inStock := search.SearchQuery{Category: "Books", InStock: true}
	warm := func() (search.SearchResult, search.SearchResult) {
		for range 2 { // the second answer comes from the cache
			find(t, b, byPrice)
			find(t, b, inStock)
			find(t, b, search.SearchQuery{Q: "zephyrine"})
		}
		return find(t, b, byPrice), find(t, b, inStock)
	}
	cheapest, stocked := warm()
	if len(cheapest.Items) == 0 || stocked.Total == 0 {
		t.Fatalf("no books: %+v %+v", cheapest, stocked)
	}

	// A rename on instance a is found on instance b.
	target := cheapest.Items[len(cheapest.Items)-1]
	edit := catalog.ItemEdit{Name: "Zephyrine Atlas", PriceCents: target.PriceCents, Stock: target.Stock, Category: "Books", Description: target.Description}
	if _, err := a.Catalog.UpdateItem(ctx, target.ID, edit); err != nil {
		t.Fatal(err)
	}
	eventuallySearch(t, b, search.SearchQuery{Q: "zephyrine"}, func(r search.SearchResult) bool {
		return r.Total == 1 && r.Items[0].ID == target.ID && r.Items[0].Name == "Zephyrine Atlas"
	}, "the renamed item is not found on the other instance")

	// A price cut moves it to the front of the price sort there.
	cheapest, _ = warm()
	edit.PriceCents = 1
	if _, err := a.Catalog.UpdateItem(ctx, target.ID, edit); err != nil {
		t.Fatal(err)
	}
	eventuallySearch(t, b, byPrice, func(r search.SearchResult) bool {
		return len(r.Items) > 0 && r.Items[0].ID == target.ID && r.Items[0].PriceCents == 1
	}, "the price sort on the other instance does not follow the price cut")

	// Out of stock: it leaves the in-stock filter and count.
	_, stocked = warm()
	edit.Stock = 0
	if _, err := a.Catalog.UpdateItem(ctx, target.ID, edit); err != nil {
		t.Fatal(err)
	}
	wantInStock := stocked.Total
	if target.Stock > 0 {
		wantInStock--
	}
	eventuallySearch(t, b, inStock, func(r search.SearchResult) bool {
		return r.Total == wantInStock && r.InStock == wantInStock && !slices.Contains(ids(r.Items), target.ID)
	}, "the in-stock filter on the other instance still counts the sold-out item")

	// Archived: gone from search and facets; restored: back.
	warm()
	if _, err := a.Catalog.SetItemArchived(ctx, target.ID, true); err != nil {
		t.Fatal(err)
	}
	eventuallySearch(t, b, search.SearchQuery{Q: "zephyrine"}, func(r search.SearchResult) bool {
		return r.Total == 0 && len(r.Categories) == 0
	}, "the archived item is still found on the other instance")
	warm()
	if _, err := a.Catalog.SetItemArchived(ctx, target.ID, false); err != nil {
		t.Fatal(err)
	}
	eventuallySearch(t, b, search.SearchQuery{Q: "zephyrine"}, func(r search.SearchResult) bool { return r.Total == 1 },
		"the restored item is not found on the other instance")

	// A new item is found at once.
	warm()
	created, err := a.Catalog.CreateItem(ctx, catalog.NewItem{Name: "Zephyrine Primer", PriceCents: 2, Stock: 4, Category: "Books", Description: "New."})
	if err != nil {
		t.Fatal(err)
	}
	eventuallySearch(t, b, search.SearchQuery{Q: "zephyrine"}, func(r search.SearchResult) bool {
		return r.Total == 2 && slices.Contains(ids(r.Items), created.ID)
	}, "the new item is not found on the other instance")

	// A stock change written straight to the database (as a checkout's
	// or a cancellation's transaction does) is seen too, before any purge:
	// the database keeps the version.
	q := search.SearchQuery{Q: "zephyrine", InStock: true}
	if r := find(t, b, q); r.Total != 1 || r.Items[0].ID != created.ID { // the other one sold out above
		t.Fatalf("in stock before: %d %v", r.Total, ids(r.Items))
	}
	if _, err := db.ExecContext(ctx, `UPDATE items SET stock = 0 WHERE id = $1`, created.ID); err != nil {
		t.Fatal(err)
	}
	eventuallySearch(t, b, q, func(r search.SearchResult) bool {
		return r.Total == 0 && r.InStock == 0
	}, "a stock change in the database is not seen by the in-stock filter on the other instance")
}

// TestSearchCacheSeesWritesBehindTheStore: a row changed by another
// writer straight in the database (no purge, no Redis) is seen by cached
// searches, since the database itself bumps the version.
func TestSearchCacheSeesWritesBehindTheStore(t *testing.T) {
	st, db := searchStore(t)
	ctx := t.Context()
	q := search.SearchQuery{Category: "Kitchen", InStock: true}
	before := find(t, st, q)
	find(t, st, q) // cached now
	if _, err := db.ExecContext(ctx, `UPDATE items SET stock = 0 WHERE id = $1`, before.Items[0].ID); err != nil {
		t.Fatal(err)
	}
	after := find(t, st, q)
	if after.Total != before.Total-1 || slices.Contains(ids(after.Items), before.Items[0].ID) {
		t.Errorf("after selling out item %d behind the store: total %d (was %d), page %v",
			before.Items[0].ID, after.Total, before.Total, ids(after.Items))
	}
}

// TestSearchConcurrent runs searches on two instances while an admin
// edits items, under the race detector; once the edits stop, both
// instances agree with a store that caches nothing.
func TestSearchConcurrent(t *testing.T) {
	a, b, uncached, _ := searchInstances(t)
	ctx := t.Context()
	queries := []search.SearchQuery{
		{Q: "slate"}, {Q: "slaet"}, {Category: "Kitchen", Sort: search.SortPriceDesc},
		{Q: "slate", InStock: true, Sort: search.SortNewest}, {Sort: search.SortPopular}, {Page: 3},
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		st := []*wiring.Services{a, b}[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				q := queries[(i+w)%len(queries)]
				if q.Page == 0 {
					q.Page = 1
				}
				q.PerPage = 10
				if _, err := st.Search.Search(ctx, q); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 20 {
			id := int64(1 + i%10)
			it, err := a.Catalog.Item(ctx, id)
			if err != nil {
				errs <- err
				return
			}
			_, err = a.Catalog.UpdateItem(ctx, id, catalog.ItemEdit{Name: fmt.Sprintf("Slate Thing %d", i), PriceCents: it.PriceCents + 1,
				Stock: int64(i % 3), Category: it.Category, Description: it.Description})
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, q := range queries {
		q.Page, q.PerPage = max(q.Page, 1), 10
		want := find(t, uncached, q)
		for i, st := range []*wiring.Services{a, b} {
			got := find(t, st, q)
			if got.Total != want.Total || !slices.Equal(ids(got.Items), ids(want.Items)) || got.InStock != want.InStock ||
				!slices.Equal(got.Categories, want.Categories) || got.DidYouMean != want.DidYouMean {
				t.Errorf("%+v: instance %d: %d %v, uncached: %d %v", q, i, got.Total, ids(got.Items), want.Total, ids(want.Items))
			}
		}
	}
}

// TestSearchCacheSurvivesSalesThatLeaveStock: a sale that leaves an item
// in stock changes nothing a search finds, orders or counts (the rows
// shown are read fresh), so the catalog version stays and cached results
// keep serving; the sale that sells it out moves the version, and the
// in-stock filter drops the item on the other instance.
func TestSearchCacheSurvivesSalesThatLeaveStock(t *testing.T) {
	a, b, _, _ := searchInstances(t)
	ctx := t.Context()
	wiringtest.SetStock(t, a, 7, 3)
	it, err := a.Catalog.Item(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	q := search.SearchQuery{Category: it.Category, InStock: true, Sort: search.SortNewest, PerPage: 2000}
	find(t, b, q)
	before, err := b.Search.CacheVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := wiringtest.Shopper(t, a, "steady")
	wiringtest.SetLine(t, a, owner, 7, 1)
	if _, err := a.Orders.Checkout(ctx, wiringtest.Buy(owner, -1)); err != nil {
		t.Fatal(err)
	}
	if after, _ := b.Search.CacheVersion(ctx); after != before {
		t.Errorf("a sale that left stock moved the search version from %s to %s", before, after)
	}
	r := find(t, b, q)
	if i := slices.Index(ids(r.Items), 7); i < 0 || r.Items[i].Stock != 2 {
		t.Fatalf("item 7 after selling one of 3: %v", r.Items)
	}

	wiringtest.SetLine(t, a, owner, 7, 2)
	if _, err := a.Orders.Checkout(ctx, wiringtest.Buy(owner, -1)); err != nil {
		t.Fatal(err)
	}
	eventuallySearch(t, b, q, func(r search.SearchResult) bool { return !slices.Contains(ids(r.Items), 7) },
		"the item sold out on one instance is still in the other's in-stock results")
}
