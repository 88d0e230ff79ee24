package board

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/keys"
	"storefront/views"
)

// ShowArticle is an article's page with its comments.
func (h *Handler) ShowArticle(c echo.Context) error {
	id, err := web.ArticleIDParam(c)
	if err != nil {
		return err
	}
	return h.renderArticle(c, id, http.StatusOK, views.CommentForm{})
}

func (h *Handler) renderArticle(c echo.Context, id int64, status int, form views.CommentForm) error {
	s := web.SessionOf(c)
	a, comments, err := h.articles.ArticleWithComments(c.Request().Context(), id, s.UserID)
	if err != nil {
		return web.ArticleNotFound(err)
	}
	// A hidden article is gone for everyone but its poster and admins.
	if a.Hidden && !s.IsAdmin && (s.UserID == 0 || s.UserID != a.PosterID) {
		return web.NotFound("There is no article with that number.")
	}
	now := time.Now()
	d := views.ArticleData{
		Row: web.ArticleRow(a, now), Next: views.ArticleURL(id), SignedIn: s.SignedIn() && !a.Hidden, Form: form,
		LoginURL: "/login?next=" + url.QueryEscape(views.ArticleURL(id)+"#comments"),
		Hidden:   a.Hidden, Moderator: s.IsAdmin,
		CanEditGroups: !a.Hidden && s.SignedIn() && (s.UserID == a.PosterID || s.IsAdmin),
		SiteGroups:    board.ArticleGroups,
	}
	for _, cm := range comments {
		// A hidden comment stays only for its author and admins, marked.
		if cm.Hidden && !s.IsAdmin && (s.UserID == 0 || s.UserID != cm.UserID) {
			continue
		}
		d.Comments = append(d.Comments, views.CommentView{
			ID: cm.ID, Ref: board.CommentRef(id, cm.ID), User: cm.User, Body: cm.Body, Hidden: cm.Hidden,
			Age: web.AgeText(now.Sub(cm.Posted)), PostedAt: cm.Posted.UTC().Format(time.RFC3339)})
	}
	return web.Render(c, status, views.ArticlePage(h.web.Chrome(c, a.Title), d))
}

// voteResponse is the JSON answer to a vote.
type voteResponse struct {
	ID     int64   `json:"id"`
	Score  float64 `json:"score"`
	Up     int64   `json:"up"`
	Down   int64   `json:"down"`
	MyVote string  `json:"my_vote"`
	Open   bool    `json:"open"`
}

// VoteArticle records a vote: dir=up|down|none (none takes a vote back).
// JSON clients get the article's new tally; forms go back where they came
// from (post/redirect/get).
func (h *Handler) VoteArticle(c echo.Context) error {
	id, err := web.ArticleIDParam(c)
	if err != nil {
		return err
	}
	dir := c.FormValue("dir")
	if dir != board.VoteUp && dir != board.VoteDown && dir != board.VoteNone {
		return web.BadRequest("A vote must be up, down or none.")
	}
	back := web.ReturnPath(c, views.ArticleURL(id))
	s := web.SessionOf(c)
	if err := h.web.Limit(c, keys.RateVote, web.Itoa(s.UserID), h.cfg.Vote, "You are voting very quickly."); err != nil {
		return err
	}
	a, _, err := h.articles.Vote(c.Request().Context(), id, s.UserID, dir)
	if err != nil {
		return web.ArticleNotFound(err)
	}
	if web.WantsJSON(c) {
		web.NoStore(c)
		return c.JSON(http.StatusOK, voteResponse{ID: a.ID, Score: a.Score, Up: a.Up, Down: a.Down, MyVote: a.MyVote, Open: a.Open})
	}
	if !a.Open {
		h.web.SetFlash(c, "Voting on this article has closed.")
	}
	if !strings.Contains(back, "#") {
		back += "#article-" + web.Itoa(id)
	}
	return web.Redirect(c, back)
}

// CommentArticle adds a comment (1 to 2,000 characters) for a signed-in
// reader, at most COMMENT_RATE per reader.
func (h *Handler) CommentArticle(c echo.Context) error {
	id, err := web.ArticleIDParam(c)
	if err != nil {
		return err
	}
	s := web.SessionOf(c)
	body := strings.TrimSpace(strings.ReplaceAll(c.FormValue("body"), "\r\n", "\n"))
	if msg := web.CheckText(body, "comment"); msg != "" {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg})
		}
		return h.renderArticle(c, id, http.StatusUnprocessableEntity, views.CommentForm{Body: body, Error: msg})
	}
	if err := h.web.Limit(c, keys.RateComment, web.Itoa(s.UserID), h.cfg.Comment, "You are commenting faster than we allow."); err != nil {
		// A form post over the limit gets the article back with the text
		// as typed and the wait by the box, not a bare error page.
		var rl *web.RateLimited
		if web.WantsJSON(c) || !errors.As(err, &rl) {
			return err
		}
		c.Response().Header().Set("Retry-After", strconv.Itoa(rl.RetryAfter))
		return h.renderArticle(c, id, http.StatusTooManyRequests, views.CommentForm{Body: body, Error: rl.Message})
	}
	cm, err := h.articles.AddComment(c.Request().Context(), id, s.UserID, s.UserName, body)
	if err != nil {
		return web.ArticleNotFound(err)
	}
	if web.WantsJSON(c) {
		return c.JSON(http.StatusCreated, map[string]any{"id": cm.ID, "article_id": id, "user": cm.User, "body": cm.Body})
	}
	h.web.SetFlash(c, "Your comment is posted.")
	return web.Redirect(c, views.ArticleURL(id)+"#comment-"+web.Itoa(cm.ID))
}
