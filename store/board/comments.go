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

// Comment is one reader's comment on an article.
type Comment struct {
	ID        int64 // 1 for an article's first comment, and so on
	ArticleID int64
	UserID    int64
	User      string
	Body      string
	Posted    time.Time
	// Hidden is set when a moderator hid the comment: only its author and
	// admins still see that it was there.
	Hidden bool
}

// storedComment is a comment as JSON in `comments:<id>`.
type storedComment struct {
	UserID int64   `json:"user_id"`
	User   string  `json:"user"`
	Body   string  `json:"body"`
	Time   float64 `json:"time"`
	Hidden bool    `json:"hidden,omitempty"`
}

// addComment appends a comment to an existing article and counts it in the
// article's hash, atomically. KEYS: article hash, comments list. ARGV: the
// comment's JSON. Returns nil for a missing or hidden article, else
// {comment number, the article's hash as a flat list}. The number is the
// comment's place in the list; the hash's count is of visible comments
// (a moderator's hide takes one off).
var addComment = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'hidden') == 1 then return false end
local n = redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'comments', 1)
return {n, redis.call('HGETALL', KEYS[1])}`)

// AddComment stores a comment. platform.ErrNotFound for a missing article, platform.ErrInvalid
// for an empty body. Length limits are the caller's.
func (s *Service) AddComment(ctx context.Context, articleID, userID int64, user, body string) (Comment, error) {
	if strings.TrimSpace(body) == "" || userID <= 0 {
		return Comment{}, platform.ErrInvalid
	}
	now := s.clock.Seconds()
	raw, err := json.Marshal(storedComment{UserID: userID, User: user, Body: body, Time: now})
	if err != nil {
		return Comment{}, fmt.Errorf("add comment: %w", err)
	}
	res, err := addComment.Run(ctx, s.rdb, []string{keys.Article(articleID), keys.Comments(articleID)}, raw).Slice()
	if errors.Is(err, redis.Nil) {
		return Comment{}, platform.ErrNotFound
	}
	if err != nil {
		return Comment{}, fmt.Errorf("add comment: %w", err)
	}
	n, _ := res[0].(int64)
	c := Comment{ID: n, ArticleID: articleID, UserID: userID, User: user, Body: body, Posted: secondsTime(now)}
	s.events.ArticleCommented(ctx, s.parseArticle(articleID, flatHash(res[1]), VoteNone), c)
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
		c, ok := parseComment(raw)
		if !ok {
			continue
		}
		c.ID, c.ArticleID = first+int64(i), id
		comments = append(comments, c)
	}
	return a, comments, nil
}

// parseComment reads a stored comment's JSON (without its numbers).
func parseComment(raw string) (Comment, bool) {
	var sc storedComment
	if json.Unmarshal([]byte(raw), &sc) != nil {
		return Comment{}, false
	}
	return Comment{UserID: sc.UserID, User: sc.User, Body: sc.Body, Posted: secondsTime(sc.Time), Hidden: sc.Hidden}, true
}
