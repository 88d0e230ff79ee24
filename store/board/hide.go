package board

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// hideArticleScript hides an article in one step in the board's slot: the
// hash is marked (who hid it), and the id leaves `score:`, `time:`, every
// group set and every cached group listing, so no listing shows it from
// the next read on, on any instance.
// KEYS: article hash, score:, time:, then per site group its set and its
// two cached listings. ARGV: article id, moderator.
// Returns 0 for a missing article, 1 when hidden now, 2 if it already was.
var hideArticleScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'hidden') == 1 then return 2 end
redis.call('HSET', KEYS[1], 'hidden', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
for i = 4, #KEYS, 3 do
  redis.call('SREM', KEYS[i], ARGV[1])
  redis.call('ZREM', KEYS[i + 1], ARGV[1])
  redis.call('ZREM', KEYS[i + 2], ARGV[1])
end
return 1`)

// HideArticle hides an article for a moderator: gone from the listings
// and group listings (cached ones included) at once, and, through the
// events (ArticleHidden), from feeds, the author's profile and posts
// counter. The author still opens it and sees it was hidden.
// platform.ErrNotFound for a missing article. Hiding twice changes nothing more.
func (s *Service) HideArticle(ctx context.Context, id int64, moderator string) (Article, error) {
	scriptKeys := []string{keys.Article(id), keys.ArticleScores, keys.ArticleTimes}
	for _, g := range ArticleGroups {
		scriptKeys = append(scriptKeys, keys.Group(g), keys.GroupListing(g, false), keys.GroupListing(g, true))
	}
	n, err := hideArticleScript.Run(ctx, s.rdb, scriptKeys, id, moderator).Int()
	if err != nil {
		return Article{}, fmt.Errorf("hide article %d: %w", id, err)
	}
	if n == 0 {
		return Article{}, platform.ErrNotFound
	}
	a, _, err := s.ArticleWithComments(ctx, id, 0)
	if err != nil {
		return Article{}, err
	}
	// Feeds, the author's profile and posts counter follow (social).
	return a, s.events.ArticleHidden(ctx, a)
}

// hideCommentScript marks one comment hidden and takes it off the
// article's count, atomically. The stored JSON gets a "hidden" member
// appended as text (re-encoding it in Lua would round the time).
// KEYS: article hash, comments list. ARGV: comment number (from 1).
// Returns -1 for a missing comment, 0 if already hidden, 1 when hidden now.
var hideCommentScript = redis.NewScript(`
local i = tonumber(ARGV[1]) - 1
local raw = redis.call('LINDEX', KEYS[2], i)
if not raw then return -1 end
if string.find(raw, '"hidden":true', 1, true) then return 0 end
redis.call('LSET', KEYS[2], i, string.sub(raw, 1, -2) .. ',"hidden":true}')
redis.call('HINCRBY', KEYS[1], 'comments', -1)
return 1`)

// CommentByID reads one comment of an article (its number from 1).
func (s *Service) CommentByID(ctx context.Context, articleID, commentID int64) (Comment, error) {
	raw, err := s.rdb.LIndex(ctx, keys.Comments(articleID), commentID-1).Result()
	if errors.Is(err, redis.Nil) || commentID < 1 {
		return Comment{}, platform.ErrNotFound
	}
	if err != nil {
		return Comment{}, fmt.Errorf("comment: %w", err)
	}
	c, ok := parseComment(raw)
	if !ok {
		return Comment{}, platform.ErrNotFound
	}
	c.ID, c.ArticleID = commentID, articleID
	return c, nil
}

// HideComment hides one comment: gone from the article's page and its
// comment count for everyone but its author (who sees it was hidden) and
// admins. Comments are named by article and number; the page's hook
// carries both as "<article>-<number>". platform.ErrNotFound for a missing one.
func (s *Service) HideComment(ctx context.Context, articleID, commentID int64) (Comment, error) {
	if commentID < 1 {
		return Comment{}, platform.ErrNotFound
	}
	n, err := hideCommentScript.Run(ctx, s.rdb, []string{keys.Article(articleID), keys.Comments(articleID)}, commentID).Int()
	if err != nil {
		return Comment{}, fmt.Errorf("hide comment: %w", err)
	}
	if n < 0 {
		return Comment{}, platform.ErrNotFound
	}
	return s.CommentByID(ctx, articleID, commentID)
}

// CommentRef is how pages and the moderation route name a comment:
// "<article id>-<comment number>".
func CommentRef(articleID, commentID int64) string {
	return strconv.FormatInt(articleID, 10) + "-" + strconv.FormatInt(commentID, 10)
}

// ParseCommentRef reads a CommentRef.
func ParseCommentRef(ref string) (articleID, commentID int64, ok bool) {
	a, c, found := strings.Cut(ref, "-")
	if !found {
		return 0, 0, false
	}
	articleID, err1 := strconv.ParseInt(a, 10, 64)
	commentID, err2 := strconv.ParseInt(c, 10, 64)
	return articleID, commentID, err1 == nil && err2 == nil && articleID > 0 && commentID > 0
}
