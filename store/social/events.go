package social

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"storefront/store/board"
	"storefront/store/keys"
)

// BoardEvents is social's listener of the board's events (the wiring
// installs it with board.SetEvents).
func (s *Service) BoardEvents() board.Events { return boardEvents{s: s} }

// boardEvents connects the article board to the social side: a new article
// is recorded for its author (posts counter, profile) and fanned out to the
// followers' feeds, an edit changes its feed entry, a delete or a hide
// takes it back; votes and comments notify the author, replies the author
// of the comment answered. Errors are logged,
// not returned: the post, vote or comment has already happened, and
// RecordPost is idempotent so a later retry is safe.
type boardEvents struct{ s *Service }

// ArticlePosted records the article and fans it out.
func (e boardEvents) ArticlePosted(ctx context.Context, a board.Article) {
	if err := e.s.RecordPost(ctx, feedEntryOf(a)); err != nil {
		e.s.log.Warn("article posted: record for feeds", "article", a.ID, "err", err)
	}
}

// feedEntryOf is an article as feeds keep it, at its post time.
func feedEntryOf(a board.Article) FeedEntry {
	return FeedEntry{ArticleID: a.ID, AuthorID: a.PosterID, AuthorName: a.Poster,
		Title: a.Title, Link: a.Link, PostedAt: float64(a.Posted.UnixMicro()) / 1e6}
}

// ArticleVoted notifies the author of a new up or down vote (not of a vote
// taken back).
func (e boardEvents) ArticleVoted(ctx context.Context, a board.Article, voterID int64, dir string) {
	if dir == board.VoteNone || voterID == a.PosterID {
		return
	}
	name := "someone"
	if u, err := e.s.users.UserByID(ctx, voterID); err == nil {
		name = u.Username
	}
	if err := e.s.notify.NotifyVote(ctx, a.PosterID, voterID, name, a.ID, a.Title, dir); err != nil {
		e.s.log.Warn("article voted: notify", "article", a.ID, "err", err)
	}
}

// ArticleCommented notifies the article's author of a comment, and the
// author of the comment a reply answers of the reply (once, when both are
// the same reader).
func (e boardEvents) ArticleCommented(ctx context.Context, a board.Article, c board.Comment) {
	if c.ReplyToUserID > 0 {
		if err := e.s.notify.NotifyReply(ctx, c.ReplyToUserID, c.UserID, c.User, a.ID, a.Title); err != nil {
			e.s.log.Warn("comment replied: notify", "article", a.ID, "err", err)
		}
		if c.ReplyToUserID == a.PosterID {
			return
		}
	}
	if err := e.s.notify.NotifyComment(ctx, a.PosterID, c.UserID, c.User, a.ID, a.Title); err != nil {
		e.s.log.Warn("article commented: notify", "article", a.ID, "err", err)
	}
}

// editPostScript writes an edited title and link into an article's feed
// entry, if it has one (RecordPost writes the whole entry; a bare title
// must not make one). KEYS: post:<id>. ARGV: title, link.
var editPostScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'title', ARGV[1], 'link', ARGV[2])
return 1`)

// ArticleEdited gives feeds and profiles the article's new title and
// link: they read them from its feed entry.
func (e boardEvents) ArticleEdited(ctx context.Context, a board.Article) {
	if err := editPostScript.Run(ctx, e.s.rdb, []string{keys.Post(a.ID)}, a.Title, a.Link).Err(); err != nil {
		e.s.log.Warn("article edited: feed entry", "article", a.ID, "err", err)
	}
}

// ArticleDeleted takes a deleted article out of feeds, off its author's
// profile and posts counter, as hiding does.
func (e boardEvents) ArticleDeleted(ctx context.Context, a board.Article) error {
	return e.unpost(ctx, a)
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
func (e boardEvents) ArticleHidden(ctx context.Context, a board.Article) error {
	return e.unpost(ctx, a)
}

// unpost takes an article out of feeds and off its author's profile and
// posts counter.
func (e boardEvents) unpost(ctx context.Context, a board.Article) error {
	if err := e.s.rdb.Unlink(ctx, keys.Post(a.ID)).Err(); err != nil {
		return fmt.Errorf("unpost article %d: feed entry: %w", a.ID, err)
	}
	if a.PosterID > 0 {
		if err := unpostScript.Run(ctx, e.s.rdb, []string{keys.Posts(a.PosterID), keys.UserCounts(a.PosterID)}, a.ID).Err(); err != nil {
			return fmt.Errorf("unpost article %d: author's posts: %w", a.ID, err)
		}
	}
	return nil
}

// ArticleUnhidden puts back what ArticleHidden took: the feed entry (the
// followers' feeds still hold the id, and the fan-out adds it, at its post
// time, to those built meanwhile), the author's profile entry and posts
// counter. RecordPost does exactly that, idempotently.
func (e boardEvents) ArticleUnhidden(ctx context.Context, a board.Article) error {
	if a.PosterID <= 0 {
		return nil
	}
	if err := e.s.RecordPost(ctx, feedEntryOf(a)); err != nil {
		return fmt.Errorf("unhide article %d: %w", a.ID, err)
	}
	return nil
}
