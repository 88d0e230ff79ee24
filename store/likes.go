package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

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

// likeScript changes one user's like of one item and the item's like
// counter together, so that the counter always equals SCARD of the set.
// Both keys carry the item's hash tag. It returns {liked, count, change}
// where change is +1, -1 or 0.
var likeScript = redis.NewScript(`
local set, counts, user, mode = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local has = redis.call('SISMEMBER', set, user) == 1
local want = (mode == 'like') or (mode == '' and not has)
local change = 0
if want and not has then
  redis.call('SADD', set, user)
  redis.call('HINCRBY', counts, 'likes', 1)
  change = 1
elseif has and not want then
  redis.call('SREM', set, user)
  redis.call('HINCRBY', counts, 'likes', -1)
  change = -1
end
local count = tonumber(redis.call('HGET', counts, 'likes') or '0')
return {want and 1 or 0, count, change}`)

// LikeResult is the state after a like or unlike.
type LikeResult struct {
	Liked bool
	Count int64
}

// SetLike likes (LikeOn), unlikes (LikeOff) or toggles (LikeToggle) an
// item for a user; a user likes an item at most once.
//
// The item's set and counter change atomically in the item's slot. The
// leaderboard, the latest list and the user's likes counter live in other
// slots, so they follow in a second pipelined step, and only when the
// like really changed. They move by increments (ZINCRBY, HINCRBY), which
// commute: however concurrent toggles interleave, each ends equal to the
// sum of the changes, that is to the item sets. (If the process dies
// between the two steps, the second is lost; the item's own count stays
// right and is what the item page shows.)
func (s *Store) SetLike(ctx context.Context, itemID, userID int64, mode string) (LikeResult, error) {
	if mode != LikeToggle && mode != LikeOn && mode != LikeOff {
		return LikeResult{}, ErrInvalid
	}
	res, err := likeScript.Run(ctx, s.rdb, []string{keys.ItemLikes(itemID), keys.ItemCounts(itemID)}, userID, mode).Int64Slice()
	if err != nil {
		return LikeResult{}, fmt.Errorf("like item %d: %w", itemID, err)
	}
	out := LikeResult{Liked: res[0] == 1, Count: res[1]}
	change := res[2]
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

// likeReads are the queued reads of an item's counters and of whether
// one user likes it.
type likeReads struct {
	counts *redis.SliceCmd
	liked  *redis.BoolCmd
}

// addLikeState queues the reads behind LikeState on pipe, so that a page
// (the page cache filling in its per-visitor holes) can share one round
// trip. userID 0 (a guest) reads only the counters.
func (s *Store) addLikeState(ctx context.Context, pipe redis.Pipeliner, itemID, userID int64) likeReads {
	r := likeReads{counts: pipe.HMGet(ctx, keys.ItemCounts(itemID), "views", "likes")}
	if userID > 0 {
		r.liked = pipe.SIsMember(ctx, keys.ItemLikes(itemID), userID)
	}
	return r
}

// result reads the queued commands after the pipeline ran.
func (r likeReads) result() (ItemCounts, bool) {
	v := r.counts.Val()
	n := func(i int) int64 {
		if i >= len(v) {
			return 0
		}
		s, _ := v[i].(string)
		x, _ := strconv.ParseInt(s, 10, 64)
		return x
	}
	liked := r.liked != nil && r.liked.Val()
	return ItemCounts{Views: n(0), Likes: n(1)}, liked
}

// LikeState is an item's like count and whether userID likes it, in one
// round trip (both keys are in the item's slot).
func (s *Store) LikeState(ctx context.Context, itemID, userID int64) (count int64, liked bool, err error) {
	c, liked, err := s.ItemStats(ctx, itemID, userID)
	return c.Likes, liked, err
}

// ItemStats is an item's counters (views, likes) and whether userID likes
// it, in one round trip.
func (s *Store) ItemStats(ctx context.Context, itemID, userID int64) (ItemCounts, bool, error) {
	pipe := s.rdb.Pipeline()
	r := s.addLikeState(ctx, pipe, itemID, userID)
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return ItemCounts{}, false, fmt.Errorf("item %d stats: %w", itemID, err)
	}
	c, liked := r.result()
	return c, liked, nil
}

// ItemLikes is an item on the "most liked" leaderboard.
type ItemLikes struct {
	ItemID int64
	Likes  int64
}

// LikeBoards returns the n most liked items (most first, ties by id) and
// the n most recently liked items (newest first), in one round trip.
// Items whose likes all went away drop off the leaderboard.
func (s *Store) LikeBoards(ctx context.Context, n int64) ([]ItemLikes, []int64, error) {
	var most *redis.ZSliceCmd
	var recent *redis.StringSliceCmd
	if s.reader() != s.rdb {
		// Shared by every home page and changed only by likes: read
		// through the client-side cache.
		most = s.csc.ZRevRangeByScoreWithScores(ctx, keys.MostLiked, &redis.ZRangeBy{Min: "(0", Max: "+inf", Count: n})
		recent = s.csc.ZRevRange(ctx, keys.RecentlyLiked, 0, n-1)
		if err := errors.Join(most.Err(), recent.Err()); err != nil {
			return nil, nil, fmt.Errorf("like boards: %w", err)
		}
	} else {
		pipe := s.rdb.Pipeline()
		most = pipe.ZRevRangeByScoreWithScores(ctx, keys.MostLiked, &redis.ZRangeBy{Min: "(0", Max: "+inf", Count: n})
		recent = pipe.ZRevRange(ctx, keys.RecentlyLiked, 0, n-1)
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, nil, fmt.Errorf("like boards: %w", err)
		}
	}
	out := make([]ItemLikes, 0, len(most.Val()))
	for _, z := range most.Val() {
		if ids := platform.ParseIDs([]string{fmt.Sprint(z.Member)}); len(ids) == 1 {
			out = append(out, ItemLikes{ItemID: ids[0], Likes: int64(z.Score)})
		}
	}
	return out, platform.ParseIDs(recent.Val()), nil
}
