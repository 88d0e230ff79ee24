package handlers_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"storefront/store/orders"
	"storefront/store/platform"
)

// TestHideCommentAndArticle: a hidden comment leaves the page and the
// count for everyone but its author (who sees it was hidden) and the
// admin; a hidden article leaves the board, its groups (cached listings
// included), followers' feeds and the poster's counter, and only the poster
// can still open it.
func TestHideCommentAndArticle(t *testing.T) {
	a, logs := newLoggedApp(t)
	poster, critic, reader, admin := a.client(), a.client(), a.client(), a.client()
	poster.Register("poster")
	critic.Register("critic")
	reader.Register("reader")
	admin.signInAdmin()
	if res := reader.Post("/users/poster/follow", url.Values{"dir": {"follow"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("follow: %d", res.Status)
	}
	id := poster.postArticle("Spam or not", "https://example.com/spam", "redis", "go")
	for _, body := range []string{"first, fine", "<script>alert(1)</script> buy now"} {
		if res := critic.Post("/articles/"+itoa(id)+"/comments", url.Values{"body": {body}}); res.Status != http.StatusSeeOther {
			t.Fatalf("comment: %d", res.Status)
		}
	}
	// Warm the group's cached listing, the feed and the profile.
	if ids := testids(reader.Get("/groups/redis").Body, "article", "data-article-id"); !contains(ids, itoa(id)) {
		t.Fatalf("group listing %v", ids)
	}
	if ids := testids(reader.Get("/feed").Body, "article", "data-article-id"); !contains(ids, itoa(id)) {
		t.Fatalf("feed %v", ids)
	}
	if got := textOf(reader.Get("/users/poster").Body, "posts-count"); got != "1" {
		t.Fatalf("posts count %q", got)
	}

	page := admin.Get("/articles/" + itoa(id))
	refs := testids(page.Body, "comment", "data-comment-id")
	if len(refs) != 2 || refs[1] != itoa(id)+"-2" {
		t.Fatalf("comment ids %v", refs)
	}
	if strings.Contains(page.Body, "<script>alert(1)</script>") {
		t.Fatal("a comment was not escaped")
	}
	if res := critic.Post("/admin/comments/"+refs[1]+"/hide", nil); res.Status != http.StatusForbidden {
		t.Fatalf("a reader hid a comment: %d", res.Status)
	}
	if res := admin.Post("/admin/comments/"+refs[1]+"/hide", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("hide comment: %d", res.Status)
	}
	for _, bad := range []string{itoa(id) + "-9", "x", itoa(id) + "-0", "999-1"} {
		if res := admin.Post("/admin/comments/"+bad+"/hide", nil); res.Status != http.StatusNotFound {
			t.Errorf("hide comment %q: %d", bad, res.Status)
		}
	}
	for name, c := range map[string]*client{"reader": reader, "anonymous": a.client()} {
		p := c.Get("/articles/" + itoa(id))
		if got := testids(p.Body, "comment", "data-comment-id"); len(got) != 1 || got[0] != refs[0] || strings.Contains(p.Body, "buy now") {
			t.Errorf("%s still sees the hidden comment: %v", name, got)
		}
		if got := testids(p.Body, "article", "data-article-id"); len(got) != 1 {
			t.Errorf("%s: article missing", name)
		}
		mustContain(t, p.Body, "1 comment")
	}
	own := critic.Get("/articles/" + itoa(id))
	if got := testids(own.Body, "comment", "data-hidden"); len(got) != 2 || got[1] != "true" || !strings.Contains(own.Body, "hidden by a moderator") {
		t.Errorf("the author does not see that the comment was hidden: %v", got)
	}
	if res := admin.Post("/admin/comments/"+refs[1]+"/hide", nil); res.Status != http.StatusSeeOther {
		t.Errorf("hiding again: %d", res.Status)
	}
	if strings.Count(reader.Get("/articles/"+itoa(id)).Body, "1 comment") == 0 {
		t.Error("hiding twice took the count down twice")
	}

	// Hide the article.
	if res := admin.Post("/admin/articles/"+itoa(id)+"/hide", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("hide article: %d", res.Status)
	}
	for _, path := range []string{"/articles", "/articles?sort=new", "/groups/redis", "/groups/go", "/groups/redis?sort=new", "/feed", "/"} {
		if ids := testids(reader.Get(path).Body, "article", "data-article-id"); contains(ids, itoa(id)) {
			t.Errorf("%s still lists the hidden article", path)
		}
	}
	if got := textOf(reader.Get("/users/poster").Body, "posts-count"); got != "0" {
		t.Errorf("posts count after hiding %q", got)
	}
	for name, c := range map[string]*client{"reader": reader, "anonymous": a.client()} {
		if res := c.Get("/articles/" + itoa(id)); res.Status != http.StatusNotFound {
			t.Errorf("%s opens the hidden article: %d", name, res.Status)
		}
	}
	if res := reader.Post("/articles/"+itoa(id)+"/vote", url.Values{"dir": {"up"}}); res.Status != http.StatusNotFound {
		t.Errorf("vote on a hidden article: %d", res.Status)
	}
	if res := reader.Post("/articles/"+itoa(id)+"/comments", url.Values{"body": {"still here?"}}); res.Status != http.StatusNotFound {
		t.Errorf("comment on a hidden article: %d", res.Status)
	}
	if ids := testids(reader.Get("/groups/redis").Body, "article", "data-article-id"); contains(ids, itoa(id)) {
		t.Error("a vote put the hidden article back in a listing")
	}
	own = poster.Get("/articles/" + itoa(id))
	if own.Status != http.StatusOK || textOf(own.Body, "hidden-notice") == "" {
		t.Errorf("the poster's view: %d", own.Status)
	}
	if res := admin.Post("/admin/articles/99999/hide", nil); res.Status != http.StatusNotFound {
		t.Errorf("hide a missing article: %d", res.Status)
	}
	if got := logs.audited("action"); got != "hide comment,hide comment,hide article" {
		t.Errorf("audit %s", got)
	}
}

// TestBanSignsOutEverywhere: the banned account's sessions on every
// browser end at once, sign-in is refused with a clear message (only after
// the right password), its orders stay, and the admin cannot be banned.
func TestBanSignsOutEverywhere(t *testing.T) {
	a, logs := newLoggedApp(t)
	a.setStock(3, 10)
	laptop, phone := a.client(), a.client()
	laptop.Register("troll")
	if res := phone.Post("/login", url.Values{"username": {"troll"}, "password": {"correct horse battery"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("second sign-in: %d", res.Status)
	}
	orderID := laptop.orderFor("troll", 3, 1)
	bystander := a.client()
	bystander.Register("nice")
	admin := a.client()
	admin.signInAdmin()

	if p := admin.Get("/users/troll").Body; len(testids(p, "ban-user", "")) != 1 {
		t.Error("the admin has no ban button on the profile")
	}
	if p := bystander.Get("/users/troll").Body; len(testids(p, "ban-user", "")) != 0 {
		t.Error("a shopper sees the ban button")
	}
	if res := admin.Post("/admin/users/troll/ban", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("ban: %d", res.Status)
	}
	if p := admin.Get("/users/troll").Body; len(testids(p, "user-banned", "")) != 1 {
		t.Error("the profile does not say the account is banned")
	}
	for name, c := range map[string]*client{"laptop": laptop, "phone": phone} {
		if got := textOf(c.Get("/").Body, "user-name"); got != "" {
			t.Errorf("%s still signed in as %q", name, got)
		}
		if res := c.Get("/orders"); res.Status != http.StatusSeeOther {
			t.Errorf("%s reaches its orders: %d", name, res.Status)
		}
	}
	if got := textOf(bystander.Get("/").Body, "user-name"); got != "nice" {
		t.Errorf("the ban signed out someone else: %q", got)
	}
	res := laptop.Post("/login", url.Values{"username": {"troll"}, "password": {"correct horse battery"}})
	if res.Status != http.StatusForbidden || !strings.Contains(res.Body, "suspended") || laptop.Cookie("user") != "" {
		t.Fatalf("banned sign-in: %d", res.Status)
	}
	if res := laptop.Post("/login", url.Values{"username": {"troll"}, "password": {"wrong password!"}}); res.Status != http.StatusUnprocessableEntity || strings.Contains(res.Body, "suspended") {
		t.Errorf("a wrong password learns about the ban: %d", res.Status)
	}
	if a.orderStatus(orderID) == "" {
		t.Error("the order went")
	}
	if res := admin.Post("/admin/users/admin/ban", nil); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("banning the admin: %d", res.Status)
	}
	if res := admin.Post("/admin/users/nobody_here/ban", nil); res.Status != http.StatusNotFound {
		t.Errorf("banning no one: %d", res.Status)
	}
	if res := bystander.Post("/admin/users/troll/ban", nil); res.Status != http.StatusForbidden {
		t.Errorf("a shopper banning: %d", res.Status)
	}
	if got := len(logs.lines("admin action")); got != 1 {
		t.Errorf("%d audit lines, want 1", got)
	}
	// The admin still sees the banned account's order.
	if res := admin.Get("/orders/" + itoa(orderID)); res.Status != http.StatusOK {
		t.Errorf("admin on the banned account's order: %d", res.Status)
	}
}

// TestBanDuringCheckout races a ban with the account's checkout many
// times: either the order was placed before the ban (it stays, stock
// taken) or the checkout is refused (nothing taken); afterwards the
// account has no session.
func TestBanDuringCheckout(t *testing.T) {
	a := newApp(t, nil, nil)
	ctx := t.Context()
	admin := a.client()
	admin.signInAdmin()
	for round := 0; round < 6; round++ {
		name := "buyer" + itoa(int64(round))
		item := int64(20 + round)
		a.setStock(item, 5)
		c := a.client()
		c.Register(name)
		if res := c.setQty(itoa(item), "2"); res.Status != http.StatusSeeOther {
			t.Fatalf("cart: %d", res.Status)
		}
		u, _ := a.store.Sessions.UserByName(ctx, name)
		var wg sync.WaitGroup
		var checkoutErr error
		var banStatus int
		wg.Add(2)
		go func() { defer wg.Done(); _, checkoutErr = c.checkoutAs(name) }()
		go func() { defer wg.Done(); banStatus = admin.Post("/admin/users/"+name+"/ban", nil).Status }()
		wg.Wait()
		if banStatus != http.StatusSeeOther {
			t.Fatalf("ban: %d", banStatus)
		}
		var placed int
		_ = a.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE user_id = $1`, u.ID).Scan(&placed)
		switch {
		case checkoutErr == nil:
			if placed != 1 || a.stockOf(item) != 3 {
				t.Fatalf("round %d: placed, but %d orders and stock %d", round, placed, a.stockOf(item))
			}
		case errors.Is(checkoutErr, platform.ErrBanned), errors.Is(checkoutErr, orders.ErrEmptyCart):
			// Refused in the transaction, or the ban ended the session
			// (and its cart) first.
			if placed != 0 || a.stockOf(item) != 5 {
				t.Fatalf("round %d: refused, but %d orders and stock %d", round, placed, a.stockOf(item))
			}
		default:
			t.Fatalf("round %d: checkout: %v", round, checkoutErr)
		}
		if got := textOf(c.Get("/").Body, "user-name"); got != "" {
			t.Fatalf("round %d: still signed in", round)
		}
	}
}
