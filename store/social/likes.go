package social

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// Like modes for SetLike.
const (
	LikeToggle = ""
	LikeOn     = "like"
	LikeOff    = "unlike"
)

// LikeResult is the state after a like or unlike.
type LikeResult struct {
	Liked bool
	Count int64
}

// SetLike likes (LikeOn), unlikes (LikeOff) or toggles (LikeToggle) an
// item for a user; a user likes an item at most once.
//
// The item's set and counter change atomically in the item's slot
// (toggleScript). The
// leaderboard, the latest list and the user's likes counter live in other
// slots, so they follow in a second pipelined step, and only when the
// like really changed. They move by increments (ZINCRBY, HINCRBY), which
// commute: however concurrent toggles interleave, each ends equal to the
// sum of the changes, that is to the item sets. (If the process dies
// between the two steps, the second is lost; the item's own count stays
// right and is what the item page shows.)
func (s *Service) SetLike(ctx context.Context, itemID, userID int64, mode string) (LikeResult, error) {
	if mode != LikeToggle && mode != LikeOn && mode != LikeOff {
		return LikeResult{}, platform.ErrInvalid
	}
	want := map[string]string{LikeOn: "1", LikeOff: "0"}[mode]
	t, err := s.toggle(ctx, toggle{set: keys.ItemLikes(itemID), counts: keys.ItemCounts(itemID), member: userID, want: want, field: "likes"})
	if err != nil {
		return LikeResult{}, fmt.Errorf("like item %d: %w", itemID, err)
	}
	out := LikeResult{Liked: t.now, Count: t.counter}
	change := t.change
	if change == 0 {
		return out, nil
	}
	id := platform.FormatID(itemID)
	pipe := s.rdb.Pipeline()
	pipe.ZIncrBy(ctx, keys.MostLiked, float64(change), id)
	pipe.HIncrBy(ctx, keys.UserCounts(userID), "likes", change)
	if change > 0 {
		pipe.ZAdd(ctx, keys.RecentlyLiked, redis.Z{Score: s.clock.Seconds(), Member: id})
		pipe.ZRemRangeByRank(ctx, keys.RecentlyLiked, 0, -recentlyLikedSize-1)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return out, fmt.Errorf("like item %d: %w", itemID, err)
	}
	return out, nil
}

// LikeBox is what an item page's like box needs: the item's counters,
// and whether the user the cookie claims likes it (the page shows that
// only when the session confirms that user).
type LikeBox struct {
	Counts ItemCounts
	Liked  bool
}

// LikeRead is the queued reads of a like box.
type LikeRead struct {
	counts *redis.SliceCmd
	liked  *redis.BoolCmd
}

// AddLikeBox queues the reads of the item's like box on pipe, so that a
// page (the page cache filling in its per-visitor parts) shares one round
// trip. userID 0 (a guest) reads only the counters.
func AddLikeBox(ctx context.Context, pipe redis.Pipeliner, itemID, userID int64) LikeRead {
	return likeReads(ctx, pipe, itemID, userID)
}

// LikeBoxOf reads the item's like box through c, the client-side caching
// client of a cached page's read.
func LikeBoxOf(ctx context.Context, c redis.Cmdable, itemID, userID int64) (LikeBox, error) {
	r := likeReads(ctx, c, itemID, userID)
	if err := platform.CmdErr(r.counts); err != nil {
		return LikeBox{}, err
	}
	if r.liked != nil {
		if err := platform.CmdErr(r.liked); err != nil {
			return LikeBox{}, err
		}
	}
	return r.Box(), nil
}

func likeReads(ctx context.Context, c redis.Cmdable, itemID, userID int64) LikeRead {
	r := LikeRead{counts: c.HMGet(ctx, keys.ItemCounts(itemID), "views", "likes")}
	if userID > 0 {
		r.liked = c.SIsMember(ctx, keys.ItemLikes(itemID), userID)
	}
	return r
}

// Box is the like box once the pipeline ran.
func (r LikeRead) Box() LikeBox {
	n := platform.Ints(r.counts.Val(), 2)
	return LikeBox{Counts: ItemCounts{Views: n[0], Likes: n[1]}, Liked: r.liked != nil && r.liked.Val()}
}

// LikeState is an item's like count and whether userID likes it, in one
// round trip.
func (s *Service) LikeState(ctx context.Context, itemID, userID int64) (count int64, liked bool, err error) {
	c, liked, err := s.ItemStats(ctx, itemID, userID)
	return c.Likes, liked, err
}

// ItemStats is an item's counters (views, likes) and whether userID likes
// it, in one round trip (both keys are in the item's slot).
func (s *Service) ItemStats(ctx context.Context, itemID, userID int64) (ItemCounts, bool, error) {
	pipe := s.rdb.Pipeline()
	r := AddLikeBox(ctx, pipe, itemID, userID)
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return ItemCounts{}, false, fmt.Errorf("item %d stats: %w", itemID, err)
	}
	b := r.Box()
	return b.Counts, b.Liked, nil
}

// ItemLikes is an item on the "most liked" leaderboard.
type ItemLikes struct {
	ItemID int64
	Likes  int64
}

// LikeBoards returns the n most liked items (most first, ties by id) and
// the n most recently liked items (newest first), in one round trip.
// Items whose likes all went away drop off the leaderboard.
func (s *Service) LikeBoards(ctx context.Context, n int64) ([]ItemLikes, []int64, error) {
	var most *redis.ZSliceCmd
	var recent *redis.StringSliceCmd
	// Shared by every home page and changed only by likes: read through
	// the client-side cache where there is one.
	err := s.reader.Read(ctx, func(c redis.Cmdable) error {
		most = c.ZRevRangeByScoreWithScores(ctx, keys.MostLiked, &redis.ZRangeBy{Min: "(0", Max: "+inf", Count: n})
		recent = c.ZRevRange(ctx, keys.RecentlyLiked, 0, n-1)
		return platform.CmdErr(most, recent)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("like boards: %w", err)
	}
	out := make([]ItemLikes, 0, len(most.Val()))
	for _, z := range most.Val() {
		if ids := platform.ParseIDs([]string{fmt.Sprint(z.Member)}); len(ids) == 1 {
			out = append(out, ItemLikes{ItemID: ids[0], Likes: int64(z.Score)})
		}
	}
	return out, platform.ParseIDs(recent.Val()), nil
}
