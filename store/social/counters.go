package social

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/notify"
	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/store/workers"
)

// recentlyLikedSize is how many items the "recently liked" list keeps.
const recentlyLikedSize = 50

// Service is the shop's social side.
type Service struct {
	rdb    redis.UniversalClient
	log    *slog.Logger
	clock  *platform.Clock
	reader *platform.Reader
	opt    Options
	host   *workers.Host
	notify *notify.Service
	users  *sessions.Service
}

// Options are social's tuning knobs: 0 takes the default.
type Options struct {
	FeedSize     int64         // entries kept per feed
	FeedTTL      time.Duration // a feed nobody reads for this long expires
	FanOutInline int           // followers a post reaches before the request returns
	FanOutChunk  int           // followers one background fan-out step reaches
}

// Defaults of Options.
const (
	DefaultFeedSize     = 500
	DefaultFeedTTL      = 7 * 24 * time.Hour
	DefaultFanOutInline = 1000
	DefaultFanOutChunk  = 1000
)

// New returns social; it notifies through notify and names voters
// through the accounts of users.
func New(b platform.Base, opt Options, host *workers.Host, nt *notify.Service, users *sessions.Service) *Service {
	if opt.FeedSize <= 0 {
		opt.FeedSize = DefaultFeedSize
	}
	if opt.FeedTTL <= 0 {
		opt.FeedTTL = DefaultFeedTTL
	}
	if opt.FanOutInline <= 0 {
		opt.FanOutInline = DefaultFanOutInline
	}
	if opt.FanOutChunk <= 0 {
		opt.FanOutChunk = DefaultFanOutChunk
	}
	return &Service{rdb: b.Redis, log: b.Log, clock: b.Clock, reader: b.Reader, opt: opt, host: host, notify: nt, users: users}
}

// Workers returns the fan-out loop, which runs on every instance.
func (s *Service) Workers() []workers.Worker { return []workers.Worker{&fanOutWorker{s: s}} }

// UserCounts are a user's counters.
type UserCounts struct {
	Posts, Likes, Followers, Following int64
}

// ItemCounts are an item's counters.
type ItemCounts struct {
	Views, Likes int64
}

// UserCounts reads a user's counters in one round trip.
func (s *Service) UserCounts(ctx context.Context, userID int64) (UserCounts, error) {
	pipe := s.rdb.Pipeline()
	cmd := s.addUserCounts(ctx, pipe, userID)
	if _, err := pipe.Exec(ctx); err != nil {
		return UserCounts{}, fmt.Errorf("user counts: %w", err)
	}
	return userCounts(cmd), nil
}

func (s *Service) addUserCounts(ctx context.Context, pipe redis.Pipeliner, userID int64) *redis.SliceCmd {
	return pipe.HMGet(ctx, keys.UserCounts(userID), "posts", "likes", "followers", "following")
}

func userCounts(cmd *redis.SliceCmd) UserCounts {
	n := platform.Ints(cmd.Val(), 4)
	return UserCounts{Posts: n[0], Likes: n[1], Followers: n[2], Following: n[3]}
}
