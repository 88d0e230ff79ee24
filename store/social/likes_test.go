package social_test

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/social"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// checkLikes asserts that every view of one item's likes agrees: the set,
// the item's counter, the leaderboard, and (for the users given) the
// users' likes counters.
func checkLikes(t *testing.T, st *wiring.Services, itemID int64, want int64, users ...int64) {
	t.Helper()
	ctx := t.Context()
	rdb := st.Redis()
	if n := rdb.SCard(ctx, keys.ItemLikes(itemID)).Val(); n != want {
		t.Errorf("SCARD likes = %d, want %d", n, want)
	}
	count, _, err := st.Social.LikeState(ctx, itemID, 0)
	if err != nil || count != want {
		t.Errorf("like count = %d (%v), want %d", count, err, want)
	}
	if score := rdb.ZScore(ctx, keys.MostLiked, strconv.FormatInt(itemID, 10)).Val(); int64(score) != want {
		t.Errorf("most-liked score = %v, want %d", score, want)
	}
	for _, u := range users {
		c, err := st.Social.UserCounts(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		liked := rdb.SIsMember(ctx, keys.ItemLikes(itemID), u).Val()
		if (c.Likes == 1) != liked || c.Likes < 0 || c.Likes > 1 {
			t.Errorf("user %d: likes counter %d, in set %v", u, c.Likes, liked)
		}
	}
}

func TestLikeModes(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	steps := []struct {
		mode  string
		liked bool
		count int64
	}{
		{social.LikeOn, true, 1},
		{social.LikeOn, true, 1}, // one like per user
		{social.LikeOff, false, 0},
		{social.LikeOff, false, 0},
		{social.LikeToggle, true, 1},
		{social.LikeToggle, false, 0},
	}
	for i, s := range steps {
		r, err := st.Social.SetLike(ctx, 3, 7, s.mode)
		if err != nil {
			t.Fatal(err)
		}
		if r.Liked != s.liked || r.Count != s.count {
			t.Errorf("step %d (%q): got %+v, want liked=%v count=%d", i, s.mode, r, s.liked, s.count)
		}
	}
	if _, err := st.Social.SetLike(ctx, 3, 7, "love"); !errors.Is(err, platform.ErrInvalid) {
		t.Errorf("bad mode: %v, want ErrInvalid", err)
	}
	checkLikes(t, st, 3, 0, 7)
}

func TestLikeToggleConcurrentOneUser(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	const n = 50
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := st.Social.SetLike(ctx, 9, 1, social.LikeToggle); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// 50 atomic toggles from "not liked" end where they began.
	checkLikes(t, st, 9, 0, 1)

	// Random likes and unlikes end either way, but never counted twice.
	for range n {
		wg.Go(func() {
			mode := social.LikeOn
			if rand.IntN(2) == 0 {
				mode = social.LikeOff
			}
			if _, err := st.Social.SetLike(ctx, 9, 1, mode); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	count, liked, err := st.Social.LikeState(ctx, 9, 1)
	if err != nil || count > 1 || liked != (count == 1) {
		t.Fatalf("count %d liked %v err %v", count, liked, err)
	}
	checkLikes(t, st, 9, count, 1)
}

func TestLikesFromManyUsers(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	const n = 50
	users := make([]int64, n)
	var wg sync.WaitGroup
	for i := range n {
		users[i] = int64(100 + i)
		wg.Go(func() {
			if _, err := st.Social.SetLike(ctx, 4, users[i], social.LikeOn); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	checkLikes(t, st, 4, n, users...)
	_, liked, err := st.Social.LikeState(ctx, 4, 100)
	if err != nil || !liked {
		t.Errorf("user 100 should like item 4: %v %v", liked, err)
	}
	_, liked, _ = st.Social.LikeState(ctx, 4, 99)
	if liked {
		t.Error("user 99 never liked item 4")
	}
}

func TestLikeBoards(t *testing.T) {
	st := wiringtest.New(t)
	wiringtest.Ticking(st)
	ctx := t.Context()
	like := func(item, user int64, mode string) {
		t.Helper()
		if _, err := st.Social.SetLike(ctx, item, user, mode); err != nil {
			t.Fatal(err)
		}
	}
	for u := int64(1); u <= 3; u++ {
		like(20, u, social.LikeOn)
	}
	like(10, 1, social.LikeOn)
	like(30, 1, social.LikeOn)
	like(30, 2, social.LikeOn)
	like(40, 1, social.LikeOn)
	like(40, 1, social.LikeOff) // no likes left: off the leaderboard
	most, recent, err := st.Social.LikeBoards(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []social.ItemLikes{{ItemID: 20, Likes: 3}, {ItemID: 30, Likes: 2}, {ItemID: 10, Likes: 1}}
	if len(most) != len(want) {
		t.Fatalf("most liked %+v, want %+v", most, want)
	}
	for i := range want {
		if most[i] != want[i] {
			t.Errorf("most liked[%d] = %+v, want %+v", i, most[i], want[i])
		}
	}
	// Newest first; an unlike does not make an item "recently liked".
	if len(recent) != 4 || recent[0] != 40 || recent[1] != 30 || recent[2] != 10 || recent[3] != 20 {
		t.Errorf("recently liked %v, want [40 30 10 20]", recent)
	}
}

func TestItemViewsCounted(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	if err := st.Sessions.NewSessionView(ctx, "tok", 5); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := st.Sessions.UpdateToken(ctx, "tok", true, 5); err != nil {
			t.Fatal(err)
		}
	}
	c, _, err := st.Social.ItemStats(ctx, 5, 0)
	if err != nil || c.Views != 3 {
		t.Errorf("views = %d (%v), want 3", c.Views, err)
	}
}
