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
	author.register("writer")
	reader.register("reader")
	if res := reader.post("/users/writer/follow", url.Values{"dir": {"follow"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("follow: %d", res.Status)
	}
	res := author.post("/articles", url.Values{"title": {"Pipelines in go-redis"}, "link": {"https://example.com/p"}, "groups": {"redis"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("post: %d %s", res.Status, res.Body)
	}
	articlePath := res.Header.Get("Location")
	id := strings.TrimPrefix(articlePath, "/articles/")

	feed := reader.get("/feed")
	if got := testids(feed.Body, "article", "data-article-id"); len(got) != 1 || got[0] != id {
		t.Fatalf("feed articles %v, want [%s]", got, id)
	}
	before := testids(feed.Body, "article", "data-score")[0]
	if before == "" || before == "0" {
		t.Errorf("feed row has no live score: %q", before)
	}

	if res := reader.post(articlePath+"/vote", url.Values{"dir": {"up"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("vote: %d", res.Status)
	}
	if res := reader.post(articlePath+"/comments", url.Values{"body": {"Nice write-up"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("comment: %d %s", res.Status, res.Body)
	}
	feed = reader.get("/feed")
	if got := testids(feed.Body, "article", "data-my-vote"); got[0] != "up" {
		t.Errorf("feed shows my vote %q, want up", got[0])
	}
	if textOf(author.get("/").Body, "unread-count") != "3" { // follower, vote, comment
		t.Errorf("author's unread count %q, want 3", textOf(author.get("/").Body, "unread-count"))
	}
	notes := author.get("/notifications")
	mustContain(t, notes.Body, "reader", "Pipelines in go-redis")
	if got := textOf(author.get("/").Body, "unread-count"); got != "0" {
		t.Errorf("unread after viewing: %q", got)
	}
	profile := reader.get("/users/writer")
	if got := testids(profile.Body, "article", "data-article-id"); len(got) != 1 || got[0] != id {
		t.Errorf("profile articles %v", got)
	}
}
