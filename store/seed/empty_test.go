package seed_test

import (
	"testing"

	"storefront/store/board"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// SEED_DEMO=false: the shop starts with the admin account alone (and the
// row guests' orders name), no demo items, articles or users, even with
// every demo option on.
func TestNoDemoStartsEmpty(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) {
		o.NoDemo, o.SeedArticles, o.SeedImages, o.SeedVariants = true, true, true, true
	})
	ctx := t.Context()
	for table, want := range map[string]int{"items": 0, "users": 2, "item_variants": 0} {
		var n int
		if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}
	top, err := st.Board.Articles(ctx, board.ArticleQuery{Sort: board.SortTop, Page: 1, PerPage: 5})
	if err != nil || len(top.Articles) != 0 {
		t.Errorf("articles %d, %v", len(top.Articles), err)
	}
	if _, err := st.Sessions.Authenticate(ctx, "admin", storetest.AdminPassword); err != nil {
		t.Errorf("the admin cannot sign in: %v", err)
	}
}
