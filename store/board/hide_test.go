package board_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"storefront/store/board"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/wiring/wiringtest"
)

// redisState is every key in Redis with its contents as text, except the
// moderation lists (which the hide adds to and the unhide empties): what
// hiding and unhiding must leave exactly as it was.
func redisState(t *testing.T, rdb redis.UniversalClient) map[string]string {
	t.Helper()
	ctx := t.Context()
	out := map[string]string{}
	var (
		mu sync.Mutex // a Cluster's masters answer at the same time
		ks []string
	)
	err := forEachMaster(ctx, rdb, func(ctx context.Context, c *redis.Client) error {
		found, err := c.Keys(ctx, "*").Result()
		mu.Lock()
		ks = append(ks, found...)
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		if k == keys.HiddenArticles || k == keys.HiddenComments {
			continue
		}
		var v any
		switch typ := rdb.Type(ctx, k).Val(); typ {
		case "string":
			v = rdb.Get(ctx, k).Val()
		case "hash":
			v = rdb.HGetAll(ctx, k).Val()
		case "list":
			v = rdb.LRange(ctx, k, 0, -1).Val()
		case "set":
			m := rdb.SMembers(ctx, k).Val()
			sort.Strings(m)
			v = m
		case "zset":
			v = rdb.ZRangeWithScores(ctx, k, 0, -1).Val()
		default:
			v = typ
		}
		out[k] = fmt.Sprint(v)
	}
	return out
}

// forEachMaster runs f on every master of a Cluster, or on the one server.
func forEachMaster(ctx context.Context, rdb redis.UniversalClient, f func(context.Context, *redis.Client) error) error {
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, f)
	}
	return f(ctx, rdb.(*redis.Client))
}

func diffState(before, after map[string]string) []string {
	var out []string
	for k, v := range before {
		if after[k] != v {
			out = append(out, fmt.Sprintf("%s: %s -> %s", k, v, after[k]))
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			out = append(out, fmt.Sprintf("%s: new %s", k, v))
		}
	}
	sort.Strings(out)
	return out
}

// TestHideThenUnhideRestoresEverything: hiding an article and a comment
// and showing them again leaves every key as it was (listings, scores,
// group sets and cached group listings, the article's hash, the comment's
// stored bytes and the count, the feed entry, followers' feeds, the
// author's posts and counters), and the listings read the same.
func TestHideThenUnhideRestoresEverything(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	us := users(t, st, "mod", 4)
	poster, fan, critic := us[0], us[1], us[2]
	if _, err := st.Social.Follow(ctx, fan.ID, poster.ID, true); err != nil {
		t.Fatal(err)
	}
	older := post(t, st, critic, "older", "making")
	a := post(t, st, poster, "target", "making", "care")
	post(t, st, poster, "newer", "care")
	vote(t, st, a.ID, critic, "down")
	vote(t, st, older.ID, us[3], "up")
	for _, body := range []string{"fine", "rude"} {
		if _, err := st.Board.AddComment(ctx, a.ID, critic.ID, critic.Username, body); err != nil {
			t.Fatal(err)
		}
	}
	listings := func() string {
		var parts []string
		for _, q := range []board.ArticleQuery{{Sort: board.SortTop}, {Sort: board.SortNew}, {Sort: board.SortTop, Group: "making"},
			{Sort: board.SortNew, Group: "making"}, {Sort: board.SortTop, Group: "care"}} {
			q.Page, q.PerPage = 1, 10
			p, err := st.Board.Articles(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, x := range p.Articles {
				ids = append(ids, fmt.Sprintf("%d:%v:%d", x.ID, x.Score, x.Comments))
			}
			parts = append(parts, fmt.Sprintf("%s/%s %d [%s]", q.Group, q.Sort, p.Total, strings.Join(ids, " ")))
		}
		feed, total, err := st.Social.FeedPage(ctx, fan.ID, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, fmt.Sprintf("feed %d %v", total, feed))
		return strings.Join(parts, "\n")
	}
	seen := listings() // builds the cached group listings and the feed
	before := redisState(t, st.Redis())

	if _, err := st.Board.HideArticle(ctx, a.ID, "admin"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Board.HideComment(ctx, a.ID, 2); err != nil {
		t.Fatal(err)
	}
	if hidden := listings(); hidden == seen || strings.Contains(hidden, fmt.Sprintf(" %d:", a.ID)) {
		t.Fatalf("hiding changed no listing:\n%s", hidden)
	}
	arts, n, err := st.Board.HiddenArticles(ctx, 10)
	if err != nil || n != 1 || len(arts) != 1 || arts[0].ID != a.ID || arts[0].HiddenBy != "admin" {
		t.Fatalf("hidden articles %+v (%d) %v", arts, n, err)
	}
	comments, n, err := st.Board.HiddenComments(ctx, 10)
	if err != nil || n != 1 || len(comments) != 1 || comments[0].ID != 2 || comments[0].Body != "rude" || comments[0].ArticleTitle != "target" {
		t.Fatalf("hidden comments %+v (%d) %v", comments, n, err)
	}

	if _, err := st.Board.UnhideComment(ctx, a.ID, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Board.UnhideArticle(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if d := diffState(before, redisState(t, st.Redis())); len(d) > 0 {
		t.Errorf("unhiding left Redis different:\n%s", strings.Join(d, "\n"))
	}
	if again := listings(); again != seen {
		t.Errorf("listings after unhiding:\n%s\nwant\n%s", again, seen)
	}
	if _, n, _ := st.Board.HiddenArticles(ctx, 10); n != 0 {
		t.Errorf("%d hidden articles left", n)
	}
	if _, n, _ := st.Board.HiddenComments(ctx, 10); n != 0 {
		t.Errorf("%d hidden comments left", n)
	}
	// Unhiding what is not hidden changes nothing; missing ones are not found.
	if _, err := st.Board.UnhideArticle(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Board.UnhideComment(ctx, a.ID, 1); err != nil {
		t.Fatal(err)
	}
	if d := diffState(before, redisState(t, st.Redis())); len(d) > 0 {
		t.Errorf("a second unhide changed:\n%s", strings.Join(d, "\n"))
	}
	for _, err := range []error{
		func() error { _, err := st.Board.UnhideArticle(ctx, 99999); return err }(),
		func() error { _, err := st.Board.UnhideComment(ctx, a.ID, 9); return err }(),
	} {
		if err != platform.ErrNotFound {
			t.Errorf("unhide a missing one: %v", err)
		}
	}
}
