package handlers_test

import (
	"database/sql"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"storefront/store/keys"
)

// The admin removes the demo data: demo items nobody ordered go with
// their variants, pictures, reviews, Redis rows and cached pages; an
// ordered one stays archived; a renamed one is the merchant's and stays.
// Two admins at once, or twice, is the same as once; without the
// confirmation nothing changes.
func TestRemoveDemoData(t *testing.T) {
	a := newApp(t, nil, nil)
	ctx := t.Context()
	db, rdb := a.store.DB(), a.store.Redis()
	count := func(q string, args ...any) (n int64) {
		t.Helper()
		if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	a.setStock(7, 10)
	shopper := a.client()
	shopper.Get("/items/1") // a view, a cached page and a row cache entry
	shopper.Get("/")
	shopper.setQty("7", "1")
	if res := shopper.checkout(nil); res.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d", res.Status)
	}
	keeper := a.client()
	keeper.setQty("2", "1") // a cart that holds a demo item through its removal
	admin := a.client()
	admin.signInAdmin()
	if res := admin.Post("/admin/items/8", itemEdit("9.99")); res.Status != http.StatusSeeOther { // renamed "Harbour Lamp"
		t.Fatalf("rename: %d", res.Status)
	}
	items := count(`SELECT COUNT(*) FROM items`)
	if items < 1000 {
		t.Fatalf("the demo catalog has %d items", items)
	}

	res := admin.Post("/admin/demo/remove", url.Values{})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "confirm") {
		t.Fatalf("without the box: %d", res.Status)
	}
	if count(`SELECT COUNT(*) FROM items`) != items {
		t.Fatal("an unconfirmed removal removed items")
	}
	mustContain(t, admin.MustGet("/admin/demo", http.StatusOK).Body, `data-testid="demo-remove-form"`)

	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i := range statuses {
		c := a.client()
		c.signInAdmin()
		wg.Go(func() { statuses[i] = c.Post("/admin/demo/remove", url.Values{"confirm": {"yes"}}).Status })
	}
	wg.Wait()
	if statuses[0] != http.StatusSeeOther || statuses[1] != http.StatusSeeOther {
		t.Fatalf("two removals at once: %v", statuses)
	}

	if n := count(`SELECT COUNT(*) FROM items`); n != 2 {
		t.Errorf("%d items left, want the ordered one and the renamed one", n)
	}
	var archived sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT archived_at FROM items WHERE id = 7`).Scan(&archived); err != nil || !archived.Valid {
		t.Errorf("the ordered item: archived %v, %v", archived, err)
	}
	for table, q := range map[string]string{
		"variants": `SELECT COUNT(*) FROM item_variants WHERE item_id NOT IN (7, 8)`,
		"pictures": `SELECT COUNT(*) FROM item_images WHERE item_id NOT IN (7, 8)`,
		"images":   `SELECT COUNT(*) FROM images WHERE hash NOT IN (SELECT hash FROM item_images)`,
		"reviews":  `SELECT COUNT(*) FROM reviews WHERE item_id NOT IN (7, 8)`,
		"skus":     `SELECT COUNT(*) FROM skus WHERE item_id NOT IN (7, 8)`,
	} {
		if n := count(q); n != 0 {
			t.Errorf("%d %s of removed items left", n, table)
		}
	}
	for _, k := range []string{keys.RowCache(1), keys.ItemCounts(1)} { // one at a time: a Cluster keeps them apart
		if n, err := rdb.Exists(ctx, k).Result(); err != nil || n != 0 {
			t.Errorf("Redis row %s of item 1: %d %v", k, n, err)
		}
	}
	if _, err := rdb.ZScore(ctx, keys.ViewRanking, "1").Result(); err == nil {
		t.Error("item 1 is still ranked by views")
	}

	shopper.MustGet("/items/1", http.StatusNotFound)
	listing := shopper.MustGet("/items", http.StatusOK).Body
	if ids := testids(listing, "item-card", "data-item-id"); len(ids) != 1 || ids[0] != "8" {
		t.Errorf("the listing shows %v, want only item 8", ids)
	}
	for _, id := range testids(shopper.MustGet("/", http.StatusOK).Body, "item-card", "data-item-id") {
		if id != "8" {
			t.Errorf("the home page still shows item %s", id)
		}
	}
	if ids := testids(shopper.MustGet("/items?q=teapot", http.StatusOK).Body, "item-card", "data-item-id"); len(ids) != 0 {
		t.Errorf("search finds removed items %v", ids)
	}
	// A cart that held a removed item shows it as no longer sold.
	if cart := keeper.Get("/cart"); cart.Status != http.StatusOK || strings.Join(testids(cart.Body, "cart-line", "data-available"), ",") != "false" {
		t.Errorf("a cart holding a removed item: %d, available %v", cart.Status, testids(cart.Body, "cart-line", "data-available"))
	}
	if got := textOf(keeper.Get("/").Body, "cart-count"); got != "0" {
		t.Errorf("the header counts %q items in a cart of removed ones", got)
	}
	// The order keeps its line.
	if n := count(`SELECT COUNT(*) FROM order_lines WHERE item_id = 7`); n != 1 {
		t.Errorf("the order's lines: %d", n)
	}

	// Again: nothing left to do.
	res = admin.Post("/admin/demo/remove", url.Values{"confirm": {"yes"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("again: %d", res.Status)
	}
	if flash := textOf(admin.Get("/admin").Body, "flash"); !strings.Contains(flash, "0 items deleted") {
		t.Errorf("the second removal says %q", flash)
	}
}
