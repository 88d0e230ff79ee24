package social_test

import (
	"testing"

	"storefront/store/social"
	"storefront/wiring/wiringtest"
)

// Engagement benchmarks. On real Redis:
//
//	REDIS_URL=redis://127.0.0.1:6379/5 go test ./store/ -run '^$' -bench 'Like|Follow|FanOut|Feed|Unread' -benchtime 2s

func BenchmarkSetLikeToggle(b *testing.B) {
	st := wiringtest.New(b)
	ctx := b.Context()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		u := int64(0)
		for pb.Next() {
			u++
			if _, err := st.Social.SetLike(ctx, 1+u%50, 1+u%1000, social.LikeToggle); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkLikeState(b *testing.B) {
	st := wiringtest.New(b)
	ctx := b.Context()
	if _, err := st.Social.SetLike(ctx, 1, 1, social.LikeOn); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := st.Social.LikeState(ctx, 1, 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFollowUnfollow(b *testing.B) {
	st := wiringtest.New(b)
	ctx := b.Context()
	i := int64(0)
	for b.Loop() {
		i++
		if _, err := st.Social.Follow(ctx, 1, 2+i%100, i%200 < 100); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFanOut1000 posts to 1,000 followers whose feeds exist: the
// inline part of a post (FanOutInline = 1000 by default).
func BenchmarkFanOut1000(b *testing.B) {
	st := wiringtest.New(b)
	ctx := b.Context()
	for f := int64(100); f < 1100; f++ {
		if _, err := st.Social.Follow(ctx, f, 1, true); err != nil {
			b.Fatal(err)
		}
		if _, _, err := st.Social.Feed(ctx, f, 1, 1); err != nil {
			b.Fatal(err)
		}
	}
	id := int64(0)
	b.ResetTimer()
	for b.Loop() {
		id++
		if err := st.Social.FanOutArticle(ctx, 1, id, float64(1_700_000_000+id)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/follower")
}

func BenchmarkFeedPage(b *testing.B) {
	st := wiringtest.New(b)
	ctx := b.Context()
	if _, err := st.Social.Follow(ctx, 1, 2, true); err != nil {
		b.Fatal(err)
	}
	for id := int64(1); id <= 100; id++ {
		if err := st.Social.RecordPost(ctx, social.FeedEntry{ArticleID: id, AuthorID: 2, AuthorName: "two", Title: "t", Link: "https://e.x/", PostedAt: float64(id)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := st.Social.FeedPage(ctx, 1, 2, 25); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadSessionWithUnread is the per-request session read with
// the header's unread count folded into the same round trip.
func BenchmarkLoadSessionWithUnread(b *testing.B) {
	st := wiringtest.New(b)
	ctx := b.Context()
	if _, err := st.Sessions.SignIn(ctx, "", "tok", 7); err != nil {
		b.Fatal(err)
	}
	if err := st.Notify.NotifyFollower(ctx, 7, "x"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.Sessions.LoadSession(ctx, "tok", 7); err != nil {
			b.Fatal(err)
		}
	}
}
