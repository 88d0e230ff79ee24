package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// EditWindow is how long after posting an author may edit or delete their
// article or comment. Long enough to fix a slip, short enough that nobody
// answers or votes on words that later change under them.
const EditWindow = 15 * time.Minute

// Errors of editing and deleting.
var (
	// ErrNotAuthor: only its author may edit or delete a post.
	ErrNotAuthor = errors.New("not the author")
	// ErrEditClosed: EditWindow has passed since it was posted.
	ErrEditClosed = errors.New("edit window closed")
	// ErrHidden: a moderator hid it, and it stays as they found it.
	ErrHidden = errors.New("hidden by a moderator")
)

// editLeft is how much of EditWindow is left at now for a post made at
// posted (both Unix seconds).
func editLeft(posted, now float64) time.Duration {
	return max(0, time.Duration((posted+EditWindow.Seconds()-now)*float64(time.Second)))
}

// ArticleEdit is what an author may change of their article: its words
// and link (groups have their own form, EditArticleGroups).
type ArticleEdit struct {
	Title, Link, Body string
}

// ownStep is the check every edit and delete script starts with on an
// article's hash (KEYS[1]), with ARGV[2] the user, ARGV[3] now and ARGV[4]
// EditWindow in seconds: 0 when it is missing (or hidden from a reader who
// is not its author), -1 hidden, -2 someone else's, -3 past the window.
const ownStep = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local mine = redis.call('HGET', KEYS[1], 'poster_id') == ARGV[2]
if redis.call('HEXISTS', KEYS[1], 'hidden') == 1 then
  if mine then return -1 end
  return 0
end
if not mine then return -2 end
if tonumber(ARGV[3]) >= tonumber(redis.call('HGET', KEYS[1], 'time')) + tonumber(ARGV[4]) then return -3 end
`

// ownErr turns ownStep's answers into errors.
func ownErr(n int64) error {
	switch n {
	case 0:
		return platform.ErrNotFound
	case -1:
		return ErrHidden
	case -2:
		return ErrNotAuthor
	case -3:
		return ErrEditClosed
	}
	return fmt.Errorf("unexpected answer %d", n)
}

// editArticleScript changes an article's title, link and body and marks
// when, for its author within EditWindow, atomically with the checks.
// KEYS: article hash. ARGV: article id, user id, now (s), window (s),
// title, link, body. Returns ownStep's numbers, or the hash afterwards.
var editArticleScript = redis.NewScript(ownStep + `
redis.call('HSET', KEYS[1], 'title', ARGV[5], 'link', ARGV[6], 'body', ARGV[7], 'edited', ARGV[3])
return redis.call('HGETALL', KEYS[1])`)

// EditArticle changes an article's title, link and body for its author
// within EditWindow, and tells the events (feeds show the new title).
// platform.ErrNotFound for a missing article (or one a moderator hid, to
// anyone but its author), ErrHidden, ErrNotAuthor, ErrEditClosed; an edit
// leaving neither link nor body is platform.ErrInvalid. Length limits are
// the caller's.
func (s *Service) EditArticle(ctx context.Context, id, userID int64, e ArticleEdit) (Article, error) {
	if strings.TrimSpace(e.Title) == "" || (e.Link == "" && strings.TrimSpace(e.Body) == "") || userID <= 0 {
		return Article{}, platform.ErrInvalid
	}
	res, err := editArticleScript.Run(ctx, s.rdb, []string{keys.Article(id)},
		id, userID, formatFloat(s.clock.Seconds()), formatFloat(EditWindow.Seconds()), e.Title, e.Link, e.Body).Result()
	if err != nil {
		return Article{}, fmt.Errorf("edit article %d: %w", id, err)
	}
	if n, ok := res.(int64); ok {
		return Article{}, ownErr(n)
	}
	a := s.parseArticle(id, flatHash(res), VoteNone)
	s.events.ArticleEdited(ctx, a)
	return a, nil
}

// deleteArticleScript deletes an article for its author within
// EditWindow, with everything that names it, in one step in the board's
// slot: `score:`, `time:`, its group sets and their cached listings, its
// voters' own vote records, its voter sets, its comments (and their
// entries on the moderation list of hidden comments), its reports (and
// their entries on the open list) and its hash. The voters' records are
// passed as keys, read just before; if the voters changed meanwhile it
// changes nothing and answers -4, and the caller reads them again.
// KEYS: article hash, score:, time:, up voters, down voters, comments,
// hidden-comments:, open reports, the article's reports, then per site
// group its set and its two cached listings, then each voter's votes.
// ARGV: article id, user id, now (s), window (s), number of site groups,
// then the voters' ids in the order of their keys.
// Returns ownStep's numbers, -4, or the hash as it was.
var deleteArticleScript = redis.NewScript(ownStep + `
local id = ARGV[1]
local groupsEnd = 9 + 3 * tonumber(ARGV[5])
if redis.call('SCARD', KEYS[4]) + redis.call('SCARD', KEYS[5]) ~= #KEYS - groupsEnd then return -4 end
for i = 6, #ARGV do
  if redis.call('SISMEMBER', KEYS[4], ARGV[i]) == 0 and redis.call('SISMEMBER', KEYS[5], ARGV[i]) == 0 then return -4 end
end
for i = groupsEnd + 1, #KEYS do redis.call('HDEL', KEYS[i], id) end
local was = redis.call('HGETALL', KEYS[1])
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[3], id)
for i = 10, groupsEnd, 3 do
  redis.call('SREM', KEYS[i], id)
  redis.call('ZREM', KEYS[i + 1], id)
  redis.call('ZREM', KEYS[i + 2], id)
end
for i = 1, redis.call('LLEN', KEYS[6]) do redis.call('ZREM', KEYS[7], id .. '-' .. i) end
for _, f in ipairs(redis.call('HKEYS', KEYS[9])) do
  local thing = string.match(f, '^([^/]+)/')
  if thing then redis.call('ZREM', KEYS[8], thing) end
end
redis.call('DEL', KEYS[1], KEYS[4], KEYS[5], KEYS[6], KEYS[9])
return was`)

// casTries bounds the retries of a step that found its data changed
// between its read and its write (another reader voted, a moderator hid
// the comment): each retry reads again, so it is rare to need a second.
const casTries = 10

// DeleteArticle deletes an article for its author within EditWindow: it
// leaves every listing, group and count at once, with its votes,
// comments and reports, and through the events (ArticleDeleted) feeds,
// the author's profile and posts counter. Errors as EditArticle's.
func (s *Service) DeleteArticle(ctx context.Context, id, userID int64) (Article, error) {
	for range casTries {
		// Both sets at one moment (a reader moving between them is in
		// exactly one), and each voter once: the script's count check
		// then proves the list complete.
		voters, err := s.rdb.SUnion(ctx, keys.UpVoters(id), keys.DownVoters(id)).Result()
		if err != nil {
			return Article{}, fmt.Errorf("delete article %d: %w", id, err)
		}
		scriptKeys := []string{keys.Article(id), keys.ArticleScores, keys.ArticleTimes, keys.UpVoters(id), keys.DownVoters(id),
			keys.Comments(id), keys.HiddenComments, keys.OpenReports, keys.Reports(id)}
		for _, g := range ArticleGroups {
			scriptKeys = append(scriptKeys, keys.Group(g), keys.GroupListing(g, false), keys.GroupListing(g, true))
		}
		args := []any{id, userID, formatFloat(s.clock.Seconds()), formatFloat(EditWindow.Seconds()), len(ArticleGroups)}
		for _, v := range voters {
			u, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				continue
			}
			scriptKeys = append(scriptKeys, keys.MyVotes(u))
			args = append(args, u)
		}
		res, err := deleteArticleScript.Run(ctx, s.rdb, scriptKeys, args...).Result()
		if err != nil {
			return Article{}, fmt.Errorf("delete article %d: %w", id, err)
		}
		n, ok := res.(int64)
		if !ok {
			a := s.parseArticle(id, flatHash(res), VoteNone)
			a.EditLeft = 0
			return a, s.events.ArticleDeleted(ctx, a)
		}
		if n != -4 {
			return Article{}, ownErr(n)
		}
	}
	return Article{}, fmt.Errorf("delete article %d: its votes kept changing: %w", id, platform.ErrUnavailable)
}

// swapCommentScript replaces one stored comment with another if it is
// still exactly what the caller read (and its article is still shown),
// and for a delete takes it off the article's count and its open
// reports off the moderators' list.
// KEYS: comments list, article hash, open reports. ARGV: index (from 0),
// the JSON read, the new JSON, "1" for a delete, the comment's ref.
// Returns 1 when done, 0 when something changed (read again).
var swapCommentScript = redis.NewScript(`
if redis.call('LINDEX', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 or redis.call('HEXISTS', KEYS[2], 'hidden') == 1 then return 0 end
redis.call('LSET', KEYS[1], ARGV[1], ARGV[3])
if ARGV[4] == '1' then
  redis.call('HINCRBY', KEYS[2], 'comments', -1)
  redis.call('ZREM', KEYS[3], ARGV[5])
end
return 1`)

// EditComment changes a comment's text for its author within EditWindow
// and marks when. platform.ErrNotFound for a missing or deleted comment
// (or one a moderator hid, to anyone but its author, or one on a hidden
// article), ErrHidden, ErrNotAuthor, ErrEditClosed.
func (s *Service) EditComment(ctx context.Context, articleID, commentID, userID int64, body string) (Comment, error) {
	if strings.TrimSpace(body) == "" {
		return Comment{}, platform.ErrInvalid
	}
	return s.changeComment(ctx, articleID, commentID, userID, func(c *Comment) {
		c.Body, c.Edited = body, secondsTime(s.clock.Seconds())
	})
}

// DeleteComment deletes a comment for its author within EditWindow: its
// text is gone and it leaves the article's count, but it keeps its place
// (comments are numbered by place) and its replies stay, under a line
// saying it was deleted. Errors as EditComment's.
func (s *Service) DeleteComment(ctx context.Context, articleID, commentID, userID int64) (Comment, error) {
	return s.changeComment(ctx, articleID, commentID, userID, nil)
}

// changeComment reads a comment, checks that userID may change it now,
// and swaps in what change makes of it (nil deletes it), again from the
// read if the comment changed in between.
func (s *Service) changeComment(ctx context.Context, articleID, commentID, userID int64, change func(*Comment)) (Comment, error) {
	if commentID < 1 || userID <= 0 {
		return Comment{}, platform.ErrNotFound
	}
	for range casTries {
		pipe := s.rdb.Pipeline()
		rawCmd := pipe.LIndex(ctx, keys.Comments(articleID), commentID-1)
		hidden := pipe.HExists(ctx, keys.Article(articleID), "hidden")
		if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
			return Comment{}, fmt.Errorf("change comment: %w", platform.RealErr(cmds, err))
		}
		raw := rawCmd.Val()
		c, ok := s.parseComment(raw)
		if !ok || c.Deleted || hidden.Val() || (c.Hidden && c.UserID != userID) {
			return Comment{}, platform.ErrNotFound
		}
		c.ID, c.ArticleID = commentID, articleID
		switch {
		case c.Hidden:
			return Comment{}, ErrHidden
		case c.UserID != userID:
			return Comment{}, ErrNotAuthor
		case c.EditLeft <= 0:
			return Comment{}, ErrEditClosed
		}
		if change != nil {
			change(&c)
		} else {
			c.Body, c.Deleted, c.EditLeft = "", true, 0
		}
		next, err := json.Marshal(storedOf(c))
		if err != nil {
			return Comment{}, fmt.Errorf("change comment: %w", err)
		}
		del := "0"
		if c.Deleted {
			del = "1"
		}
		done, err := swapCommentScript.Run(ctx, s.rdb, []string{keys.Comments(articleID), keys.Article(articleID), keys.OpenReports},
			commentID-1, raw, next, del, CommentRef(articleID, commentID)).Int()
		if err != nil {
			return Comment{}, fmt.Errorf("change comment: %w", err)
		}
		if done == 1 {
			return c, nil
		}
	}
	return Comment{}, fmt.Errorf("change comment %s: it kept changing: %w", CommentRef(articleID, commentID), platform.ErrUnavailable)
}
