package board

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// HiddenArticle is a hidden article as the moderation page lists it.
type HiddenArticle struct {
	Article
	HiddenBy string // the moderator
	HiddenAt time.Time
}

// HiddenComment is a hidden comment as the moderation page lists it, with
// the title of its article.
type HiddenComment struct {
	Comment
	ArticleTitle string
	HiddenAt     time.Time
}

// HiddenArticles lists the hidden articles, the most recently hidden
// first (at most n), and how many there are, from `hidden:`.
func (s *Service) HiddenArticles(ctx context.Context, n int64) ([]HiddenArticle, int64, error) {
	zs, total, err := s.hiddenRange(ctx, keys.HiddenArticles, n)
	if err != nil || len(zs) == 0 {
		return nil, total, err
	}
	pipe := s.rdb.Pipeline()
	ids := make([]int64, len(zs))
	hashes := make([]*redis.MapStringStringCmd, len(zs))
	for i, z := range zs {
		ids[i], _ = strconv.ParseInt(fmt.Sprint(z.Member), 10, 64)
		hashes[i] = pipe.HGetAll(ctx, keys.Article(ids[i]))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, 0, fmt.Errorf("hidden articles: %w", err)
	}
	out := make([]HiddenArticle, 0, len(zs))
	for i, z := range zs {
		h := hashes[i].Val()
		if len(h) == 0 || h["hidden"] == "" {
			continue // shown again or gone since the range was read
		}
		out = append(out, HiddenArticle{Article: s.parseArticle(ids[i], h, VoteNone), HiddenBy: h["hidden"], HiddenAt: secondsTime(z.Score)})
	}
	return out, total, nil
}

// HiddenComments lists the hidden comments, the most recently hidden first
// (at most n), and how many there are, from `hidden-comments:`.
func (s *Service) HiddenComments(ctx context.Context, n int64) ([]HiddenComment, int64, error) {
	zs, total, err := s.hiddenRange(ctx, keys.HiddenComments, n)
	if err != nil || len(zs) == 0 {
		return nil, total, err
	}
	type read struct {
		articleID, commentID int64
		at                   float64
		raw                  *redis.StringCmd
		title                *redis.StringCmd
	}
	reads := make([]read, 0, len(zs))
	pipe := s.rdb.Pipeline()
	for _, z := range zs {
		a, c, ok := ParseCommentRef(fmt.Sprint(z.Member))
		if !ok {
			continue
		}
		reads = append(reads, read{articleID: a, commentID: c, at: z.Score,
			raw: pipe.LIndex(ctx, keys.Comments(a), c-1), title: pipe.HGet(ctx, keys.Article(a), "title")})
	}
	if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
		return nil, 0, fmt.Errorf("hidden comments: %w", platform.RealErr(cmds, err))
	}
	out := make([]HiddenComment, 0, len(reads))
	for _, r := range reads {
		c, ok := s.parseComment(r.raw.Val())
		if !ok || !c.Hidden {
			continue // shown again since the range was read
		}
		c.ID, c.ArticleID = r.commentID, r.articleID
		out = append(out, HiddenComment{Comment: c, ArticleTitle: r.title.Val(), HiddenAt: secondsTime(r.at)})
	}
	return out, total, nil
}

// hiddenRange reads the newest n entries of a moderation list and its size.
func (s *Service) hiddenRange(ctx context.Context, key string, n int64) ([]redis.Z, int64, error) {
	pipe := s.rdb.Pipeline()
	zs := pipe.ZRevRangeWithScores(ctx, key, 0, n-1)
	total := pipe.ZCard(ctx, key)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, 0, fmt.Errorf("moderation list: %w", err)
	}
	return zs.Val(), total.Val(), nil
}
