package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
)

// Engagement defaults; Options override them for tests.
const (
	defaultFeedSize     = 500
	defaultFeedTTL      = 7 * 24 * time.Hour
	defaultFanOutInline = 1000
	defaultFanOutChunk  = 1000
	// recentlyLikedSize is how many items the "recently liked" list keeps.
	recentlyLikedSize = 50
)

// UserCounts are a user's counters.
type UserCounts struct {
	Posts, Likes, Followers, Following int64
}

// ItemCounts are an item's counters.
type ItemCounts struct {
	Views, Likes int64
}

// UserCounts reads a user's counters in one round trip.
func (s *Store) UserCounts(ctx context.Context, userID int64) (UserCounts, error) {
	pipe := s.rdb.Pipeline()
	cmd := s.addUserCounts(ctx, pipe, userID)
	if _, err := pipe.Exec(ctx); err != nil {
		return UserCounts{}, fmt.Errorf("user counts: %w", err)
	}
	return userCounts(cmd), nil
}

func (s *Store) addUserCounts(ctx context.Context, pipe redis.Pipeliner, userID int64) *redis.SliceCmd {
	return pipe.HMGet(ctx, keys.UserCounts(userID), "posts", "likes", "followers", "following")
}

func userCounts(cmd *redis.SliceCmd) UserCounts {
	v := cmd.Val()
	n := func(i int) int64 {
		if i >= len(v) {
			return 0
		}
		s, _ := v[i].(string)
		x, _ := strconv.ParseInt(s, 10, 64)
		return x
	}
	return UserCounts{Posts: n(0), Likes: n(1), Followers: n(2), Following: n(3)}
}
