package social

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// Profile is what a user's page shows from Redis.
type Profile struct {
	Counts UserCounts
	// PostIDs are the newest articles the user posted, newest first.
	PostIDs []int64
	// ViewerFollows says whether the viewer follows the user.
	ViewerFollows bool
}

// Profile reads a user's counters, newest posts (at most n) and whether
// viewerID (0 for a guest) follows them, in one round trip.
func (s *Service) Profile(ctx context.Context, userID, viewerID, n int64) (Profile, error) {
	pipe := s.rdb.Pipeline()
	counts := s.addUserCounts(ctx, pipe, userID)
	posts := pipe.ZRevRange(ctx, keys.Posts(userID), 0, n-1)
	var follows *redis.FloatCmd
	if viewerID > 0 && viewerID != userID {
		follows = pipe.ZScore(ctx, keys.Following(viewerID), platform.FormatID(userID))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return Profile{}, fmt.Errorf("profile: %w", err)
	}
	return Profile{
		Counts:        userCounts(counts),
		PostIDs:       platform.ParseIDs(posts.Val()),
		ViewerFollows: follows != nil && follows.Err() == nil,
	}, nil
}
