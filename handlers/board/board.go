// Package board answers the community article board: the lists (top and
// new, per group), an article with its comments and replies, posting,
// votes, comments and group edits, authors editing and deleting their own
// articles and comments, readers' reports, people's pages with follows,
// and the reader's feed.
// Scores and votes are the board's (store/board); follows, feeds and
// profiles are social's (store/social). Tests: through the real router in
// handlers/ (articles_test.go, articlegroups_test.go, engage_test.go,
// board_engage_test.go, board_edit_test.go, board_reports_test.go).
package board

import (
	"context"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/ratelimit"
	"storefront/store/sessions"
	"storefront/store/social"
)

// Articles is what the area asks of the board domain.
type Articles interface {
	Articles(ctx context.Context, q board.ArticleQuery) (board.ArticlePage, error)
	ArticlesByID(ctx context.Context, ids []int64, viewerID int64) ([]board.Article, error)
	ArticleWithComments(ctx context.Context, id, viewerID int64) (board.Article, []board.Comment, error)
	PostArticle(ctx context.Context, p board.NewArticle) (board.Article, error)
	Vote(ctx context.Context, articleID, userID int64, dir string) (board.Article, bool, error)
	AddReply(ctx context.Context, articleID, userID int64, user, body string, replyTo int64) (board.Comment, error)
	EditArticleGroups(ctx context.Context, id int64, add, remove []string) ([]string, error)
	EditArticle(ctx context.Context, id, userID int64, e board.ArticleEdit) (board.Article, error)
	DeleteArticle(ctx context.Context, id, userID int64) (board.Article, error)
	CommentByID(ctx context.Context, articleID, commentID int64) (board.Comment, error)
	EditComment(ctx context.Context, articleID, commentID, userID int64, body string) (board.Comment, error)
	DeleteComment(ctx context.Context, articleID, commentID, userID int64) (board.Comment, error)
	ReportPost(ctx context.Context, r board.NewReport) error
}

// Social is what people's pages and the feed read and change.
//
// The feed renders from the entries stored with it (social.FeedEntry:
// title, link, author, time); scores, vote counts and the reader's own
// vote are joined in from the board (withVotes).
type Social interface {
	Profile(ctx context.Context, userID, viewerID, n int64) (social.Profile, error)
	Posts(ctx context.Context, ids []int64) ([]social.FeedEntry, error)
	CommonFollows(ctx context.Context, a, b int64, limit int) ([]int64, error)
	Follow(ctx context.Context, followerID, targetID int64, follow bool) (social.FollowResult, error)
	FeedPage(ctx context.Context, userID int64, page, perPage int) ([]social.FeedEntry, int64, error)
}

// Users finds people by name and by id.
type Users interface {
	UserByName(ctx context.Context, name string) (sessions.User, error)
	UsersByID(ctx context.Context, ids []int64) (map[int64]sessions.User, error)
}

// Notifier tells a user about a new follower.
type Notifier interface {
	NotifyFollower(ctx context.Context, userID int64, followerName string) error
}

// Deps are the domain services the board reads.
type Deps struct {
	Articles Articles
	Social   Social
	Users    Users
	Notifier Notifier
}

// Config is the board's page size and limits.
type Config struct {
	// PerPage is the articles on one page of a list or the feed.
	PerPage int
	// Post, Vote, Comment, Follow and Report limit each per account.
	Post, Vote, Comment, Follow, Report ratelimit.Rate
}

// Handler answers the board's routes.
type Handler struct {
	cfg      Config
	web      *web.Kit
	articles Articles
	social   Social
	users    Users
	notifier Notifier
}

// New builds the board area.
func New(cfg Config, kit *web.Kit, d Deps) *Handler {
	return &Handler{cfg: cfg, web: kit, articles: d.Articles, social: d.Social, users: d.Users, notifier: d.Notifier}
}
