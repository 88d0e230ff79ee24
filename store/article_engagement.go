package store

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
)

// engagementEvents connects the article board to engagement: a new article
// is recorded for its author (posts counter, profile) and fanned out to the
// followers' feeds; votes and comments notify the author. Errors are logged,
// not returned: the post, vote or comment has already happened, and
// RecordPost is idempotent so a later retry is safe.
type engagementEvents struct{ s *Store }

// ArticlePosted records the article and fans it out.
func (e engagementEvents) ArticlePosted(ctx context.Context, a Article) {
	err := e.s.RecordPost(ctx, FeedEntry{
		ArticleID: a.ID, AuthorID: a.PosterID, AuthorName: a.Poster,
		Title: a.Title, Link: a.Link, PostedAt: float64(a.Posted.UnixMicro()) / 1e6,
	})
	if err != nil {
		e.s.log.Warn("article posted: record for feeds", "article", a.ID, "err", err)
	}
}

// ArticleVoted notifies the author of a new up or down vote (not of a vote
// taken back).
func (e engagementEvents) ArticleVoted(ctx context.Context, a Article, voterID int64, dir string) {
	if dir == VoteNone || voterID == a.PosterID {
		return
	}
	name := "someone"
	if u, err := e.s.UserByID(ctx, voterID); err == nil {
		name = u.Username
	}
	if err := e.s.NotifyVote(ctx, a.PosterID, voterID, name, a.ID, a.Title, dir); err != nil {
		e.s.log.Warn("article voted: notify", "article", a.ID, "err", err)
	}
}

// ArticleCommented notifies the author of a comment.
func (e engagementEvents) ArticleCommented(ctx context.Context, a Article, c Comment) {
	if err := e.s.NotifyComment(ctx, a.PosterID, c.UserID, c.User, a.ID, a.Title); err != nil {
		e.s.log.Warn("article commented: notify", "article", a.ID, "err", err)
	}
}

// unpostScript takes a hidden article off its author's profile and posts
// counter, together, in the author's slot. KEYS: posts, counts. ARGV: id.
var unpostScript = redis.NewScript(`
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'posts', -1)
end
return 1`)

// ArticleHidden takes a hidden article out of feeds (they hold only ids
// and read the entry from post:<id>: without it every feed skips the
// article) and off its author's profile and posts counter.
func (e engagementEvents) ArticleHidden(ctx context.Context, a Article) error {
	if err := e.s.rdb.Unlink(ctx, keys.Post(a.ID)).Err(); err != nil {
		return fmt.Errorf("hide article %d: feed entry: %w", a.ID, err)
	}
	if a.PosterID > 0 {
		if err := unpostScript.Run(ctx, e.s.rdb, []string{keys.Posts(a.PosterID), keys.UserCounts(a.PosterID)}, a.ID).Err(); err != nil {
			return fmt.Errorf("hide article %d: author's posts: %w", a.ID, err)
		}
	}
	return nil
}
