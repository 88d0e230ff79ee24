package handlers_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/store/ratelimit"
)

// TestFollowAndLikeRates: follow/unfollow and like/unlike cycles stop at
// FOLLOW_RATE and LIKE_RATE with 429 and Retry-After, and the refused
// requests change nothing (no further notifications either).
func TestFollowAndLikeRates(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) {
		c.Rates.Follow = ratelimit.Rate{{N: 4, Per: time.Minute}}
		c.Rates.Like = ratelimit.Rate{{N: 3, Per: time.Minute}}
	})
	alice, bob := a.client(), a.client()
	alice.Register("alice")
	bob.Register("bob")
	dirs := []string{"follow", "unfollow"}
	for i := range 4 {
		if res := alice.Post("/users/bob/follow", url.Values{"dir": {dirs[i%2]}}); res.Status != 303 {
			t.Fatalf("follow %d: %d", i, res.Status)
		}
	}
	res := alice.Post("/users/bob/follow", url.Values{"dir": {"follow"}})
	if res.Status != 429 || res.Header.Get("Retry-After") == "" || !strings.Contains(res.Body, "following and unfollowing") {
		t.Fatalf("fifth follow: %d %q", res.Status, res.Header.Get("Retry-After"))
	}
	if n, err := a.store.Social.UserCounts(t.Context(), a.userID("bob")); err != nil || n.Followers != 0 {
		t.Errorf("refused follow changed bob's followers: %+v (%v)", n, err)
	}
	likes := []string{"like", "unlike"}
	for i := range 3 {
		if res := alice.Post("/items/5/like", url.Values{"dir": {likes[i%2]}}); res.Status != 303 {
			t.Fatalf("like %d: %d", i, res.Status)
		}
	}
	res = alice.postJSON("/items/5/like", url.Values{"dir": {"unlike"}}, nil)
	if res.Status != 429 || res.Header.Get("Retry-After") == "" {
		t.Fatalf("fourth like: %d %s", res.Status, res.Body)
	}
	if got := textOf(alice.Get("/items/5").Body, "like-count"); got != "1" {
		t.Errorf("like count %q after a refused unlike, want 1", got)
	}
	// Bob has his own budget.
	if res := bob.Post("/items/5/like", url.Values{"dir": {"like"}}); res.Status != 303 {
		t.Errorf("bob's like: %d", res.Status)
	}
}
