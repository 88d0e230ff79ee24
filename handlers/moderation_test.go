package handlers_test

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/storetest"
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
	id := poster.postArticle("Spam or not", "https://example.com/spam", "making", "care")
	for _, body := range []string{"first, fine", "<script>alert(1)</script> buy now"} {
		if res := critic.Post("/articles/"+itoa(id)+"/comments", url.Values{"body": {body}}); res.Status != http.StatusSeeOther {
			t.Fatalf("comment: %d", res.Status)
		}
	}
	// Warm the group's cached listing, the feed and the profile.
	if ids := testids(reader.Get("/groups/making").Body, "article", "data-article-id"); !contains(ids, itoa(id)) {
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
	for _, path := range []string{"/articles", "/articles?sort=new", "/groups/making", "/groups/care", "/groups/making?sort=new", "/feed", "/"} {
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
	if ids := testids(reader.Get("/groups/making").Body, "article", "data-article-id"); contains(ids, itoa(id)) {
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
		u := storetest.Must(a.store.Sessions.UserByName(ctx, name))(t)
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
		if err := a.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE user_id = $1`, u.ID).Scan(&placed); err != nil {
			t.Fatal(err)
		}
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

// boardAndShopFacts is what readers and shoppers see that moderation can
// change: listings, groups, feeds, counters, comments, an item's reviews
// and ratings. Hiding then showing again must give the same facts.
func boardAndShopFacts(t *testing.T, reader, anon *client, articleID int64, itemID int64, itemName string) map[string]string {
	t.Helper()
	facts := map[string]string{}
	for _, path := range []string{"/articles", "/articles?sort=new", "/groups/making", "/groups/making?sort=new", "/groups/care", "/feed", "/"} {
		body := reader.MustGet(path, http.StatusOK).Body
		facts[path] = strings.Join(testids(body, "article", "data-article-id"), ",") + " scores " +
			strings.Join(testids(body, "article", "data-score"), ",")
	}
	facts["posts"] = textOf(reader.MustGet("/users/poster", http.StatusOK).Body, "posts-count")
	if page := reader.Get("/articles/" + itoa(articleID)); page.Status == http.StatusOK {
		facts["comments"] = strings.Join(testids(page.Body, "comment", "data-comment-id"), ",") + " " +
			regexp.MustCompile(`id="comments-h">([^<]*)<`).FindStringSubmatch(page.Body)[1]
	} else {
		facts["comments"] = "article " + itoa(int64(page.Status))
	}
	item := anon.MustGet("/items/"+itoa(itemID), http.StatusOK).Body
	facts["reviews"] = strings.Join(testids(item, "review", "data-review-id"), ",")
	facts["rating"] = strings.Join(testids(item, "rating", "data-average"), ",") + " of " + strings.Join(testids(item, "rating", "data-count"), ",")
	list := anon.MustGet("/items?q="+url.QueryEscape(itemName), http.StatusOK).Body
	facts["card rating"] = strings.Join(testids(list, "rating", "data-count"), ",")
	return facts
}

// TestModerationUndo: every hide and the ban have their undo. Hidden
// articles, comments and reviews and banned accounts are listed on
// /admin/moderation (linked from the dashboard) with their undo buttons;
// a hidden review leaves the item's cached page, its rating and count, and
// its author sees it hidden; undoing everything gives back the very same
// listings, groups, feeds, counters, comments and ratings; the unbanned
// account signs in again; each step is audited; shoppers cannot undo.
func TestModerationUndo(t *testing.T) {
	a, logs := newLoggedApp(t)
	poster, critic, reader, fan, rater, troll, admin := a.client(), a.client(), a.client(), a.client(), a.client(), a.client(), a.client()
	for name, c := range map[string]*client{"poster": poster, "critic": critic, "reader": reader, "rater": rater, "troll": troll} {
		c.Register(name)
	}
	fan.Register("fan")
	admin.signInAdmin()
	reader.MustPost("/users/poster/follow", url.Values{"dir": {"follow"}}, http.StatusSeeOther)
	id := poster.postArticle("Worth a look", "https://example.com/look", "making", "care")
	poster.postArticle("Another", "https://example.com/another", "care")
	critic.postArticle("Critic's own", "https://example.com/own", "making")
	fan.MustPost("/articles/"+itoa(id)+"/vote", url.Values{"dir": {"up"}}, http.StatusSeeOther)
	for _, body := range []string{"useful", "off topic rant"} {
		critic.MustPost("/articles/"+itoa(id)+"/comments", url.Values{"body": {body}}, http.StatusSeeOther)
	}
	const itemID = 12
	it, err := a.store.Catalog.Item(t.Context(), itemID)
	if err != nil {
		t.Fatal(err)
	}
	rater.MustPost("/items/12/reviews", url.Values{"rating": {"1"}, "body": {"Terrible, and here is my shop's link"}}, http.StatusSeeOther)
	fan.MustPost("/items/12/reviews", url.Values{"rating": {"5"}, "body": {"Lovely"}}, http.StatusSeeOther)
	anon := a.client()
	before := boardAndShopFacts(t, reader, anon, id, itemID, it.Name)
	if before["rating"] != "3.0 of 2" {
		t.Fatalf("rating before %q", before["rating"])
	}
	raterID := a.userID("rater")
	reviewRef := itoa(itemID) + "-" + itoa(raterID)
	if !contains(strings.Split(before["reviews"], ","), reviewRef) {
		t.Fatalf("review hooks %q lack data-review-id %s", before["reviews"], reviewRef)
	}

	// Moderate: an article, a comment, a review, an account.
	admin.MustPost("/admin/articles/"+itoa(id)+"/hide", nil, http.StatusSeeOther)
	admin.MustPost("/admin/comments/"+itoa(id)+"-2/hide", nil, http.StatusSeeOther)
	admin.MustPost("/admin/reviews/"+reviewRef+"/hide", nil, http.StatusSeeOther)
	admin.MustPost("/admin/users/troll/ban", nil, http.StatusSeeOther)

	hidden := boardAndShopFacts(t, reader, anon, id, itemID, it.Name)
	for _, k := range []string{"/articles", "/groups/making", "/groups/care", "/feed", "posts", "reviews", "rating"} {
		if hidden[k] == before[k] {
			t.Errorf("hiding changed nothing in %s: %s", k, hidden[k])
		}
	}
	if hidden["rating"] != "5.0 of 1" || hidden["card rating"] != "1" || strings.Contains(hidden["reviews"], reviewRef) {
		t.Errorf("the hidden review still counts: rating %s, card %s, reviews %s", hidden["rating"], hidden["card rating"], hidden["reviews"])
	}
	own := rater.MustGet("/items/12", http.StatusOK).Body
	if textOf(own, "review-hidden") == "" || !strings.Contains(own, "hidden by a moderator") {
		t.Error("the review's author does not see that it was hidden")
	}
	if textOf(fan.MustGet("/items/12", http.StatusOK).Body, "review-hidden") != "" {
		t.Error("another shopper's review form says hidden")
	}

	// The moderation page lists them all with their undo buttons, and the
	// dashboard links to it.
	if !strings.Contains(admin.MustGet("/admin", http.StatusOK).Body, `href="/admin/moderation"`) {
		t.Error("the dashboard does not link to the moderation page")
	}
	mod := admin.MustGet("/admin/moderation", http.StatusOK).Body
	kinds, ids := testids(mod, "moderation-row", "data-kind"), testids(mod, "moderation-row", "data-id")
	got := map[string]string{}
	for i := range kinds {
		got[kinds[i]] = ids[i]
	}
	want := map[string]string{"article": itoa(id), "comment": itoa(id) + "-2", "review": reviewRef, "user": "troll"}
	if len(kinds) != 4 || !sameMap(got, want) {
		t.Errorf("moderation rows %v, want %v", got, want)
	}
	if n := strings.Count(mod, `data-testid="undo"`); n != 4 {
		t.Errorf("%d undo buttons, want 4", n)
	}
	for _, action := range []string{"/admin/articles/" + itoa(id) + "/unhide", "/admin/comments/" + itoa(id) + "-2/unhide",
		"/admin/reviews/" + reviewRef + "/unhide", "/admin/users/troll/unban"} {
		if !strings.Contains(mod, `action="`+action+`"`) {
			t.Errorf("no undo form posting to %s", action)
		}
		if res := reader.Post(action, nil); res.Status != http.StatusForbidden {
			t.Errorf("a shopper posting %s: %d", action, res.Status)
		}
	}
	if admin.MustGet("/admin/items/12", http.StatusOK).Body == "" || !strings.Contains(admin.Get("/admin/items/12").Body, `data-testid="unhide-review"`) {
		t.Error("the admin's item page offers no way to show the review again")
	}
	if res := troll.Post("/login", url.Values{"username": {"troll"}, "password": {"correct horse battery"}}); res.Status != http.StatusForbidden {
		t.Fatalf("banned sign-in: %d", res.Status)
	}

	// Undo everything.
	for _, action := range []string{"/admin/articles/" + itoa(id) + "/unhide", "/admin/comments/" + itoa(id) + "-2/unhide",
		"/admin/reviews/" + reviewRef + "/unhide", "/admin/users/troll/unban"} {
		res := admin.MustPost(action, nil, http.StatusSeeOther)
		if loc := res.Header.Get("Location"); loc != "/admin/moderation" {
			t.Errorf("%s went to %q", action, loc)
		}
	}
	after := boardAndShopFacts(t, reader, anon, id, itemID, it.Name)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("after undoing, %s is %q, was %q", k, after[k], v)
		}
	}
	if strings.Contains(rater.MustGet("/items/12", http.StatusOK).Body, `data-testid="review-hidden"`) {
		t.Error("the author still sees the review as hidden")
	}
	if rows := testids(admin.MustGet("/admin/moderation", http.StatusOK).Body, "moderation-row", "data-id"); len(rows) != 0 {
		t.Errorf("moderation rows left: %v", rows)
	}
	if res := troll.Post("/login", url.Values{"username": {"troll"}, "password": {"correct horse battery"}}); res.Status != http.StatusSeeOther || signedInAs(troll.Get("/").Body) != "troll" {
		t.Errorf("unbanned sign-in: %d", res.Status)
	}
	// Undoing again changes nothing; unknown ones are 404.
	admin.MustPost("/admin/articles/"+itoa(id)+"/unhide", url.Values{"next": {"/articles/" + itoa(id)}}, http.StatusSeeOther)
	if again := boardAndShopFacts(t, reader, anon, id, itemID, it.Name); again["posts"] != before["posts"] || again["/feed"] != before["/feed"] {
		t.Errorf("a second unhide changed the counters: %v", again)
	}
	for _, action := range []string{"/admin/articles/99999/unhide", "/admin/comments/" + itoa(id) + "-9/unhide", "/admin/comments/x/unhide",
		"/admin/reviews/12-99999/unhide", "/admin/reviews/99999-1/hide", "/admin/reviews/nope/hide", "/admin/users/nobody_here/unban"} {
		if res := admin.Post(action, nil); res.Status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", action, res.Status)
		}
	}
	want2 := "hide article,hide comment,hide review,ban user,unhide article,unhide comment,unhide review,unban user,unhide article"
	if got := logs.audited("action"); got != want2 {
		t.Errorf("audit %s,\nwant %s", got, want2)
	}
}
