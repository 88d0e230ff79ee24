package apptest_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"storefront/handlers/apptest"
	"storefront/store/board"
	"storefront/store/cart"
	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// keyTouches records the commands sent to Redis on keys a test watches,
// alone or in pipelines.
type keyTouches struct {
	mu      sync.Mutex
	watch   func(key string) bool
	touched []string
}

func (h *keyTouches) note(cmd redis.Cmder) {
	args := cmd.Args()
	if len(args) < 2 {
		return
	}
	if key, ok := args[1].(string); ok && h.watch(key) {
		h.mu.Lock()
		h.touched = append(h.touched, cmd.Name()+" "+key)
		h.mu.Unlock()
	}
}

func (h *keyTouches) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *keyTouches) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.note(cmd); return next(ctx, cmd) }
}
func (h *keyTouches) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			h.note(c)
		}
		return next(ctx, cmds)
	}
}

func (h *keyTouches) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.touched
	h.touched = nil
	return out
}

// TestPageReadSessionWithoutRoundTrip: on one Redis server (DB 0, RESP3) a
// returning shopper's page reads (GET) take the session from go-redis's
// client-side cache and write its touch behind: no command reaches the
// session's keys until the flush, which touches it. A change on the server
// (the session ended elsewhere) reaches the next page read; a form post
// still reads the session from Redis.
func TestPageReadSessionWithoutRoundTrip(t *testing.T) {
	rdb, _, st, srv := cachedApp(t)
	ctx := t.Context()
	s := apptest.NewClient(t, srv.URL)
	s.MustPost("/register", url.Values{"username": {"reader"}, "password": {"a-long-password-1"}, "email": {"reader@example.com"}}, http.StatusSeeOther)
	s.MustPost("/cart", url.Values{"item": {"3"}, "qty": {"2"}}, http.StatusSeeOther)
	sk := keys.OfSession(s.Cookie("sid"))
	page := func() apptest.Response {
		r := s.MustGet("/items", http.StatusOK)
		if apptest.TextOf(r.Body, "user-name") == "reader" && apptest.TextOf(r.Body, "cart-count") != "2" {
			t.Fatalf("cart count %q, want 2", apptest.TextOf(r.Body, "cart-count"))
		}
		return r
	}
	page() // the session's reads are cached now
	if err := st.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	seen, err := rdb.ZScore(ctx, keys.Recent, sk.ID).Result()
	if err != nil {
		t.Fatal(err)
	}

	watch := &keyTouches{watch: func(k string) bool {
		return k == keys.Recent || k == keys.Login || k == sk.Cart || strings.HasSuffix(k, ":cart") || strings.HasSuffix(k, ":unread")
	}}
	rdb.AddHook(watch)
	for range 10 {
		if got := apptest.TextOf(page().Body, "user-name"); got != "reader" {
			t.Fatalf("signed in as %q, want reader", got)
		}
	}
	if got := watch.take(); len(got) != 0 {
		t.Errorf("10 page reads sent %v to the session's keys; want nothing before the flush", got)
	}
	if err := st.Pages.FlushWrites(ctx); err != nil {
		t.Fatal(err)
	}
	if got := watch.take(); len(got) == 0 {
		t.Error("the flush did not touch the session")
	}
	if after := storetest.Must(rdb.ZScore(ctx, keys.Recent, sk.ID).Result())(t); after <= seen {
		t.Errorf("recent: score %v -> %v: the page reads' touch was not written", seen, after)
	}

	// A form post reads the session from Redis; the cart it changed
	// shows on the next page read.
	s.MustPost("/cart", url.Values{"item": {"3"}, "qty": {"1"}}, http.StatusSeeOther)
	if got := watch.take(); !containsPrefix(got, "hget login:") {
		t.Errorf("a cart post sent %v; want the session read from Redis (HGET login:)", got)
	}
	read := func() apptest.Response { return s.MustGet("/items", http.StatusOK) }
	if got := apptest.TextOf(read().Body, "cart-count"); got != "1" {
		t.Fatalf("the page read after the cart post counts %q, want 1", got)
	}

	// The session ends on the server (another instance signed it out):
	// Redis invalidates the cached read and the next page is anonymous.
	elsewhere := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr})
	defer elsewhere.Close()
	if err := elsewhere.HDel(ctx, keys.Login, sk.ID).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ended session is seen on a page read", func() bool {
		return apptest.TextOf(read().Body, "user-name") == ""
	})
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestListingsFromClientSideCache: on one Redis server (DB 0, RESP3)
// article rows and the reader's votes are read through the client-side
// cache; a vote made on another instance (a client of its own) reaches
// the next listing once Redis invalidates the row, and a vote made on
// this one shows at once.
func TestListingsFromClientSideCache(t *testing.T) {
	rdb, cached, st, _ := cachedApp(t)
	ctx := t.Context()
	otherRedis := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr})
	t.Cleanup(func() { otherRedis.Close() })
	other := wiring.New(otherRedis, st.DB(), st.Options(), storetest.Logger(t))
	t.Cleanup(other.Close)
	u, err := st.Sessions.CreateUser(ctx, "voter", "a-long-password-1")
	if err != nil {
		t.Fatal(err)
	}
	poster, err := st.Sessions.CreateUser(ctx, "poster", "a-long-password-1")
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"First news", "Second news"} {
		if _, err := st.Board.PostArticle(ctx, board.NewArticle{Title: title, Link: "https://example.com/" + url.PathEscape(title), PosterID: poster.ID}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := st.Board.Articles(ctx, board.ArticleQuery{PerPage: 5, ViewerID: u.ID})
	if err != nil || len(page.Articles) == 0 {
		t.Fatalf("no articles to list: %v", err)
	}
	a := page.Articles[0]
	misses := cached.CSCStats().Misses
	if again, err := st.Board.Articles(ctx, board.ArticleQuery{PerPage: 5, ViewerID: u.ID}); err != nil || len(again.Articles) != len(page.Articles) {
		t.Fatalf("second listing: %v", err)
	}
	if got := cached.CSCStats().Misses - misses; got != 0 {
		t.Errorf("a repeated listing missed the client-side cache %d times, want 0", got)
	}
	if _, _, err := other.Board.Vote(ctx, a.ID, u.ID, board.VoteUp); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the other instance's vote in the listing", func() bool {
		got, err := st.Board.ArticlesByID(ctx, []int64{a.ID}, u.ID)
		return err == nil && len(got) == 1 && got[0].Up == a.Up+1 && got[0].MyVote == board.VoteUp
	})
	if _, _, err := st.Board.Vote(ctx, a.ID, u.ID, board.VoteDown); err != nil {
		t.Fatal(err)
	}
	got, err := st.Board.ArticlesByID(ctx, []int64{a.ID}, u.ID)
	if err != nil || len(got) != 1 || got[0].MyVote != board.VoteDown || got[0].Up != a.Up || got[0].Down != a.Down+1 {
		t.Fatalf("this instance's own vote is not shown at once: %+v, %v", got, err)
	}
}

// TestFormPostSessionCountsFromCache: a form post's session read (taken
// from Redis for who is signed in, the header's counts through the
// client-side cache) counts the account's cart once `login:` agrees with
// the claim, the guest cart when it does not, shows a cart change at once,
// and knows a session that ended.
func TestFormPostSessionCountsFromCache(t *testing.T) {
	_, cached, st, _ := cachedApp(t)
	ctx := t.Context()
	owner, uid := wiringtest.Shopper(t, st, "counted")
	guest := cart.Owner{Token: owner.Token}
	if _, err := st.Cart.SetCartLine(ctx, guest, 5, 2); err != nil { // left from before sign-in
		t.Fatal(err)
	}
	hits := cached.CSCStats().Hits
	for i := int64(1); i <= 5; i++ {
		if _, err := st.Cart.SetCartLine(ctx, owner, 3, i); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second read is answered in process
			state, err := st.Sessions.LoadSession(ctx, owner.Token, uid)
			if err != nil || !state.Known || state.UserID != uid || state.CartCount != i {
				t.Fatalf("after setting %d: %+v, %v", i, state, err)
			}
		}
	}
	if cached.CSCStats().Hits == hits {
		t.Errorf("no count was read through the client-side cache")
	}
	if state, _ := st.Sessions.LoadSession(ctx, owner.Token, uid+1); state.UserID != uid || state.CartCount != 2 {
		t.Errorf("claiming another user: %+v, want the guest cart's count 2", state)
	}
	if err := st.Sessions.EndSession(ctx, owner.Token); err != nil {
		t.Fatal(err)
	}
	if state, err := st.Sessions.LoadSession(ctx, owner.Token, uid); err != nil || state.Known {
		t.Errorf("ended session: %+v, %v", state, err)
	}
}
