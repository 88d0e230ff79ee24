package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// CommentsShown is how many of an article's newest comments its page shows.
const CommentsShown = 500

// Comment is one reader's comment on an article, or a reply to one.
type Comment struct {
	ID        int64 // 1 for an article's first comment, and so on
	ArticleID int64
	UserID    int64
	User      string
	Body      string
	Posted    time.Time
	// Parent is the number of the comment this one replies to, 0 for a
	// comment on the article itself. Replies go one level deep: a reply
	// to a reply is a reply to the comment that started the thread, and
	// To names the reader it answered.
	Parent int64
	To     string
	// Edited is when its author last changed it (zero if never).
	Edited time.Time
	// EditLeft is how long its author may still edit or delete it (zero
	// after EditWindow, and for a hidden or deleted comment).
	EditLeft time.Duration
	// Deleted is set once its author deleted it: the text is gone, and
	// pages show only that it was there when replies hang from it.
	Deleted bool
	// Hidden is set when a moderator hid the comment: only its author and
	// admins still see that it was there.
	Hidden bool
	// ReplyToUserID is, on a new reply only, the author of the comment it
	// answers (for the notification); it is not stored.
	ReplyToUserID int64
}

// storedComment is a comment as JSON in `comments:<id>`. Hiding appends
// "hidden" as text (hiddenSuffix), so it stays the last member.
type storedComment struct {
	UserID  int64   `json:"user_id"`
	User    string  `json:"user"`
	Body    string  `json:"body"`
	Time    float64 `json:"time"`
	Parent  int64   `json:"parent,omitempty"`
	To      string  `json:"to,omitempty"`
	Edited  float64 `json:"edited,omitempty"`
	Deleted bool    `json:"deleted,omitempty"`
	Hidden  bool    `json:"hidden,omitempty"`
}

// storedOf is a comment as it is stored.
func storedOf(c Comment) storedComment {
	sc := storedComment{UserID: c.UserID, User: c.User, Body: c.Body, Time: unixSeconds(c.Posted),
		Parent: c.Parent, To: c.To, Deleted: c.Deleted}
	if !c.Edited.IsZero() {
		sc.Edited = unixSeconds(c.Edited)
	}
	return sc
}

// addComment appends a comment to an existing article and counts it in the
// article's hash, atomically. KEYS: article hash, comments list. ARGV: the
// comment's JSON, the number of the comment it replies to (0 for none).
// Returns nil for a missing or hidden article, -1 when the comment replied
// to is gone, hidden, deleted or itself a reply, else {comment number, the
// article's hash as a flat list}. The number is the comment's place in the
// list; the hash's count is of visible comments (a moderator's hide and an
// author's delete take one off).
var addComment = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'hidden') == 1 then return false end
local parent = tonumber(ARGV[2])
if parent > 0 then
  local raw = redis.call('LINDEX', KEYS[2], parent - 1)
  if not raw then return -1 end
  local ok, p = pcall(cjson.decode, raw)
  if not ok or p.hidden or p.deleted or (tonumber(p.parent) or 0) > 0 then return -1 end
end
local n = redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'comments', 1)
return {n, redis.call('HGETALL', KEYS[1])}`)

// ErrReplyGone is AddComment's answer to a reply whose comment has gone:
// deleted by its author, hidden by a moderator, or never there.
var ErrReplyGone = errors.New("the comment replied to is gone")

// AddComment stores a comment on an article. platform.ErrNotFound for a
// missing article, platform.ErrInvalid for an empty body. Length limits
// are the caller's.
func (s *Service) AddComment(ctx context.Context, articleID, userID int64, user, body string) (Comment, error) {
	return s.AddReply(ctx, articleID, userID, user, body, 0)
}

// AddReply stores a reply to comment number replyTo (to the comment that
// started its thread when replyTo is itself a reply), or with replyTo 0 a
// comment. Errors as AddComment's, and ErrReplyGone for a reply to a
// comment that is gone.
func (s *Service) AddReply(ctx context.Context, articleID, userID int64, user, body string, replyTo int64) (Comment, error) {
	if strings.TrimSpace(body) == "" || userID <= 0 || replyTo < 0 {
		return Comment{}, platform.ErrInvalid
	}
	c := Comment{ArticleID: articleID, UserID: userID, User: user, Body: body, Posted: secondsTime(s.clock.Seconds())}
	if replyTo > 0 {
		to, err := s.CommentByID(ctx, articleID, replyTo)
		if errors.Is(err, platform.ErrNotFound) {
			return Comment{}, ErrReplyGone
		}
		if err != nil {
			return Comment{}, err
		}
		if to.Deleted || to.Hidden {
			return Comment{}, ErrReplyGone
		}
		c.Parent, c.ReplyToUserID = replyTo, to.UserID
		if to.Parent > 0 { // a reply to a reply joins the thread
			c.Parent, c.To = to.Parent, to.User
		}
	}
	raw, err := json.Marshal(storedOf(c))
	if err != nil {
		return Comment{}, fmt.Errorf("add comment: %w", err)
	}
	res, err := addComment.Run(ctx, s.rdb, []string{keys.Article(articleID), keys.Comments(articleID)}, raw, c.Parent).Result()
	if errors.Is(err, redis.Nil) {
		return Comment{}, platform.ErrNotFound
	}
	if err != nil {
		return Comment{}, fmt.Errorf("add comment: %w", err)
	}
	list, ok := res.([]any)
	if !ok {
		return Comment{}, ErrReplyGone
	}
	c.ID, _ = list[0].(int64)
	c.EditLeft = EditWindow
	s.events.ArticleCommented(ctx, s.parseArticle(articleID, flatHash(list[1]), VoteNone), c)
	return c, nil
}

// ArticleWithComments reads an article with the viewer's vote and its
// newest CommentsShown comments, oldest first, in one round trip. It reads
// in a transaction so that the comment numbers match the list.
func (s *Service) ArticleWithComments(ctx context.Context, id, viewerID int64) (Article, []Comment, error) {
	pipe := s.rdb.TxPipeline()
	r := s.addReadArticle(ctx, pipe, id, viewerID)
	list := pipe.LRange(ctx, keys.Comments(id), -CommentsShown, -1)
	total := pipe.LLen(ctx, keys.Comments(id))
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return Article{}, nil, fmt.Errorf("article %d: %w", id, err)
	}
	a, ok := s.articleFrom(id, r)
	if !ok {
		return Article{}, nil, platform.ErrNotFound
	}
	first := total.Val() - int64(len(list.Val())) + 1
	comments := make([]Comment, 0, len(list.Val()))
	for i, raw := range list.Val() {
		c, ok := s.parseComment(raw)
		if !ok {
			continue
		}
		c.ID, c.ArticleID = first+int64(i), id
		comments = append(comments, c)
	}
	return a, comments, nil
}

// parseComment reads a stored comment's JSON (without its numbers).
func (s *Service) parseComment(raw string) (Comment, bool) {
	sc, ok := decodeComment(raw)
	if !ok {
		return Comment{}, false
	}
	c := Comment{UserID: sc.UserID, User: sc.User, Body: sc.Body, Posted: secondsTime(sc.Time),
		Parent: sc.Parent, To: sc.To, Deleted: sc.Deleted, Hidden: sc.Hidden}
	if sc.Edited > 0 {
		c.Edited = secondsTime(sc.Edited)
	}
	if !c.Deleted && !c.Hidden {
		c.EditLeft = editLeft(sc.Time, s.clock.Seconds())
	}
	return c, true
}

func decodeComment(raw string) (storedComment, bool) {
	var sc storedComment
	return sc, json.Unmarshal([]byte(raw), &sc) == nil
}
