package apptest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"storefront/handlers/apptest"
	"storefront/store/board"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// ownWriteTrials is how often each write is made and read back: the race
// it guards against (the instance's own in-process copies dropped only
// when Redis's invalidation arrives, a few milliseconds later) lost most
// trials, so twenty cannot all pass by luck.
const ownWriteTrials = 20

// ownApp is one shop instance served by the real router.
type ownApp struct {
	st  *wiring.Services
	url string
}

// ownWrite is a write a visitor can make and the page that must show it.
type ownWrite struct {
	name  string
	check func(t *testing.T, app ownApp)
}

// TestOwnWritesOnNextPage: for every write a visitor can make (cart lines
// set and removed, the cart merged at sign-in, likes, votes, articles
// posted, notifications marked read, sign-out, a ban, a password change
// that ends the other sessions, a review), the very next page the same
// instance serves shows it, every time. It runs on a Redis server of its
// own with go-redis's client-side cache active (DB 0, RESP3), where the
// pages' per-visitor reads are answered in process, and on the run's
// backend (miniredis on a fresh machine).
func TestOwnWritesOnNextPage(t *testing.T) {
	backends := []struct {
		name string
		app  func(t *testing.T) ownApp
	}{
		{"client-side cache", func(t *testing.T) ownApp {
			_, _, st, srv := cachedApp(t)
			return ownApp{st: st, url: srv.URL}
		}},
		{storetest.Backend(), func(t *testing.T) ownApp {
			st, srv := routerApp(t, storetest.Redis(t), nil)
			return ownApp{st: st, url: srv.URL}
		}},
	}
	writes := []ownWrite{
		{"cart line set and removed", ownCartLines},
		{"cart merged at sign-in", ownCartMerge},
		{"like", ownLike},
		{"vote", ownVote},
		{"article posted", ownArticle},
		{"notifications marked read", ownNotificationsRead},
		{"sign-out", ownSignOut},
		{"ban", ownBan},
		{"password change", ownPasswordChange},
		{"review", ownReview},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			app := b.app(t)
			for _, w := range writes {
				t.Run(w.name, func(t *testing.T) { w.check(t, app) })
			}
		})
	}
}

// TestOwnWriteDropsCachedRead: on one Redis server (DB 0, RESP3) a key
// read through the client-side cache and then written on the main client
// is read back new at once, every time, for a plain command, a pipeline,
// a script and a deletion: the write drops the cached copy before it
// returns, without waiting for Redis's invalidation.
func TestOwnWriteDropsCachedRead(t *testing.T) {
	storetest.OnePass(t) // a Redis server of its own: nothing to learn from a second backend
	t.Parallel()
	rdb, cached, _, _ := cachedApp(t)
	ctx := t.Context()
	incr := redis.NewScript(`return redis.call('HINCRBY', KEYS[1], 'n', 1)`)
	writes := []struct {
		name  string
		write func(i int) error
	}{
		{"HSET", func(i int) error { return rdb.HSet(ctx, "own:key", "n", i).Err() }},
		{"pipeline", func(i int) error {
			_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				p.HSet(ctx, "own:other", "n", i)
				p.HSet(ctx, "own:key", "n", i)
				return nil
			})
			return err
		}},
		{"script", func(i int) error {
			if err := rdb.HSet(ctx, "own:key", "n", i-1).Err(); err != nil {
				return err
			}
			cached.HGet(ctx, "own:key", "n") // held again
			return incr.Run(ctx, rdb, []string{"own:key"}).Err()
		}},
		{"deleted and set again", func(i int) error {
			if err := rdb.Unlink(ctx, "own:key").Err(); err != nil {
				return err
			}
			got, err := cached.HGet(ctx, "own:key", "n").Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				return err
			}
			if got != "" {
				return fmt.Errorf("deleted, read back %q", got)
			}
			return rdb.HSet(ctx, "own:key", "n", i).Err()
		}},
	}
	for _, w := range writes {
		hits := cached.CSCStats().Hits
		for i := range 200 {
			cached.HGet(ctx, "own:key", "n")
			cached.HGet(ctx, "own:key", "n") // answered in process
			if err := w.write(i); err != nil {
				t.Fatalf("%s, trial %d: %v", w.name, i, err)
			}
			if got := cached.HGet(ctx, "own:key", "n").Val(); got != strconv.Itoa(i) {
				t.Fatalf("%s, trial %d: read back %q at once, want %d", w.name, i, got, i)
			}
		}
		if cached.CSCStats().Hits == hits {
			t.Errorf("%s: no read was answered from the client-side cache: the test proves nothing", w.name)
		}
	}
}

// twice reads path twice, so that its reads are held in process.
func twice(c *apptest.Client, path string) apptest.Response {
	c.MustGet(path, http.StatusOK)
	return c.MustGet(path, http.StatusOK)
}

// ownCartLines: a guest's and a shopper's cart lines, set and removed,
// are counted in the header of the next page.
func ownCartLines(t *testing.T, app ownApp) {
	wiringtest.SetStock(t, app.st, 3, 50)
	guest := apptest.NewClient(t, app.url)
	shopper := apptest.NewClient(t, app.url)
	shopper.Register("own_cart")
	for _, c := range []*apptest.Client{guest, shopper} {
		for i := range ownWriteTrials {
			qty := strconv.Itoa((i + 1) % 3) // 1, 2, 0 (removes the line), 1, ...
			twice(c, "/items")
			c.MustPost("/cart", url.Values{"item": {"3"}, "qty": {qty}}, http.StatusSeeOther)
			if got := apptest.TextOf(c.MustGet("/items", http.StatusOK).Body, "cart-count"); got != qty {
				t.Fatalf("trial %d: set the line to %s, the next page counts %q", i, qty, got)
			}
		}
	}
}

// ownCartMerge: a guest cart merged into the account's cart at sign-in
// is counted on the next page, of the new session and of the account's
// other session on the same instance.
func ownCartMerge(t *testing.T, app ownApp) {
	home := apptest.NewClient(t, app.url)
	home.Register("own_merge")
	for i := range ownWriteTrials {
		wiringtest.SetStock(t, app.st, int64(10+i), 50)
	}
	for i := range ownWriteTrials {
		twice(home, "/items") // the account's cart count is held in process
		g := apptest.NewClient(t, app.url)
		g.MustPost("/cart", url.Values{"item": {strconv.Itoa(10 + i)}, "qty": {"1"}}, http.StatusSeeOther)
		g.Login("own_merge", apptest.Password)
		want := strconv.Itoa(i + 1)
		if got := apptest.TextOf(g.MustGet("/items", http.StatusOK).Body, "cart-count"); got != want {
			t.Fatalf("trial %d: after the merge the new session's page counts %q, want %s", i, got, want)
		}
		if got := apptest.TextOf(home.MustGet("/items", http.StatusOK).Body, "cart-count"); got != want {
			t.Fatalf("trial %d: after the merge the account's other session counts %q, want %s", i, got, want)
		}
	}
}

// ownLike: liking and unliking an item shows on its cached page (the like
// box is a hole filled per visitor).
func ownLike(t *testing.T, app ownApp) {
	const item = "/items/61"
	u := apptest.NewClient(t, app.url)
	u.Register("own_liker")
	eventually(t, "the item page is a hit", func() bool {
		return u.MustGet(item, http.StatusOK).Header.Get("X-Cache") == "HIT"
	})
	for i := range ownWriteTrials {
		dir, liked, count := "like", "true", "1"
		if i%2 == 1 {
			dir, liked, count = "unlike", "false", "0"
		}
		twice(u, item)
		u.MustPost(item+"/like", url.Values{"dir": {dir}, "next": {item}}, http.StatusSeeOther)
		r := u.MustGet(item, http.StatusOK)
		if got, n := apptest.FirstAttr(r.Body, "like-box", "data-liked"), apptest.TextOf(r.Body, "like-count"); got != liked || n != count {
			t.Fatalf("trial %d (%s, X-Cache %s): the next page shows liked=%q with %q likes, want %s with %s",
				i, dir, r.Header.Get("X-Cache"), got, n, liked, count)
		}
	}
}

// articleRow is an article's attributes in a listing, by its id.
func articleRow(body, id, attr string) string {
	ids, vals := apptest.AttrsOf(body, "article", "data-article-id"), apptest.AttrsOf(body, "article", attr)
	if i := slices.Index(ids, id); i >= 0 && i < len(vals) {
		return vals[i]
	}
	return "(not listed)"
}

// ownVote: a vote (up, withdrawn, down) shows in the listing the vote's
// form leads back to, its counts as well as the voter's own vote.
func ownVote(t *testing.T, app ownApp) {
	ctx := context.Background()
	poster, err := app.st.Sessions.CreateUser(ctx, "own_poster", apptest.Password)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.st.Board.PostArticle(ctx, board.NewArticle{Title: "Votes show at once", Link: "https://example.com/own-votes", PosterID: poster.ID, Poster: poster.Username})
	if err != nil {
		t.Fatal(err)
	}
	id, list := strconv.FormatInt(a.ID, 10), "/articles?sort=new"
	v := apptest.NewClient(t, app.url)
	v.Register("own_voter")
	for i := range ownWriteTrials {
		dir := []string{board.VoteUp, board.VoteNone, board.VoteDown, board.VoteNone}[i%4]
		up, down := "1", "0" // the poster's own up vote
		switch dir {
		case board.VoteUp:
			up = "2"
		case board.VoteDown:
			down = "1"
		}
		twice(v, list)
		v.MustPost("/articles/"+id+"/vote", url.Values{"dir": {dir}, "next": {list}}, http.StatusSeeOther)
		body := v.MustGet(list, http.StatusOK).Body
		gotUp, gotDown, mine := articleRow(body, id, "data-up"), articleRow(body, id, "data-down"), articleRow(body, id, "data-my-vote")
		if gotUp != up || gotDown != down || mine != dir {
			t.Fatalf("trial %d: voted %q, the listing shows up %s down %s mine %q; want up %s down %s", i, dir, gotUp, gotDown, mine, up, down)
		}
	}
}

// ownArticle: an article just posted leads the newest articles.
func ownArticle(t *testing.T, app ownApp) {
	const list = "/articles?sort=new"
	p := apptest.NewClient(t, app.url)
	p.Register("own_writer")
	for i := range ownWriteTrials {
		twice(p, list)
		r := p.MustPost("/articles", url.Values{"title": {fmt.Sprintf("Own article number %d", i)},
			"link": {fmt.Sprintf("https://example.com/own-article/%d", i)}}, http.StatusSeeOther)
		id := strings.TrimPrefix(r.Header.Get("Location"), "/articles/")
		if got := apptest.FirstAttr(p.MustGet(list, http.StatusOK).Body, "article", "data-article-id"); got != id {
			t.Fatalf("trial %d: posted article %s, the newest listed is %s", i, id, got)
		}
	}
}

// ownNotificationsRead: "Mark as read" empties the header's count on
// the page it leads to.
func ownNotificationsRead(t *testing.T, app ownApp) {
	ctx := context.Background()
	u := apptest.NewClient(t, app.url)
	u.Register("own_reader")
	acct, err := app.st.Sessions.UserByName(ctx, "own_reader")
	if err != nil {
		t.Fatal(err)
	}
	for i := range ownWriteTrials {
		for range 2 {
			if err := app.st.Notify.NotifyFollower(ctx, acct.ID, fmt.Sprintf("fan%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		// Made as by another instance: shown once Redis's invalidation
		// has arrived.
		eventually(t, "two unread notifications in the header", func() bool {
			return apptest.TextOf(u.MustGet("/notifications", http.StatusOK).Body, "unread-count") == "2"
		})
		u.MustPost("/notifications/read", url.Values{"follower": {"2"}}, http.StatusSeeOther)
		if got := apptest.TextOf(u.MustGet("/notifications", http.StatusOK).Body, "unread-count"); got != "0" {
			t.Fatalf("trial %d: marked read, the header still counts %q", i, got)
		}
	}
}

// ownSignOut: once signed out, the old cookies replayed at once are an
// anonymous visitor.
func ownSignOut(t *testing.T, app ownApp) {
	u := apptest.NewClient(t, app.url)
	u.Register("own_leaver")
	for i := range ownWriteTrials {
		if i > 0 {
			u.Login("own_leaver", apptest.Password)
		}
		if got := apptest.TextOf(twice(u, "/items").Body, "user-name"); got != "own_leaver" {
			t.Fatalf("trial %d: signed in as %q", i, got)
		}
		sid, user := u.Cookie("sid"), u.Cookie("user")
		u.MustPost("/logout", nil, http.StatusSeeOther)
		replay := apptest.NewClient(t, app.url)
		replay.SetCookie("sid", sid)
		replay.SetCookie("user", user)
		if got := apptest.TextOf(replay.MustGet("/items", http.StatusOK).Body, "user-name"); got != "" {
			t.Fatalf("trial %d: the signed-out cookies replayed at once show %q", i, got)
		}
	}
}

// ownBan: a banned shopper's next page on the instance that banned them
// is signed out.
func ownBan(t *testing.T, app ownApp) {
	admin := apptest.NewClient(t, app.url)
	admin.Login("admin", storetest.AdminPassword)
	for i := range ownWriteTrials {
		name := fmt.Sprintf("own_troll%d", i)
		u := apptest.NewClient(t, app.url)
		u.Register(name)
		if got := apptest.TextOf(twice(u, "/items").Body, "user-name"); got != name {
			t.Fatalf("trial %d: signed in as %q", i, got)
		}
		admin.MustPost("/admin/users/"+name+"/ban", nil, http.StatusSeeOther)
		if got := apptest.TextOf(u.MustGet("/items", http.StatusOK).Body, "user-name"); got != "" {
			t.Fatalf("trial %d: banned, the next page is still signed in as %q", i, got)
		}
	}
}

// ownPasswordChange: a password change signs the account's other
// sessions out at once, and keeps the one that changed it.
func ownPasswordChange(t *testing.T, app ownApp) {
	here := apptest.NewClient(t, app.url)
	here.Register("own_changer")
	current := apptest.Password
	for i := range ownWriteTrials {
		there := apptest.NewClient(t, app.url)
		there.Login("own_changer", current)
		if got := apptest.TextOf(twice(there, "/items").Body, "user-name"); got != "own_changer" {
			t.Fatalf("trial %d: the other device is signed in as %q", i, got)
		}
		next := fmt.Sprintf("password number %d", i)
		here.MustPost("/account/password", url.Values{"current": {current}, "new": {next}}, http.StatusSeeOther)
		current = next
		if got := apptest.TextOf(there.MustGet("/items", http.StatusOK).Body, "user-name"); got != "" {
			t.Fatalf("trial %d: after the change the other device is still signed in as %q", i, got)
		}
		if got := apptest.TextOf(here.MustGet("/items", http.StatusOK).Body, "user-name"); got != "own_changer" {
			t.Fatalf("trial %d: the device that changed it shows %q", i, got)
		}
	}
}

// ownReview: a review posted or edited shows on the item's page it leads
// to, in the list and in the shopper's own form.
func ownReview(t *testing.T, app ownApp) {
	const item = "/items/62"
	u := apptest.NewClient(t, app.url)
	u.Register("own_reviewer")
	eventually(t, "the item page is a hit", func() bool {
		return u.MustGet(item, http.StatusOK).Header.Get("X-Cache") == "HIT"
	})
	for i := range ownWriteTrials {
		twice(u, item)
		text := fmt.Sprintf("Review text number %d", i)
		u.MustPost(item+"/reviews", url.Values{"rating": {strconv.Itoa(1 + i%5)}, "body": {text}}, http.StatusSeeOther)
		body := u.MustGet(item, http.StatusOK).Body
		if strings.Count(body, text) < 2 {
			t.Fatalf("trial %d: the next page shows the new review %d times, want in the list and the form", i, strings.Count(body, text))
		}
	}
}
