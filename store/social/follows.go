package social

import (
	"context"
	"fmt"
	"sort"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// FollowResult is the state after a follow or unfollow.
type FollowResult struct {
	Following bool  // the follower now follows the user
	Changed   bool  // the call changed that
	Followers int64 // the followed user's follower count
}

// Follow makes followerID follow (follow=true) or unfollow targetID.
// Following yourself is platform.ErrInvalid.
//
// The two sides live in two users' slots, so they cannot change in one
// script on Cluster. The follower's side changes first and versions the
// change; the followed side applies it only if it is newer than the last
// it saw from this follower. Each side's counter changes in the same
// script as its set, so counters always equal the sets, and concurrent
// follows and unfollows leave both sides agreeing. Repeating a follow or an
// unfollow also repairs a side left behind by a crash between the steps.
func (s *Service) Follow(ctx context.Context, followerID, targetID int64, follow bool) (FollowResult, error) {
	if followerID == targetID || followerID <= 0 || targetID <= 0 {
		return FollowResult{}, platform.ErrInvalid
	}
	want := "0"
	if follow {
		want = "1"
	}
	now := s.clock.Seconds()
	// The follower's side is the authority: it changes first, and every
	// call bumps the follower's version (fseq), which orders the changes
	// for the other side.
	mine, err := s.toggle(ctx, toggle{set: keys.Following(followerID), counts: keys.UserCounts(followerID),
		member: targetID, want: want, field: "following", score: now, seq: "fseq"})
	if err != nil {
		return FollowResult{}, fmt.Errorf("follow: %w", err)
	}
	change := mine.change
	other, err := s.toggle(ctx, toggle{set: keys.Followers(targetID), counts: keys.UserCounts(targetID),
		versions: keys.FollowVersions(targetID), member: followerID, want: want, field: "followers", score: now, version: mine.version})
	if err != nil {
		return FollowResult{}, fmt.Errorf("follow: %w", err)
	}
	out := FollowResult{Following: follow, Changed: change != 0, Followers: other.counter}
	switch {
	case change > 0:
		err = s.backfillFeed(ctx, followerID, targetID)
	case change < 0:
		err = s.purgeFeed(ctx, followerID, targetID)
	}
	return out, err
}

// IsFollowing reports whether a follows b.
func (s *Service) IsFollowing(ctx context.Context, a, b int64) (bool, error) {
	err := s.rdb.ZScore(ctx, keys.Following(a), platform.FormatID(b)).Err()
	if err == redis.Nil {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("is following: %w", err)
	}
	return true, nil
}

// Following lists the ids a user follows, most recent first, at most n.
func (s *Service) Following(ctx context.Context, userID, n int64) ([]int64, error) {
	ids, err := s.rdb.ZRevRange(ctx, keys.Following(userID), 0, n-1).Result()
	if err != nil {
		return nil, fmt.Errorf("following: %w", err)
	}
	return platform.ParseIDs(ids), nil
}

// Followers lists a user's followers, most recent first, at most n.
func (s *Service) Followers(ctx context.Context, userID, n int64) ([]int64, error) {
	ids, err := s.rdb.ZRevRange(ctx, keys.Followers(userID), 0, n-1).Result()
	if err != nil {
		return nil, fmt.Errorf("followers: %w", err)
	}
	return platform.ParseIDs(ids), nil
}

// commonChunk is how many members CommonFollows checks per round trip.
const commonChunk = 1000

// CommonFollows returns up to limit ids that both a and b follow, in
// ascending id order.
//
// ZINTERSTORE would do it in one command, but the two users' sets live in
// different Cluster slots, where a multi-key command is refused. So the
// intersection is computed here: walk the smaller set in chunks and ask
// the larger one for those members' scores (ZMSCORE). The cost is in the
// smaller set's size, one round trip per chunk, and it is the same on one
// node and on a Cluster.
func (s *Service) CommonFollows(ctx context.Context, a, b int64, limit int) ([]int64, error) {
	pipe := s.rdb.Pipeline()
	ca, cb := pipe.ZCard(ctx, keys.Following(a)), pipe.ZCard(ctx, keys.Following(b))
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("common follows: %w", err)
	}
	small, large, n := keys.Following(a), keys.Following(b), ca.Val()
	if cb.Val() < n {
		small, large, n = large, small, cb.Val()
	}
	if cb.Val() == 0 || ca.Val() == 0 {
		return nil, nil
	}
	var out []int64
	for start := int64(0); start < n && len(out) < limit; start += commonChunk {
		members, err := s.rdb.ZRange(ctx, small, start, start+commonChunk-1).Result()
		if err != nil {
			return nil, fmt.Errorf("common follows: %w", err)
		}
		if len(members) == 0 {
			break
		}
		scores, err := s.rdb.ZMScore(ctx, large, members...).Result()
		if err != nil {
			return nil, fmt.Errorf("common follows: %w", err)
		}
		for i, sc := range scores {
			if sc != 0 && len(out) < limit { // ZMSCORE gives 0 for a missing member; follow times are > 0
				out = append(out, platform.ParseIDs(members[i:i+1])...)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}
