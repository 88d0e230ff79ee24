package board

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// hideArticleScript hides an article in one step in the board's slot: the
// hash is marked (who hid it), the id goes onto `hidden:` (the moderation
// list), its open reports are closed, and it leaves `score:`, `time:`,
// every group set and every cached group listing, so no listing shows it
// from the next read on, on any instance.
// KEYS: article hash, score:, time:, hidden:, open reports, the article's
// reports, then per site group its set and its two cached listings.
// ARGV: article id, moderator, now (s).
// Returns 0 for a missing article, 1 when hidden now, 2 if it already was.
var hideArticleScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'hidden') == 1 then return 2 end
redis.call('HSET', KEYS[1], 'hidden', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
if redis.call('ZREM', KEYS[5], ARGV[1]) == 1 then redis.call('HSET', KEYS[6], ARGV[1] .. '/closed', ARGV[3]) end
for i = 7, #KEYS, 3 do
  redis.call('SREM', KEYS[i], ARGV[1])
  redis.call('ZREM', KEYS[i + 1], ARGV[1])
  redis.call('ZREM', KEYS[i + 2], ARGV[1])
end
return 1`)

// unhideArticleScript undoes hideArticleScript exactly, in one step: the
// mark and the moderation entry go, the id is back in `score:` and `time:`
// at the hash's score and post time (votes are refused while hidden, so
// they are the ones it left with), and in the set of each of its groups
// and in those groups' cached listings that exist (a listing built while
// it was hidden lacks it; one built later includes it anyway).
// KEYS: as hideArticleScript. ARGV: article id, then the site's group
// names in KEYS order.
// Returns 0 for a missing article, 1 when shown again now, 2 if it was not
// hidden.
var unhideArticleScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[4], ARGV[1])
if redis.call('HEXISTS', KEYS[1], 'hidden') == 0 then return 2 end
redis.call('HDEL', KEYS[1], 'hidden')
local score = redis.call('HGET', KEYS[1], 'score')
local posted = redis.call('HGET', KEYS[1], 'time')
redis.call('ZADD', KEYS[2], score, ARGV[1])
redis.call('ZADD', KEYS[3], posted, ARGV[1])
local mine = {}
for g in string.gmatch(redis.call('HGET', KEYS[1], 'groups') or '', '[^,]+') do mine[g] = true end
for i = 2, #ARGV do
  if mine[ARGV[i]] then
    local k = 7 + 3 * (i - 2)
    redis.call('SADD', KEYS[k], ARGV[1])
    if redis.call('EXISTS', KEYS[k + 1]) == 1 then redis.call('ZADD', KEYS[k + 1], score, ARGV[1]) end
    if redis.call('EXISTS', KEYS[k + 2]) == 1 then redis.call('ZADD', KEYS[k + 2], posted, ARGV[1]) end
  end
end
return 1`)

// articleScriptKeys are the keys the hide and unhide scripts touch, in
// their order, and the site's group names in that order.
func articleScriptKeys(id int64) ([]string, []any) {
	k := []string{keys.Article(id), keys.ArticleScores, keys.ArticleTimes, keys.HiddenArticles, keys.OpenReports, keys.Reports(id)}
	names := make([]any, 0, len(ArticleGroups))
	for _, g := range ArticleGroups {
		k = append(k, keys.Group(g), keys.GroupListing(g, false), keys.GroupListing(g, true))
		names = append(names, g)
	}
	return k, names
}

// HideArticle hides an article for a moderator: gone from the listings
// and group listings (cached ones included) at once, and, through the
// events (ArticleHidden), from feeds, the author's profile and posts
// counter. The author still opens it and sees it was hidden.
// platform.ErrNotFound for a missing article. Hiding twice changes nothing more.
func (s *Service) HideArticle(ctx context.Context, id int64, moderator string) (Article, error) {
	scriptKeys, _ := articleScriptKeys(id)
	n, err := hideArticleScript.Run(ctx, s.rdb, scriptKeys, id, moderator, formatFloat(s.clock.Seconds())).Int()
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

// UnhideArticle shows a hidden article again, exactly as it was before:
// back in the listings, its groups and their cached listings at its score
// and post time, and, through the events (ArticleUnhidden), in feeds, on
// the author's profile and in the posts counter. platform.ErrNotFound for a
// missing article; unhiding one that is not hidden changes nothing.
func (s *Service) UnhideArticle(ctx context.Context, id int64) (Article, error) {
	scriptKeys, names := articleScriptKeys(id)
	n, err := unhideArticleScript.Run(ctx, s.rdb, scriptKeys, append([]any{id}, names...)...).Int()
	if err != nil {
		return Article{}, fmt.Errorf("unhide article %d: %w", id, err)
	}
	if n == 0 {
		return Article{}, platform.ErrNotFound
	}
	a, _, err := s.ArticleWithComments(ctx, id, 0)
	if err != nil || n != 1 {
		return a, err
	}
	return a, s.events.ArticleUnhidden(ctx, a)
}

// hiddenSuffix is what hiding appends to a comment's stored JSON (in
// place of its closing brace), and unhiding takes off again.
const hiddenSuffix = `,"hidden":true}`

// hideCommentScript marks one comment hidden, takes it off the article's
// count, puts it on `hidden-comments:` and closes its open reports,
// atomically. The stored JSON gets a "hidden" member appended as text
// (re-encoding it in Lua would round the time), so unhiding restores the
// very bytes. A comment its author deleted has nothing left to hide.
// KEYS: article hash, comments list, hidden-comments:, open reports, the
// article's reports. ARGV: comment number (from 1), its ref, now (s), the
// suffix.
// Returns -1 for a missing or deleted comment, 0 if already hidden, 1 when
// hidden now.
var hideCommentScript = redis.NewScript(`
local i = tonumber(ARGV[1]) - 1
local raw = redis.call('LINDEX', KEYS[2], i)
if not raw or string.find(raw, '"deleted":true', 1, true) then return -1 end
if string.find(raw, '"hidden":true', 1, true) then return 0 end
redis.call('LSET', KEYS[2], i, string.sub(raw, 1, -2) .. ARGV[4])
redis.call('HINCRBY', KEYS[1], 'comments', -1)
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
if redis.call('ZREM', KEYS[4], ARGV[2]) == 1 then redis.call('HSET', KEYS[5], ARGV[2] .. '/closed', ARGV[3]) end
return 1`)

// unhideCommentScript undoes hideCommentScript: the JSON loses the suffix,
// the count gets the comment back, the moderation entry goes.
// KEYS and ARGV as hideCommentScript (now and the reports unused).
// Returns -1 for a missing comment, 0 if it was not hidden, 1 when shown
// again now.
var unhideCommentScript = redis.NewScript(`
local i = tonumber(ARGV[1]) - 1
local raw = redis.call('LINDEX', KEYS[2], i)
if not raw then return -1 end
redis.call('ZREM', KEYS[3], ARGV[2])
local n = string.len(ARGV[4])
if string.sub(raw, -n) ~= ARGV[4] then return 0 end
redis.call('LSET', KEYS[2], i, string.sub(raw, 1, -n - 1) .. '}')
redis.call('HINCRBY', KEYS[1], 'comments', 1)
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
	c, ok := s.parseComment(raw)
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
	return s.setCommentHidden(ctx, hideCommentScript, articleID, commentID)
}

// UnhideComment shows a hidden comment again, exactly as it was, and
// counts it again. platform.ErrNotFound for a missing one; one that is not
// hidden is left alone.
func (s *Service) UnhideComment(ctx context.Context, articleID, commentID int64) (Comment, error) {
	return s.setCommentHidden(ctx, unhideCommentScript, articleID, commentID)
}

func (s *Service) setCommentHidden(ctx context.Context, script *redis.Script, articleID, commentID int64) (Comment, error) {
	if commentID < 1 {
		return Comment{}, platform.ErrNotFound
	}
	n, err := script.Run(ctx, s.rdb, []string{keys.Article(articleID), keys.Comments(articleID), keys.HiddenComments,
		keys.OpenReports, keys.Reports(articleID)},
		commentID, CommentRef(articleID, commentID), formatFloat(s.clock.Seconds()), hiddenSuffix).Int()
	if err != nil {
		return Comment{}, fmt.Errorf("hide comment: %w", err)
	}
	if n < 0 {
		return Comment{}, platform.ErrNotFound
	}
	return s.CommentByID(ctx, articleID, commentID)
}

// CommentRef is how pages and the moderation routes name a comment:
// "<article id>-<comment number>".
func CommentRef(articleID, commentID int64) string { return platform.PairRef(articleID, commentID) }

// ParseCommentRef reads a CommentRef.
func ParseCommentRef(ref string) (articleID, commentID int64, ok bool) {
	return platform.ParsePairRef(ref)
}
