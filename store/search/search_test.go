package search_test

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/store/catalog"
	"storefront/store/search"
	"storefront/store/seed"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// searchStore is a seeded store and its database handle, so a test can
// change rows behind the store's back as another writer would.
func searchStore(t *testing.T) (*wiring.Services, *sql.DB) {
	t.Helper()
	db := storetest.DB(t)
	st := wiring.New(storetest.Redis(t), db, wiringtest.Options(), storetest.Logger(t))
	if err := st.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SeedDemo(t.Context(), storetest.AdminPassword); err != nil {
		t.Fatal(err)
	}
	return st, db
}

func find(t *testing.T, st *wiring.Services, q search.SearchQuery) search.SearchResult {
	t.Helper()
	if q.Page == 0 {
		q.Page = 1
	}
	if q.PerPage == 0 {
		q.PerPage = 24
	}
	res, err := st.Search.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return res
}

func ids(items []catalog.Item) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func TestSearchRanksNamesAboveDescriptions(t *testing.T) {
	st, _ := searchStore(t)
	ctx := t.Context()
	// Item 7 mentions the word only in its description, item 9 in its name.
	if _, err := st.Catalog.UpdateItem(ctx, 7, catalog.ItemEdit{Name: "Plain Thing", PriceCents: 100, Stock: 1, Description: "Comes with a zephyrine strap."}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Catalog.UpdateItem(ctx, 9, catalog.ItemEdit{Name: "Zephyrine Lantern", PriceCents: 100, Stock: 1, Description: "A lamp."}); err != nil {
		t.Fatal(err)
	}
	res := find(t, st, search.SearchQuery{Q: "zephyrine"})
	if got := ids(res.Items); !slices.Equal(got, []int64{9, 7}) || res.Total != 2 {
		t.Fatalf("zephyrine: %v (total %d), want [9 7]", got, res.Total)
	}
	// The old name is gone from the index at once.
	old, err := st.Catalog.Item(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Catalog.UpdateItem(ctx, 1, catalog.ItemEdit{Name: "Quokka Mug", PriceCents: old.PriceCents, Stock: old.Stock, Description: "A mug."}); err != nil {
		t.Fatal(err)
	}
	if res := find(t, st, search.SearchQuery{Q: "quokka"}); !slices.Equal(ids(res.Items), []int64{1}) {
		t.Errorf("quokka after the edit: %v", ids(res.Items))
	}
	if res := find(t, st, search.SearchQuery{Q: old.Name}); slices.Contains(ids(res.Items), 1) {
		t.Errorf("the old name %q still finds item 1", old.Name)
	}
}

// TestSearchIndexFollowsTransactions: rows written by any writer (an
// insert, an edit rolled back, a delete) change the index in the same
// transaction, because the database keeps it, not the application.
func TestSearchIndexFollowsTransactions(t *testing.T) {
	st, db := searchStore(t)
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, `INSERT INTO items (id, slug, name, description, category, price_cents, stock, updated_at)
		VALUES (5001, 'wombat-kettle', 'Wombat Kettle', 'Boils water.', 'Kitchen', 2599, 3, 0)`); err != nil {
		t.Fatal(err)
	}
	if res := find(t, st, search.SearchQuery{Q: "wombat"}); !slices.Equal(ids(res.Items), []int64{5001}) {
		t.Fatalf("inserted row: %v", ids(res.Items))
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE items SET name = 'Platypus Kettle' WHERE id = 5001`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if res := find(t, st, search.SearchQuery{Q: "platypus"}); res.Total != 0 {
		t.Errorf("a rolled-back edit is searchable: %v", ids(res.Items))
	}
	if res := find(t, st, search.SearchQuery{Q: "wombat"}); res.Total != 1 {
		t.Errorf("a rolled-back edit removed the row from the index: %d", res.Total)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM items WHERE id = 5001`); err != nil {
		t.Fatal(err)
	}
	if res := find(t, st, search.SearchQuery{Q: "wombat"}); res.Total != 0 {
		t.Errorf("a deleted row is still found: %v", ids(res.Items))
	}
}

func TestSearchToleratesOneTypo(t *testing.T) {
	st, _ := searchStore(t)
	for _, typo := range []string{"skilet", "skillte", "skiillet", "skullet"} {
		res := find(t, st, search.SearchQuery{Q: typo})
		if res.DidYouMean != "skillet" || res.Total == 0 {
			t.Errorf("%q: suggestion %q, %d matches; want skillet", typo, res.DidYouMean, res.Total)
		}
		for _, it := range res.Items {
			if !strings.Contains(it.Name, "Skillet") {
				t.Errorf("%q found %q", typo, it.Name)
			}
		}
	}
	// Two typos, or a short word, are not guessed at.
	for _, q := range []string{"skiltte", "tnet", "qqqqqqq"} {
		if res := find(t, st, search.SearchQuery{Q: q}); res.Total != 0 || res.DidYouMean != "" {
			t.Errorf("%q: %d matches, suggestion %q", q, res.Total, res.DidYouMean)
		}
	}
	// A correct word with a typo'd one: only the typo is corrected.
	var adjective string
	for _, it := range seed.DemoItems(time.Now()) {
		if strings.HasSuffix(it.Name, "Skillet") {
			adjective = strings.ToLower(strings.Fields(it.Name)[0])
			break
		}
	}
	res := find(t, st, search.SearchQuery{Q: adjective + " skilet"})
	if res.DidYouMean != adjective+" skillet" || res.Total == 0 {
		t.Errorf("%s skilet: %q, %d", adjective, res.DidYouMean, res.Total)
	}
	// Known words that match nothing together are not "corrected".
	if res := find(t, st, search.SearchQuery{Q: "skillet tent"}); res.Total != 0 || res.DidYouMean != "" {
		t.Errorf("skillet tent: %d, %q", res.Total, res.DidYouMean)
	}
}

// TestSearchFiltersAndFacets checks totals and facet counts against the
// demo catalog computed in Go.
func TestSearchFiltersAndFacets(t *testing.T) {
	st, _ := searchStore(t)
	demo := seed.DemoItems(time.Now())
	matches := func(it catalog.Item, word, cat string, lo, hi int64, inStock bool) bool {
		text := strings.ToLower(it.Name + " " + it.Category + " " + it.Description)
		if word != "" && !slices.ContainsFunc(strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '.' }),
			func(w string) bool { return strings.HasPrefix(w, word) }) {
			return false
		}
		return (cat == "" || it.Category == cat) && it.PriceCents >= lo && it.PriceCents <= hi && (!inStock || it.Stock > 0)
	}
	count := func(word, cat string, lo, hi int64, inStock bool) int {
		n := 0
		for _, it := range demo {
			if matches(it, word, cat, lo, hi, inStock) {
				n++
			}
		}
		return n
	}
	cases := []search.SearchQuery{
		{Category: "Kitchen"},
		{Category: "Kitchen", MinCents: 2000, HasMin: true, MaxCents: 8000, HasMax: true, InStock: true},
		{Q: "slate", InStock: true},
		{Q: "slate", Category: "Outdoors", MaxCents: 10000, HasMax: true},
		{MinCents: 15000, HasMin: true},
	}
	for _, q := range cases {
		lo, hi := int64(0), int64(1<<62)
		if q.HasMin {
			lo = q.MinCents
		}
		if q.HasMax {
			hi = q.MaxCents
		}
		res := find(t, st, q)
		if want := count(q.Q, q.Category, lo, hi, q.InStock); res.Total != want || want == 0 {
			t.Errorf("%+v: total %d, want %d (> 0)", q, res.Total, want)
		}
		for _, it := range res.Items {
			if !matches(it, q.Q, q.Category, lo, hi, q.InStock) {
				t.Errorf("%+v: item %d does not match", q, it.ID)
			}
		}
		for _, c := range res.Categories {
			if want := count(q.Q, c.Name, lo, hi, q.InStock); c.Count != want {
				t.Errorf("%+v: facet %s = %d, want %d", q, c.Name, c.Count, want)
			}
		}
		if want := count(q.Q, q.Category, lo, hi, true); res.InStock != want {
			t.Errorf("%+v: in-stock facet %d, want %d", q, res.InStock, want)
		}
	}
}

func TestSearchSortsAndPages(t *testing.T) {
	st, _ := searchStore(t)
	ctx := t.Context()
	// Views: item 30 most, then 20, then 10.
	for id, views := range map[int64]int{10: 1, 20: 2, 30: 3} {
		for range views {
			if err := st.Sessions.UpdateToken(ctx, "t-search", true, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, sort := range search.CatalogSorts {
		for _, q := range []search.SearchQuery{{Category: "Books"}, {Q: "slate"}, {Q: "slate", InStock: true}} {
			q.Sort = sort
			var all []catalog.Item
			first := find(t, st, q)
			for page := 1; ; page++ {
				q.Page, q.PerPage = page, 7
				res := find(t, st, q)
				if len(res.Items) == 0 {
					break
				}
				all = append(all, res.Items...)
			}
			if len(all) != first.Total {
				t.Errorf("%s %+v: pages hold %d items, total %d", sort, q, len(all), first.Total)
			}
			seen := map[int64]bool{}
			for i, it := range all {
				if seen[it.ID] {
					t.Errorf("%s %+v: item %d twice", sort, q, it.ID)
				}
				seen[it.ID] = true
				if i == 0 {
					continue
				}
				prev := all[i-1]
				switch sort {
				case search.SortPriceAsc:
					if prev.PriceCents > it.PriceCents {
						t.Errorf("price_asc: %d before %d", prev.PriceCents, it.PriceCents)
					}
				case search.SortPriceDesc:
					if prev.PriceCents < it.PriceCents {
						t.Errorf("price_desc: %d before %d", prev.PriceCents, it.PriceCents)
					}
				case search.SortNewest:
					if prev.ID < it.ID {
						t.Errorf("newest: %d before %d", prev.ID, it.ID)
					}
				}
			}
		}
	}
	res := find(t, st, search.SearchQuery{Sort: search.SortPopular, PerPage: 5})
	if got := ids(res.Items); !slices.Equal(got[:3], []int64{30, 20, 10}) || got[3] != 1 {
		t.Errorf("popular: %v, want 30 20 10 then catalog order", got)
	}
	res = find(t, st, search.SearchQuery{Sort: search.SortPopular, Category: "Kitchen", PerPage: 3})
	if got := ids(res.Items); !slices.Equal(got, []int64{1, 11, 21}) {
		t.Errorf("popular kitchen (nothing viewed there): %v", got)
	}
}

func TestSearchCategoryExists(t *testing.T) {
	st, _ := searchStore(t)
	for name, want := range map[string]bool{"Books": true, "books": false, "Nope": false, "": false} {
		got, err := st.Search.CategoryExists(context.Background(), name)
		if err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", name, got, err, want)
		}
	}
}

// TestSearchLeavesArchivedItemsOut: an archived item is not found, not
// counted in facets, and is found again once restored.
func TestSearchLeavesArchivedItemsOut(t *testing.T) {
	st, _ := searchStore(t)
	ctx := t.Context()
	if _, err := st.Catalog.UpdateItem(ctx, 15, catalog.ItemEdit{Name: "Xylophone Deluxe", PriceCents: 100, Stock: 3, Description: "Loud."}); err != nil {
		t.Fatal(err)
	}
	if res := find(t, st, search.SearchQuery{Q: "xylophone"}); res.Total != 1 {
		t.Fatalf("before archiving: %d", res.Total)
	}
	if _, err := st.Catalog.SetItemArchived(ctx, 15, true); err != nil {
		t.Fatal(err)
	}
	if res := find(t, st, search.SearchQuery{Q: "xylophone"}); res.Total != 0 || len(res.Categories) != 0 {
		t.Errorf("archived item found: %d %v", res.Total, res.Categories)
	}
	if _, err := st.Catalog.SetItemArchived(ctx, 15, false); err != nil {
		t.Fatal(err)
	}
	if res := find(t, st, search.SearchQuery{Q: "xylophone"}); res.Total != 1 {
		t.Errorf("restored item not found: %d", res.Total)
	}
}
