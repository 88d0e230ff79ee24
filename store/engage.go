package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Engagement defaults; Options override them for tests.
const (
	defaultFeedSize     = 500
	defaultFeedTTL      = 7 * 24 * time.Hour
	defaultFanOutInline = 1000
	defaultFanOutChunk  = 1000
	// recentlyLikedSize is how many items the "recently liked" list keeps.
	recentlyLikedSize = 50
	// notesKept is how many notifications a user keeps.
	notesKept = 50
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
	return pipe.HMGet(ctx, userCountsKey(userID), "posts", "likes", "followers", "following")
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

// addCountView queues the item's view counter on pipe: update_token calls
// it, so counting a view costs no round trip of its own.
func addCountView(ctx context.Context, pipe redis.Pipeliner, itemID, n int64) {
	pipe.HIncrBy(ctx, itemCountsKey(itemID), "views", n)
}

// formatID is an id as Redis stores it.
func formatID(id int64) string { return strconv.FormatInt(id, 10) }

// evalInPipeline runs script for each key set on one pipeline with
// EVALSHA, falling back to EVAL for the calls that found the script
// missing (a restarted node, a Cluster shard that never saw it). The
// scripts run this way must be idempotent.
func (s *Store) evalInPipeline(ctx context.Context, script *redis.Script, calls [][]string, args func(i int) []any) error {
	if len(calls) == 0 {
		return nil
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(calls))
	for i, keys := range calls {
		cmds[i] = script.EvalSha(ctx, pipe, keys, args(i)...)
	}
	_, _ = pipe.Exec(ctx)
	var retry redis.Pipeliner
	for i, cmd := range cmds {
		err := cmd.Err()
		if err == nil || err == redis.Nil {
			continue
		}
		if !redis.HasErrorPrefix(err, "NOSCRIPT") {
			return err
		}
		if retry == nil {
			retry = s.rdb.Pipeline()
		}
		script.Eval(ctx, retry, calls[i], args(i)...)
	}
	if retry != nil {
		if _, err := retry.Exec(ctx); err != nil && err != redis.Nil {
			return err
		}
	}
	return nil
}
