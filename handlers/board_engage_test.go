package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestArticlesReachFeedsAndNotifyAuthors drives the board and engagement
// together through the router: a post reaches a follower's feed with its
// live score, and votes and comments raise the author's unread counts.
func TestArticlesReachFeedsAndNotifyAuthors(t *testing.T) {
	a := newApp(t, nil, nil)
	author, reader := a.client(), a.client()
	author.Register("writer")
	reader.Register("reader")
	if res := reader.Post("/users/writer/follow", url.Values{"dir": {"follow"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("follow: %d", res.Status)
	}
	res := author.Post("/articles", url.Values{"title": {"Pipelines in go-redis"}, "link": {"https://example.com/p"}, "groups": {"making"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("post: %d %s", res.Status, res.Body)
	}
	articlePath := res.Header.Get("Location")
	id := strings.TrimPrefix(articlePath, "/articles/")

	feed := reader.Get("/feed")
	if got := testids(feed.Body, "article", "data-article-id"); len(got) != 1 || got[0] != id {
		t.Fatalf("feed articles %v, want [%s]", got, id)
	}
	before := testids(feed.Body, "article", "data-score")[0]
	if before == "" || before == "0" {
		t.Errorf("feed row has no live score: %q", before)
	}

	if res := reader.Post(articlePath+"/vote", url.Values{"dir": {"up"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("vote: %d", res.Status)
	}
	if res := reader.Post(articlePath+"/comments", url.Values{"body": {"Nice write-up"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("comment: %d %s", res.Status, res.Body)
	}
	feed = reader.Get("/feed")
	if got := testids(feed.Body, "article", "data-my-vote"); got[0] != "up" {
		t.Errorf("feed shows my vote %q, want up", got[0])
	}
	if textOf(author.Get("/").Body, "unread-count") != "3" { // follower, vote, comment
		t.Errorf("author's unread count %q, want 3", textOf(author.Get("/").Body, "unread-count"))
	}
	notes := author.Get("/notifications")
	mustContain(t, notes.Body, "reader", "Pipelines in go-redis")
	if got := textOf(author.Get("/").Body, "unread-count"); got != "3" {
		t.Errorf("unread after viewing: %q, want 3 (showing marks nothing read)", got)
	}
	author.Post("/notifications/read", formFields(notes.Body, "mark-read"))
	if got := textOf(author.Get("/").Body, "unread-count"); got != "0" {
		t.Errorf("unread after marking read: %q", got)
	}
	profile := reader.Get("/users/writer")
	if got := testids(profile.Body, "article", "data-article-id"); len(got) != 1 || got[0] != id {
		t.Errorf("profile articles %v", got)
	}
}
