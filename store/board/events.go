package board

import "context"

// Events is told about every successful post, edit, delete, vote, comment and hide on
// the board, after the change is stored. Social implements it (feeds,
// posts counters, notifications) and the wiring installs it with
// SetEvents; until then nothing listens. Implementations run inside the
// request, so they should be quick, and they handle (log) their own
// errors: the post, vote or comment has already happened.
type Events interface {
	// ArticlePosted follows a new article (a.PosterID is its author).
	ArticlePosted(ctx context.Context, a Article)
	// ArticleVoted follows a vote that changed something: dir is VoteUp,
	// VoteDown or VoteNone (a vote taken back). a is the article after the
	// vote, with the voter's MyVote.
	ArticleVoted(ctx context.Context, a Article, voterID int64, dir string)
	// ArticleCommented follows a new comment c on a (c.Parent > 0 for a
	// reply, with c.ReplyToUserID the author of the comment it answers).
	ArticleCommented(ctx context.Context, a Article, c Comment)
	// ArticleEdited follows its author changing a's title, link or body.
	ArticleEdited(ctx context.Context, a Article)
	// ArticleDeleted follows its author deleting a, which has left the
	// board already; what ArticlePosted recorded goes too. Its error is
	// DeleteArticle's.
	ArticleDeleted(ctx context.Context, a Article) error
	// ArticleHidden follows a moderator hiding a, which has left the
	// board's listings already; its error is HideArticle's.
	ArticleHidden(ctx context.Context, a Article) error
	// ArticleUnhidden follows a moderator showing a hidden article again,
	// which is back in the board's listings already: what ArticleHidden
	// took away comes back. Its error is UnhideArticle's.
	ArticleUnhidden(ctx context.Context, a Article) error
}

// SetEvents installs the listener for board events; nil removes it.
func (s *Service) SetEvents(e Events) {
	if e == nil {
		e = noEvents{}
	}
	s.events = e
}

// noEvents is the listener in force until one is installed.
type noEvents struct{}

func (noEvents) ArticlePosted(context.Context, Article)               {}
func (noEvents) ArticleVoted(context.Context, Article, int64, string) {}
func (noEvents) ArticleCommented(context.Context, Article, Comment)   {}
func (noEvents) ArticleEdited(context.Context, Article)               {}
func (noEvents) ArticleDeleted(context.Context, Article) error        { return nil }
func (noEvents) ArticleHidden(context.Context, Article) error         { return nil }
func (noEvents) ArticleUnhidden(context.Context, Article) error       { return nil }
