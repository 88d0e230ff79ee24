package pagecache

import (
	"context"
	"net/url"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/media"
	"storefront/store/platform"
	"storefront/store/ratelimit"
	"storefront/store/reviews"
	"storefront/store/seed"
	"storefront/store/sessions"
	"storefront/store/storetest"
	"storefront/store/workers"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// newService is the page cache on clean backends and a seeded catalog,
// built from its parts.
func newService(t *testing.T) *Service {
	t.Helper()
	b := storetest.Base(t)
	host := workers.NewHost(b)
	cat := catalog.New(b, host)
	if err := seed.New(b, seed.Options{}, seed.Deps{Catalog: cat}).Items(t.Context()); err != nil {
		t.Fatal(err)
	}
	users := sessions.New(b, sessions.Options{ViewedPerSession: 25, PasswordCost: bcrypt.MinCost}, ratelimit.New(b), cart.New(b, 0), host)
	s := New(b, Options{TTL: 300e9, Top: 10_000, ViewedPerSession: 25},
		Deps{Catalog: cat, Media: media.New(b, cat), Reviews: reviews.New(b, cat), Sessions: users})
	t.Cleanup(s.Close)
	return s
}

// fillOnce renders (or finds) an item page as a miss would, with the
// purge generations gen read before, and says what happened.
func fillOnce(ctx context.Context, s *Service, itemID int64, gen PageGen, render RenderFunc) (string, error) {
	_, outcome, err := s.fillPage(ctx, pageFill{Key: PageKey(itemID), ItemID: itemID, Gen: gen, Render: render, epoch: s.l1.epoch(itemID)})
	return outcome, err
}

func pageHTML(name string) []byte {
	return []byte(`<html><!--hole:account-->anon<!--/hole:account--><h1>` + name + `</h1></html>`)
}

func TestPageKeyDropsUnreadParameters(t *testing.T) {
	k1, _, ok1 := pageKey(7, url.Values{"b": {"2"}, "a": {"1"}, "utm_source": {"x"}, "fbclid": {"y"}, "gclid": {"z"}})
	k2, _, ok2 := pageKey(7, url.Values{})
	if !ok1 || !ok2 || k1 != k2 || k1 != PageKey(7) || len(k1) != 64 || k1 == PageKey(8) {
		t.Fatalf("keys %q %q", k1, k2)
	}
	if _, _, ok := pageKey(7, url.Values{"_": {"1"}}); ok {
		t.Error("_ must bypass")
	}
}

func TestPageKeyKeepsTheChosenVariant(t *testing.T) {
	k, v, ok := pageKey(7, url.Values{"variant": {"12"}, "utm_source": {"x"}})
	if !ok || v != 12 || k != VariantPageKey(7, 12) || k == PageKey(7) || k == VariantPageKey(7, 13) {
		t.Fatalf("key %q variant %d", k, v)
	}
	// A cache-buster bypasses the cache but never changes the variant
	// shown.
	if k, v, ok := pageKey(7, url.Values{"variant": {"3"}, "_": {"1"}}); ok || v != 3 || k != "" {
		t.Errorf("variant=3&_=1: key %q variant %d bypass %v, want variant 3 bypassing the cache", k, v, !ok)
	}
	for _, bad := range []string{"", "0", "-1", "012", "x", "1e3"} {
		if k, v, ok := pageKey(7, url.Values{"variant": {bad}}); !ok || v != 0 || k != PageKey(7) {
			t.Errorf("variant=%q: key %q variant %d, want the item's plain key", bad, k, v)
		}
	}
}

func TestFillFindsPageStoredMeanwhile(t *testing.T) {
	s := newService(t)
	ctx := t.Context()
	renders := 0
	counting := func(_ context.Context, d PageData) ([]byte, error) {
		renders++
		return pageHTML(d.Item.Name), nil
	}
	if o, err := fillOnce(ctx, s, 6, PageGen{}, counting); err != nil || o != fillRendered {
		t.Fatalf("%v %v", o, err)
	}
	// A request whose read round trip missed, arriving after the render.
	if o, err := fillOnce(ctx, s, 6, PageGen{}, counting); err != nil || o != fillFound || renders != 1 {
		t.Fatalf("%v %v, %d renders", o, err, renders)
	}
	if _, err := fillOnce(ctx, s, 999999, PageGen{}, counting); err != platform.ErrNotFound {
		t.Fatalf("missing item: %v", err)
	}
	if n := storetest.Must(s.rdb.Exists(ctx, keys.PageLock(PageKey(999999))).Result())(t); n != 0 {
		t.Error("a failed render kept its lock")
	}
}

// The flushes between two touch flushes send a session's views but keep
// its touch (and its alive check) buffered, coalesced, for the next full
// flush; a session that ended meanwhile is not revived by it.
func TestTouchesWaitForTheFullFlush(t *testing.T) {
	s := newService(t)
	ctx, rdb := t.Context(), s.rdb
	for _, tok := range []string{"reader", "ended"} {
		if err := s.sessions.CreateSession(ctx, tok, 0); err != nil {
			t.Fatal(err)
		}
	}
	sid := keys.SessionID("reader")
	seen := storetest.Must(rdb.ZScore(ctx, keys.Recent, sid).Result())(t)
	s.writes.add(visitWrites{itemID: 4, token: "reader", countView: true}, seen+5)
	s.writes.touch("reader", false, seen+7)
	s.writes.touch("ended", false, seen+7)
	if err := s.flushWrites(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := sessions.ReadViewed(ctx, rdb, "reader"); len(got) != 1 || got[0] != "4" {
		t.Errorf("views flushed without the touches: %v, want [4]", got)
	}
	if now := storetest.Must(rdb.ZScore(ctx, keys.Recent, sid).Result())(t); now != seen {
		t.Errorf("touched at %v before the full flush, want still %v", now, seen)
	}
	if err := s.sessions.EndSession(ctx, "ended"); err != nil {
		t.Fatal(err)
	}
	if err := s.flushWrites(ctx, true); err != nil {
		t.Fatal(err)
	}
	if now := storetest.Must(rdb.ZScore(ctx, keys.Recent, sid).Result())(t); now != seen+7 {
		t.Errorf("after the full flush seen at %v, want %v", now, seen+7)
	}
	if _, err := rdb.ZScore(ctx, keys.Recent, keys.SessionID("ended")).Result(); err == nil {
		t.Error("the touch revived an ended session")
	}
}
