package social_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"storefront/store/keys"
	"storefront/store/social"
	"storefront/store/storetest"
	"storefront/store/workers"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// post records article id by author at a time that grows with id.
func feedPost(t *testing.T, st *wiring.Services, author, id int64) {
	t.Helper()
	err := st.Social.RecordPost(t.Context(), social.FeedEntry{
		ArticleID: id, AuthorID: author, AuthorName: fmt.Sprintf("user%d", author),
		Title: fmt.Sprintf("Article %d", id), Link: "https://example.com/" + fmt.Sprint(id),
		PostedAt: float64(1_700_000_000 + id),
	})
	if err != nil {
		t.Fatal(err)
	}
}

func feedIDs(t *testing.T, st *wiring.Services, user int64, page, per int) ([]int64, int64) {
	t.Helper()
	ids, total, err := st.Social.Feed(t.Context(), user, page, per)
	if err != nil {
		t.Fatal(err)
	}
	return ids, total
}

func mustFollow(t *testing.T, st *wiring.Services, a, b int64, on bool) {
	t.Helper()
	if _, err := st.Social.Follow(t.Context(), a, b, on); err != nil {
		t.Fatal(err)
	}
}

func TestFeedOrderAndPages(t *testing.T) {
	st := wiringtest.New(t)
	mustFollow(t, st, 1, 2, true)
	mustFollow(t, st, 1, 3, true)
	feedIDs(t, st, 1, 1, 10) // the reader's feed exists from now on
	for id := int64(1); id <= 7; id++ {
		feedPost(t, st, 2+id%2, id) // 2 and 3 take turns
	}
	feedPost(t, st, 4, 8) // not followed
	ids, total := feedIDs(t, st, 1, 1, 3)
	if total != 7 || !slices.Equal(ids, []int64{7, 6, 5}) {
		t.Errorf("page 1: %v of %d, want [7 6 5] of 7", ids, total)
	}
	if ids, _ := feedIDs(t, st, 1, 3, 3); !slices.Equal(ids, []int64{1}) {
		t.Errorf("page 3: %v, want [1]", ids)
	}
	if ids, _ := feedIDs(t, st, 1, 4, 3); len(ids) != 0 {
		t.Errorf("past the end: %v", ids)
	}
	entries, _, err := st.Social.FeedPage(t.Context(), 1, 1, 1)
	if err != nil || len(entries) != 1 {
		t.Fatalf("feed page: %v %v", entries, err)
	}
	e := entries[0]
	if e.ArticleID != 7 || e.AuthorID != 3 || e.AuthorName != "user3" || e.Title != "Article 7" || e.PostedAt != 1_700_000_007 {
		t.Errorf("entry %+v", e)
	}
	c := storetest.Must(st.Social.UserCounts(t.Context(), 3))(t)
	if c.Posts != 4 {
		t.Errorf("user 3 posted 4, counter says %d", c.Posts)
	}
	feedPost(t, st, 3, 7) // recording twice changes nothing
	if c := storetest.Must(st.Social.UserCounts(t.Context(), 3))(t); c.Posts != 4 {
		t.Errorf("recording again counted again: %d", c.Posts)
	}
}

func TestFeedFollowUnfollow(t *testing.T) {
	st := wiringtest.New(t)
	feedPost(t, st, 2, 1) // before anyone follows 2
	mustFollow(t, st, 1, 2, true)
	// Following backfills; the first read builds the feed.
	if ids, _ := feedIDs(t, st, 1, 1, 10); !slices.Equal(ids, []int64{1}) {
		t.Errorf("after follow: %v, want [1]", ids)
	}
	feedPost(t, st, 2, 2)
	if ids, _ := feedIDs(t, st, 1, 1, 10); !slices.Equal(ids, []int64{2, 1}) {
		t.Errorf("new post: %v, want [2 1]", ids)
	}
	mustFollow(t, st, 1, 2, false)
	feedPost(t, st, 2, 3)
	if ids, _ := feedIDs(t, st, 1, 1, 10); len(ids) != 0 {
		t.Errorf("after unfollow: %v, want nothing", ids)
	}
	mustFollow(t, st, 1, 2, true)
	if ids, _ := feedIDs(t, st, 1, 1, 10); !slices.Equal(ids, []int64{3, 2, 1}) {
		t.Errorf("after following again: %v, want [3 2 1]", ids)
	}
}

func TestFeedCappedAndRebuilt(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.FeedSize = 5; o.FeedTTL = time.Hour })
	ctx := t.Context()
	mustFollow(t, st, 1, 2, true)
	mustFollow(t, st, 1, 3, true)
	feedIDs(t, st, 1, 1, 1)
	for id := int64(1); id <= 8; id++ {
		feedPost(t, st, 2+id%2, id)
	}
	ids, total := feedIDs(t, st, 1, 1, 10)
	if total != 5 || !slices.Equal(ids, []int64{8, 7, 6, 5, 4}) {
		t.Errorf("capped feed %v (%d), want [8 7 6 5 4]", ids, total)
	}
	if ttl := st.Redis().TTL(ctx, keys.Feed(1)).Val(); ttl <= 0 || ttl > time.Hour {
		t.Errorf("feed TTL %v, want up to an hour", ttl)
	}
	// An idle feed expires; posts meanwhile are not written to it, and
	// the next read rebuilds it from the people followed.
	st.Redis().Del(ctx, keys.Feed(1))
	feedPost(t, st, 2, 10)
	if n := storetest.Must(st.Redis().Exists(ctx, keys.Feed(1)).Result())(t); n != 0 {
		t.Error("fan-out recreated an expired feed")
	}
	if ids, _ := feedIDs(t, st, 1, 1, 10); !slices.Equal(ids, []int64{10, 8, 7, 6, 5}) {
		t.Errorf("rebuilt feed %v, want [10 8 7 6 5]", ids)
	}
	// A reader who follows nobody gets an empty feed that is still built.
	if ids, total := feedIDs(t, st, 9, 1, 10); len(ids) != 0 || total != 0 {
		t.Errorf("nobody followed: %v %d", ids, total)
	}
}

func TestFanOutQueueForManyFollowers(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.FanOutInline = 4; o.FanOutChunk = 3 })
	ctx := t.Context()
	// A frozen clock gives every follow the same time: the queue's cursor
	// must cope with ties.
	frozen := time.Now()
	st.SetClock(func() time.Time { return frozen })
	const followers = 17
	for f := int64(100); f < 100+followers; f++ {
		mustFollow(t, st, f, 1, true)
		feedIDs(t, st, f, 1, 1)
	}
	feedPost(t, st, 1, 42)
	reached := func() int {
		n := 0
		for f := int64(100); f < 100+followers; f++ {
			if ids, _ := feedIDs(t, st, f, 1, 1); slices.Equal(ids, []int64{42}) {
				n++
			}
		}
		return n
	}
	if got := reached(); got != 4 {
		t.Errorf("inline fan-out reached %d, want 4", got)
	}
	if n, _ := st.Social.QueuedFanOuts(ctx); n != 1 {
		t.Errorf("%d jobs queued, want 1", n)
	}
	steps, err := st.Social.RunFanOut(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := 5; steps != want { // 13 followers left, 3 a step: 3+3+3+3+1
		t.Errorf("%d steps, want %d", steps, want)
	}
	if got := reached(); got != followers {
		t.Errorf("after the queue: %d feeds, want %d", got, followers)
	}
	if n, _ := st.Social.QueuedFanOuts(ctx); n != 0 {
		t.Errorf("%d jobs left", n)
	}
}

func TestFanOutWorkerDrainsQueue(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.FanOutInline = 1; o.FanOutChunk = 2 })
	for f := int64(10); f < 15; f++ {
		mustFollow(t, st, f, 1, true)
		feedIDs(t, st, f, 1, 1)
	}
	feedPost(t, st, 1, 5)
	var w workers.Worker
	for _, x := range st.Workers() {
		if x.Name() == "fanout" {
			w = x
		}
	}
	if w == nil {
		t.Fatal("no fanout worker")
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	storetest.Eventually(t, func() bool {
		n, err := st.Social.QueuedFanOuts(t.Context())
		if err != nil {
			t.Fatal(err) // an error is not an empty queue
		}
		return n == 0
	}, "the fan-out queue drained")
	cancel()
	<-done
	for f := int64(10); f < 15; f++ {
		if ids, _ := feedIDs(t, st, f, 1, 1); !slices.Equal(ids, []int64{5}) {
			t.Errorf("follower %d: %v", f, ids)
		}
	}
}
