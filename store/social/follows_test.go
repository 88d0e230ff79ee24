package social_test

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/social"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// checkFollowConsistent asserts that both sides of every follow agree and
// that the counters equal the sets, for the given users.
func checkFollowConsistent(t *testing.T, st *wiring.Services, users ...int64) {
	t.Helper()
	ctx := t.Context()
	rdb := st.Redis()
	for _, u := range users {
		c, err := st.Social.UserCounts(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if n := rdb.ZCard(ctx, keys.Following(u)).Val(); n != c.Following {
			t.Errorf("user %d: following counter %d, set %d", u, c.Following, n)
		}
		if n := rdb.ZCard(ctx, keys.Followers(u)).Val(); n != c.Followers {
			t.Errorf("user %d: followers counter %d, set %d", u, c.Followers, n)
		}
		for _, v := range rdb.ZRange(ctx, keys.Following(u), 0, -1).Val() {
			if rdb.ZScore(ctx, keys.Followers(mustID(t, v)), strconv.FormatInt(u, 10)).Err() != nil {
				t.Errorf("%d follows %s, but is not among their followers", u, v)
			}
		}
		for _, v := range rdb.ZRange(ctx, keys.Followers(u), 0, -1).Val() {
			if rdb.ZScore(ctx, keys.Following(mustID(t, v)), strconv.FormatInt(u, 10)).Err() != nil {
				t.Errorf("%s is among %d's followers but does not follow them", v, u)
			}
		}
	}
}

func TestFollowAndUnfollow(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	follow := func(a, b int64, on bool) social.FollowResult {
		t.Helper()
		r, err := st.Social.Follow(ctx, a, b, on)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := follow(1, 2, true); !r.Following || !r.Changed || r.Followers != 1 {
		t.Errorf("first follow: %+v", r)
	}
	if r := follow(1, 2, true); !r.Following || r.Changed || r.Followers != 1 {
		t.Errorf("second follow: %+v", r)
	}
	follow(3, 2, true)
	follow(1, 3, true)
	if ok, _ := st.Social.IsFollowing(ctx, 1, 2); !ok {
		t.Error("1 should follow 2")
	}
	if ok, _ := st.Social.IsFollowing(ctx, 2, 1); ok {
		t.Error("2 does not follow 1")
	}
	c := storetest.Must(st.Social.UserCounts(ctx, 2))(t)
	if c.Followers != 2 || c.Following != 0 {
		t.Errorf("user 2 counts %+v", c)
	}
	c = storetest.Must(st.Social.UserCounts(ctx, 1))(t)
	if c.Followers != 0 || c.Following != 2 {
		t.Errorf("user 1 counts %+v", c)
	}
	if r := follow(1, 2, false); r.Following || !r.Changed || r.Followers != 1 {
		t.Errorf("unfollow: %+v", r)
	}
	if r := follow(1, 2, false); r.Changed {
		t.Errorf("second unfollow changed something: %+v", r)
	}
	if _, err := st.Social.Follow(ctx, 4, 4, true); !errors.Is(err, platform.ErrInvalid) {
		t.Errorf("self-follow: %v, want ErrInvalid", err)
	}
	if n := storetest.Must(st.Redis().Exists(ctx, keys.Following(4), keys.Followers(4), keys.UserCounts(4)).Result())(t); n != 0 {
		t.Errorf("a refused self-follow left %d keys", n)
	}
	checkFollowConsistent(t, st, 1, 2, 3, 4)
}

func TestFollowConcurrent(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	var wg sync.WaitGroup
	// One pair flips back and forth from many goroutines at once, while
	// 50 users follow user 100 and user 1 follows 20 people.
	for i := range 50 {
		wg.Go(func() {
			if _, err := st.Social.Follow(ctx, 1, 2, i%2 == 0); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if _, err := st.Social.Follow(ctx, int64(200+i), 100, true); err != nil {
				t.Error(err)
			}
		})
		if i < 20 {
			wg.Go(func() {
				if _, err := st.Social.Follow(ctx, 1, int64(300+i), true); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	c := storetest.Must(st.Social.UserCounts(ctx, 100))(t)
	if c.Followers != 50 {
		t.Errorf("user 100 has %d followers, want 50", c.Followers)
	}
	users := []int64{1, 2, 100}
	for i := range 50 {
		users = append(users, int64(200+i))
	}
	checkFollowConsistent(t, st, users...)
}

func TestCommonFollows(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	follow := func(a int64, bs ...int64) {
		for _, b := range bs {
			if _, err := st.Social.Follow(ctx, a, b, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Both follow 100001 only.
	follow(1, 11, 12, 13)
	follow(2, 11, 15, 14)
	got, err := st.Social.CommonFollows(ctx, 1, 2, 50)
	if err != nil || !slices.Equal(got, []int64{11}) {
		t.Errorf("common follows = %v (%v), want [11]", got, err)
	}
	if got, _ := st.Social.CommonFollows(ctx, 1, 3, 50); len(got) != 0 {
		t.Errorf("with nobody: %v", got)
	}
	// Larger sets, walked in chunks: 1 follows 1000..3499, 2 follows
	// every third of 2000..4999.
	for b := int64(1000); b < 3500; b++ {
		follow(1, b)
	}
	var want []int64
	want = append(want, 11)
	for b := int64(2000); b < 5000; b += 3 {
		follow(2, b)
		if b < 3500 {
			want = append(want, b)
		}
	}
	got, err = st.Social.CommonFollows(ctx, 2, 1, 10_000)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("common follows: %d ids (%v), want %d", len(got), err, len(want))
	}
	if got, _ := st.Social.CommonFollows(ctx, 1, 2, 5); len(got) != 5 {
		t.Errorf("limit 5 gave %d", len(got))
	}
}

func mustID(t *testing.T, s string) int64 {
	t.Helper()
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
