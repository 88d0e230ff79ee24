package apptest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"storefront/handlers/apptest"
	"storefront/store/social"
)

// TestBrowserEngagement likes an item, follows a writer and reads their
// posts in the feed, then gets and reads a notification.
func TestBrowserEngagement(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"REGISTER_RATE": "0", "LOGIN_RATE": "0"})
	tb := b.tab(app)
	suffix := fmt.Sprintf("%d", time.Now().UnixNano()%1_000_000)
	reader, writer := "reader"+suffix, "writer"+suffix

	// The writer exists and has posted once before the reader comes;
	// posting articles is not a route of this feature, so the store does it.
	w, err := app.Store.Sessions.CreateUser(t.Context(), writer, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	publish := func(id int64, title string) {
		t.Helper()
		err := app.Store.Social.RecordPost(t.Context(), social.FeedEntry{ArticleID: id, AuthorID: w.ID, AuthorName: writer,
			Title: title, Link: "https://example.com/" + fmt.Sprint(id)})
		if err != nil {
			t.Fatal(err)
		}
	}
	publish(9001, "Before you followed")

	tb.navigate("/register")
	tb.typeInto("#username", reader)
	tb.typeInto("#password", "correct horse battery")
	tb.typeInto("#email", apptest.Email(reader))
	tb.click(`form[action="/register"] button[type=submit]`)
	tb.waitFor(`[data-testid=user-name]`)

	// Like an item: engage.js updates the count in place (the marker
	// survives: the page was not reloaded).
	tb.navigate("/items/5")
	tb.waitFor(`[data-testid=like-box][data-liked="false"]`)
	eval[bool](tb, `window.notReloaded = true`)
	tb.click(`[data-testid=like-box] button`)
	tb.waitFor(`[data-testid=like-box][data-liked="true"]`)
	if got := tb.text(`[data-testid=like-count]`); got != "1" {
		t.Errorf("like count %q after liking", got)
	}
	if !eval[bool](tb, `window.notReloaded === true`) {
		t.Error("liking reloaded the page: engage.js did not handle it")
	}
	tb.screenshot("item-liked")
	tb.navigate("/")
	tb.waitFor(`[data-testid=most-liked] li[data-item-id="5"]`)

	// Follow the writer: their post shows up in the feed at once, and new
	// posts arrive by fan-out.
	tb.navigate("/users/" + writer)
	tb.click(`[data-testid=follow-button]`)
	tb.waitFor(`[data-testid=follow-button][aria-pressed="true"]`)
	if got := tb.text(`[data-testid=followers-count]`); got != "1" {
		t.Errorf("followers %q after following", got)
	}
	tb.screenshot("profile")
	publish(9002, "After you followed")
	tb.navigate("/feed")
	tb.waitFor(`[data-testid=article][data-article-id="9002"]`)
	if ids := tb.attrs(`[data-testid=article]`, "data-article-id"); strings.Join(ids, ",") != "9002,9001" {
		t.Errorf("feed %v, want newest first [9002 9001]", ids)
	}
	tb.screenshot("feed")

	// The writer follows back: the reader sees a notification count,
	// reads it, and the count clears.
	r, err := app.Store.Sessions.UserByName(t.Context(), reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.Social.Follow(t.Context(), w.ID, r.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := app.Store.Notify.NotifyFollower(t.Context(), r.ID, writer); err != nil {
		t.Fatal(err)
	}
	tb.navigate("/")
	tb.waitFor(`[data-testid=unread-count]`)
	if got := tb.text(`[data-testid=unread-count]`); got != "1" {
		t.Errorf("unread %q, want 1", got)
	}
	tb.click(`a[href="/notifications"]`)
	tb.waitFor(`[data-testid=notification][data-kind=follower][data-unread="true"]`)
	if got := tb.text(`[data-testid=unread-count]`); got != "1" {
		t.Errorf("unread %q on the notifications page, want 1 (showing marks nothing read)", got)
	}
	tb.screenshot("notifications")
	tb.click(`[data-testid=mark-read] button`)
	tb.waitFor(`[data-testid=notification][data-kind=follower][data-unread="false"]`)
	if got := tb.text(`[data-testid=unread-count]`); got != "0" {
		t.Errorf("unread %q after marking read, want 0", got)
	}
}
