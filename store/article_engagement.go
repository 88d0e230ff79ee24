package store

import "context"

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
