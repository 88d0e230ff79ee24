package social

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// FeedEntry is an article as feeds and profiles show it. It is stored
// once per article (postKey), not once per follower: feeds hold only ids.
type FeedEntry struct {
	ArticleID  int64
	AuthorID   int64
	AuthorName string
	Title      string
	Link       string
	PostedAt   float64 // Unix seconds
}

// feedBuilt is the member that marks a feed as built. It sits at score 0,
// below every article, so trimming skips it (ranks from 1) and reads skip it
// (scores above 0). A feed without it has expired and is rebuilt on read.
const feedBuilt = "0"

// feedAddScript adds (score, member) pairs to a feed that exists and trims
// it to the newest ARGV[1] articles. A feed that expired is left alone: it
// is rebuilt from the posts of the people its owner follows when next read,
// so idle users cost the fan-out nothing but this check. Idempotent.
var feedAddScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 2, #ARGV, 2 do redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('ZREMRANGEBYRANK', KEYS[1], 1, -tonumber(ARGV[1]) - 1)
return 1`)

// recordPostScript adds an article to its author's posts and counts it,
// together, in the author's slot.
var recordPostScript = redis.NewScript(`
if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'posts', 1)
end
return 1`)

// RecordPost records a newly posted article for engagement: its feed
// entry, the author's posts list and counter, and the fan-out to the
// author's followers' feeds. The article board calls it once the article
// exists; calling it again for the same article changes nothing.
func (s *Service) RecordPost(ctx context.Context, e FeedEntry) error {
	if e.ArticleID <= 0 || e.AuthorID <= 0 {
		return platform.ErrInvalid
	}
	if e.PostedAt == 0 {
		e.PostedAt = s.clock.Seconds()
	}
	err := s.rdb.HSet(ctx, keys.Post(e.ArticleID),
		"author", e.AuthorID, "author_name", e.AuthorName, "title", e.Title, "link", e.Link, "posted", e.PostedAt).Err()
	if err != nil {
		return fmt.Errorf("record post: %w", err)
	}
	err = recordPostScript.Run(ctx, s.rdb, []string{keys.Posts(e.AuthorID), keys.UserCounts(e.AuthorID)}, e.ArticleID, e.PostedAt).Err()
	if err != nil {
		return fmt.Errorf("record post: %w", err)
	}
	return s.FanOutArticle(ctx, e.AuthorID, e.ArticleID, e.PostedAt)
}

// Posts reads the feed entries of articles, in the order of ids, skipping
// unknown ones, in one round trip.
func (s *Service) Posts(ctx context.Context, ids []int64) ([]FeedEntry, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.HGetAll(ctx, keys.Post(id))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("posts: %w", err)
	}
	out := make([]FeedEntry, 0, len(ids))
	for i, cmd := range cmds {
		m := cmd.Val()
		if len(m) == 0 {
			continue
		}
		e := FeedEntry{ArticleID: ids[i], AuthorName: m["author_name"], Title: m["title"], Link: m["link"]}
		e.AuthorID, _ = strconv.ParseInt(m["author"], 10, 64)
		e.PostedAt, _ = strconv.ParseFloat(m["posted"], 64)
		out = append(out, e)
	}
	return out, nil
}

// Feed returns one page (1-based) of a user's feed, newest first, and how
// many articles the feed holds. Reading keeps the feed alive for FeedTTL;
// an expired (or never built) feed is rebuilt first.
func (s *Service) Feed(ctx context.Context, userID int64, page, perPage int) ([]int64, int64, error) {
	if page < 1 || perPage < 1 {
		return nil, 0, platform.ErrInvalid
	}
	for attempt := 0; ; attempt++ {
		key := keys.Feed(userID)
		pipe := s.rdb.Pipeline()
		built := pipe.ZScore(ctx, key, feedBuilt)
		total := pipe.ZCount(ctx, key, "(0", "+inf")
		ids := pipe.ZRevRangeByScore(ctx, key, &redis.ZRangeBy{Min: "(0", Max: "+inf",
			Offset: int64(page-1) * int64(perPage), Count: int64(perPage)})
		pipe.Expire(ctx, key, s.opt.FeedTTL)
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, 0, fmt.Errorf("feed: %w", err)
		}
		if built.Err() == nil || attempt > 0 {
			return platform.ParseIDs(ids.Val()), total.Val(), nil
		}
		if err := s.rebuildFeed(ctx, userID); err != nil {
			return nil, 0, err
		}
	}
}

// FeedPage is Feed with the entries to show.
func (s *Service) FeedPage(ctx context.Context, userID int64, page, perPage int) ([]FeedEntry, int64, error) {
	ids, total, err := s.Feed(ctx, userID, page, perPage)
	if err != nil {
		return nil, 0, err
	}
	entries, err := s.Posts(ctx, ids)
	return entries, total, err
}

// rebuildMaxFollows bounds how many followed users a rebuild reads.
const rebuildMaxFollows = 1000

// rebuildFeed pulls a feed together from the newest posts of the people
// the user follows. The marker goes in first, so that a post fanned out
// while we read is either written to the feed by the fan-out or already
// in the posts we read: none is lost.
func (s *Service) rebuildFeed(ctx context.Context, userID int64) error {
	key := keys.Feed(userID)
	pipe := s.rdb.Pipeline()
	pipe.ZAdd(ctx, key, redis.Z{Score: 0, Member: feedBuilt})
	pipe.Expire(ctx, key, s.opt.FeedTTL)
	follows := pipe.ZRevRange(ctx, keys.Following(userID), 0, rebuildMaxFollows-1)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("rebuild feed: %w", err)
	}
	authors := platform.ParseIDs(follows.Val())
	if len(authors) == 0 {
		return nil
	}
	size := s.opt.FeedSize
	perAuthor := min(size, max(20, 4*size/int64(len(authors))))
	pipe = s.rdb.Pipeline()
	cmds := make([]*redis.ZSliceCmd, len(authors))
	for i, a := range authors {
		cmds[i] = pipe.ZRevRangeWithScores(ctx, keys.Posts(a), 0, perAuthor-1)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("rebuild feed: %w", err)
	}
	var all []redis.Z
	for _, c := range cmds {
		all = append(all, c.Val()...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Score > all[j].Score })
	if int64(len(all)) > size {
		all = all[:size]
	}
	return s.addToFeed(ctx, userID, all)
}

// backfillFeed puts a newly followed user's recent posts into the
// follower's feed, so following someone shows their articles at once.
func (s *Service) backfillFeed(ctx context.Context, userID, authorID int64) error {
	zs, err := s.rdb.ZRevRangeWithScores(ctx, keys.Posts(authorID), 0, s.opt.FeedSize-1).Result()
	if err != nil {
		return fmt.Errorf("backfill feed: %w", err)
	}
	return s.addToFeed(ctx, userID, zs)
}

// purgeFeed takes an unfollowed user's posts out of the feed.
func (s *Service) purgeFeed(ctx context.Context, userID, authorID int64) error {
	ids, err := s.rdb.ZRevRange(ctx, keys.Posts(authorID), 0, s.opt.FeedSize-1).Result()
	if err != nil {
		return fmt.Errorf("purge feed: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	members := make([]any, len(ids))
	for i, id := range ids {
		members[i] = id
	}
	if err := s.rdb.ZRem(ctx, keys.Feed(userID), members...).Err(); err != nil {
		return fmt.Errorf("purge feed: %w", err)
	}
	return nil
}

// addToFeed merges entries into a built feed (feedAddScript).
func (s *Service) addToFeed(ctx context.Context, userID int64, zs []redis.Z) error {
	if len(zs) == 0 {
		return nil
	}
	args := make([]any, 0, 1+2*len(zs))
	args = append(args, s.opt.FeedSize)
	for _, z := range zs {
		args = append(args, z.Score, z.Member)
	}
	if err := feedAddScript.Run(ctx, s.rdb, []string{keys.Feed(userID)}, args...).Err(); err != nil {
		return fmt.Errorf("feed: %w", err)
	}
	return nil
}
