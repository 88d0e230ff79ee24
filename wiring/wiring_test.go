package wiring_test

import (
	"testing"

	"storefront/store/board"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/notify"
	"storefront/store/orders"
	"storefront/store/pagecache"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// TestHooksCarryEffectsAcrossDomains: each effect one domain has on
// another arrives through the hooks New registers.
func TestHooksCarryEffectsAcrossDomains(t *testing.T) {
	st := wiringtest.New(t)
	ctx, rdb := t.Context(), st.Redis()

	// An item change purges its pages and moves the search version.
	rdb.ZIncrBy(ctx, keys.ViewRanking, -1, "5")
	if v, err := st.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 5, Render: wiringtest.PageRender}); err != nil || v.Result != pagecache.PageMiss {
		t.Fatalf("first view: %v %v", v.Result, err)
	}
	before := storetest.Must(st.Search.CacheVersion(ctx))(t)
	if _, err := st.Catalog.UpdateItem(ctx, 5, catalog.ItemEdit{Name: "Edited", PriceCents: 100, Stock: 2, Category: "Books"}); err != nil {
		t.Fatal(err)
	}
	if n := storetest.Must(rdb.Exists(ctx, keys.Page(pagecache.PageKey(5))).Result())(t); n != 0 {
		t.Error("an edited item's page outlived the edit")
	}
	if after := storetest.Must(st.Search.CacheVersion(ctx))(t); after == before {
		t.Error("an edit left the search version where it was")
	}
	// A purge of every page moves the search generation too (part of the
	// version on PostgreSQL; SQLite's triggers keep its own).
	gen := storetest.Must(rdb.Get(ctx, keys.SearchGen).Int64())(t)
	if _, err := st.Pages.PurgeAllPages(ctx); err != nil {
		t.Fatal(err)
	}
	if after := storetest.Must(rdb.Get(ctx, keys.SearchGen).Int64())(t); after != gen+1 {
		t.Errorf("search generation %d after purging every page, want %d", after, gen+1)
	}

	// A placed order grows "also bought"; a status change notifies.
	owner, uid := wiringtest.Shopper(t, st, "hooked")
	wiringtest.SetLine(t, st, owner, 7, 1)
	wiringtest.SetLine(t, st, owner, 8, 1)
	o, err := st.Orders.Checkout(ctx, wiringtest.Buy(owner, -1))
	if err != nil {
		t.Fatal(err)
	}
	if n := rdb.ZCard(ctx, keys.AlsoBought(7)).Val(); n != 1 {
		t.Errorf("item 7 is bought with %d items, want 1", n)
	}
	if _, err := st.Orders.MoveOrder(ctx, o.ID, 0, orders.OrderPaid, orders.AdminActor("a")); err != nil {
		t.Fatal(err)
	}
	if counts := storetest.Must(st.Notify.UnreadCounts(ctx, uid))(t); counts[notify.NoteOrder] != 1 {
		t.Errorf("unread order notes %v, want 1", counts)
	}

	// A post reaches the author's posts; a vote notifies the author.
	voter, _ := wiringtest.Shopper(t, st, "voter")
	a, err := st.Board.PostArticle(ctx, board.NewArticle{Title: "Hooks", Link: "https://example.com/", PosterID: uid, Poster: "hooked"})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := st.Social.Profile(ctx, uid, 0, 10); err != nil || len(p.PostIDs) != 1 || p.Counts.Posts != 1 {
		t.Errorf("the author's profile after a post: %+v %v", p, err)
	}
	if _, _, err := st.Board.Vote(ctx, a.ID, voter.UserID, board.VoteDown); err != nil {
		t.Fatal(err)
	}
	if counts := storetest.Must(st.Notify.UnreadCounts(ctx, uid))(t); counts[notify.NoteVote] != 1 {
		t.Errorf("unread vote notes %v, want 1", counts)
	}
}
