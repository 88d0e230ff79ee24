package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/store/keys"
	"storefront/store/pagecache/pagebody"
)

// storedPage is the HTML the page cache holds for path.
func (a *app) storedPage(t *testing.T, path string) string {
	t.Helper()
	raw, err := a.store.Redis().Get(t.Context(), keys.Page(pageHash(t, path))).Bytes()
	if err != nil {
		t.Fatalf("no cached page for %s: %v", path, err)
	}
	p, err := pagebody.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	html, err := p.HTML(nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw) + string(html)
}

// buy places an order of one unit of each item as a new guest.
func (a *app) buy(items ...int64) {
	a.t.Helper()
	c := a.client()
	for _, id := range items {
		c.setQty(fmt.Sprint(id), "1")
	}
	if res := c.checkout(nil); res.Status != http.StatusSeeOther {
		a.t.Fatalf("checkout of %v: %d: %.300s", items, res.Status, res.Body)
	}
}

// Orders feed the item page's "also bought" list (most bought together
// first) and its view-to-buy percentage, both kept in Redis; the page that
// shows them is the shared cached page and holds nothing of the visitor.
func TestAlsoBoughtAndViewToBuy(t *testing.T) {
	a := cacheApp(t, 10, time.Minute)
	ctx := t.Context()
	rdb := a.store.Redis()
	for _, id := range []int64{7, 8, 9, 10} {
		a.setStock(id, 50)
	}
	viewer := a.client()
	for range 8 {
		viewer.Get("/items/7")
	}
	// Hits count their views behind: flush them so the render sees all 8.
	if err := a.store.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	a.buy(7, 8, 9)
	a.buy(7, 8)
	a.buy(9, 10) // not with 7

	if got := rdb.ZRevRangeWithScores(ctx, keys.AlsoBought(7), 0, -1).Val(); len(got) != 2 || got[0].Member != "8" || got[0].Score != 2 || got[1].Member != "9" || got[1].Score != 1 {
		t.Errorf("item 7's co-purchases %v, want 8 x2 and 9 x1", got)
	}
	if got := rdb.HGet(ctx, keys.ItemCounts(7), "buyers").Val(); got != "2" {
		t.Errorf("item 7's buyers %q, want 2", got)
	}

	alice := a.client()
	alice.Register("also_alice")
	alice.setQty("10", "1") // something per-user to leak, if the page held it
	first := alice.Get("/items/7")
	page := alice.Get("/items/7") // the purged page, rendered again and stored
	if first.Header.Get("X-Cache") == "HIT" {
		t.Fatal("the page was not purged by the orders")
	}
	xcache(t, page, "HIT")
	if got := listItems(t, page.Body, "also-bought"); strings.Join(got, ",") != "8,9" {
		t.Errorf("also bought %v, want 8,9", got)
	}
	// 2 buyers over 8 or 9 views: too few viewers to say what share bought.
	if got := testids(page.Body, "view-to-buy", "data-percent"); len(got) != 0 || strings.Contains(page.Body, "of viewers bought it") {
		t.Errorf("view-to-buy %v shown under 20 viewers", got)
	}
	for range 14 {
		viewer.Get("/items/7")
	}
	if err := a.store.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	a.buy(7) // a third buyer, which purges the page again
	alice.Get("/items/7")
	page = alice.Get("/items/7")
	xcache(t, page, "HIT")
	// 3 buyers over the views the page shows (counted when it was
	// rendered: the viewer's 22, and some of alice's).
	var views int64
	if _, err := fmt.Sscanf(textOf(page.Body, "view-count"), "%d", &views); err != nil || views < 22 || views > 24 {
		t.Fatalf("view count %q", textOf(page.Body, "view-count"))
	}
	if got, want := testids(page.Body, "view-to-buy", "data-percent"), fmt.Sprint((300+views/2)/views); len(got) != 1 || got[0] != want {
		t.Errorf("view-to-buy %v, want %s", got, want)
	}
	stored := a.storedPage(t, "/items/7")
	for _, private := range []string{"also_alice", alice.Cookie("sid")} {
		if strings.Contains(stored, private) {
			t.Errorf("the cached page holds %q", private)
		}
	}
	if !strings.Contains(stored, `data-testid="also-bought"`) || !strings.Contains(stored, `data-testid="view-to-buy"`) {
		t.Error("the cached page lacks the also-bought box")
	}
	if got := listItems(t, a.client().Get("/items/10").Body, "also-bought"); strings.Join(got, ",") != "9" {
		t.Errorf("item 10's also bought %v, want 9", got)
	}
	// An item never bought with another shows no list.
	if res := a.client().Get("/items/11"); strings.Contains(res.Body, `data-testid="also-bought"`) {
		t.Error("item 11 lists items bought with it")
	}
}

// At most six items are listed.
func TestAlsoBoughtShowsSix(t *testing.T) {
	a := newApp(t, nil, nil)
	items := []int64{7, 8, 9, 10, 11, 12, 13, 14, 15}
	for _, id := range items {
		a.setStock(id, 50)
	}
	a.buy(items...)
	if got := listItems(t, a.client().Get("/items/7").Body, "also-bought"); len(got) != 6 {
		t.Errorf("also bought lists %d items, want 6", len(got))
	}
}
