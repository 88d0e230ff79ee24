package store

import "context"

// ArticleEvents is told about every successful post, vote and comment on
// the article board, after the change is stored. The engagement feature
// (feeds, notifications, user counters) implements it and installs it with
// SetArticleEvents; until then nothing listens. Implementations run inside
// the request, so they should be quick, and they handle (log) their own
// errors: the post, vote or comment has already happened.
type ArticleEvents interface {
	// ArticlePosted follows a new article (a.PosterID is its author).
	ArticlePosted(ctx context.Context, a Article)
	// ArticleVoted follows a vote that changed something: dir is VoteUp,
	// VoteDown or VoteNone (a vote taken back). a is the article after the
	// vote, with the voter's MyVote.
	ArticleVoted(ctx context.Context, a Article, voterID int64, dir string)
	// ArticleCommented follows a new comment c on a.
	ArticleCommented(ctx context.Context, a Article, c Comment)
}

// SetArticleEvents installs the listener for article events; nil removes it.
func (s *Store) SetArticleEvents(e ArticleEvents) {
	if e == nil {
		e = noArticleEvents{}
	}
	s.articles.events = e
}

// noArticleEvents is the listener in force until one is installed.
type noArticleEvents struct{}

func (noArticleEvents) ArticlePosted(context.Context, Article)               {}
func (noArticleEvents) ArticleVoted(context.Context, Article, int64, string) {}
func (noArticleEvents) ArticleCommented(context.Context, Article, Comment)   {}
