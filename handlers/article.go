package handlers

import (
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/store"
	"storefront/views"
)

// ShowArticle is an article's page with its comments.
func (h *Handler) ShowArticle(c echo.Context) error {
	id, err := articleIDParam(c)
	if err != nil {
		return err
	}
	return h.renderArticle(c, id, http.StatusOK, views.CommentForm{})
}

func (h *Handler) renderArticle(c echo.Context, id int64, status int, form views.CommentForm) error {
	s := session(c)
	a, comments, err := h.store.ArticleWithComments(c.Request().Context(), id, s.UserID)
	if err != nil {
		return articleNotFound(err)
	}
	now := time.Now()
	d := views.ArticleData{
		Row: articleRow(a, now), Next: views.ArticleURL(id), SignedIn: s.SignedIn(), Form: form,
		LoginURL: "/login?next=" + url.QueryEscape(views.ArticleURL(id)+"#comments"),
	}
	for _, cm := range comments {
		d.Comments = append(d.Comments, views.CommentView{
			ID: cm.ID, User: cm.User, Body: cm.Body, Age: ageText(now.Sub(cm.Posted)), PostedAt: cm.Posted.UTC().Format(time.RFC3339)})
	}
	noStore(c)
	return render(c, status, views.ArticlePage(h.chrome(c, a.Title), d))
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
	id, err := articleIDParam(c)
	if err != nil {
		return err
	}
	dir := c.FormValue("dir")
	if dir != store.VoteUp && dir != store.VoteDown && dir != store.VoteNone {
		return badRequest("A vote must be up, down or none.")
	}
	back := returnPath(c, views.ArticleURL(id))
	s := session(c)
	if !s.SignedIn() {
		return h.needSignIn(c, back, "Sign in to vote.")
	}
	if err := h.limit(c, "vote", itoa(s.UserID), h.cfg.Rates.Vote, "You are voting very quickly."); err != nil {
		return err
	}
	a, _, err := h.store.Vote(c.Request().Context(), id, s.UserID, dir)
	if err != nil {
		return articleNotFound(err)
	}
	if wantsJSON(c) {
		noStore(c)
		return c.JSON(http.StatusOK, voteResponse{ID: a.ID, Score: a.Score, Up: a.Up, Down: a.Down, MyVote: a.MyVote, Open: a.Open})
	}
	if !a.Open {
		h.setFlash(c, "Voting on this article has closed.")
	}
	if !strings.Contains(back, "#") {
		back += "#article-" + itoa(id)
	}
	return redirect(c, back)
}

// returnPath is where a form goes back to: its next field, else the
// Referer when it is a page of this site, else fallback.
func returnPath(c echo.Context, fallback string) string {
	if p := localPath(c.FormValue("next"), ""); p != "" {
		return p
	}
	ref, err := url.Parse(c.Request().Referer())
	if err == nil && ref.Host == c.Request().Host && (ref.Scheme == "http" || ref.Scheme == "https") {
		return localPath(ref.RequestURI(), fallback)
	}
	return fallback
}

// CommentArticle adds a comment (1 to 2,000 characters) for a signed-in
// reader, at most COMMENT_RATE per reader.
func (h *Handler) CommentArticle(c echo.Context) error {
	id, err := articleIDParam(c)
	if err != nil {
		return err
	}
	s := session(c)
	if !s.SignedIn() {
		return h.needSignIn(c, views.ArticleURL(id)+"#comments", "Sign in to comment.")
	}
	body := strings.TrimSpace(strings.ReplaceAll(c.FormValue("body"), "\r\n", "\n"))
	if msg := checkComment(body); msg != "" {
		if wantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg})
		}
		return h.renderArticle(c, id, http.StatusUnprocessableEntity, views.CommentForm{Body: body, Error: msg})
	}
	if err := h.limit(c, "comment", itoa(s.UserID), h.cfg.Rates.Comment, "You are commenting faster than we allow."); err != nil {
		return err
	}
	cm, err := h.store.AddComment(c.Request().Context(), id, s.UserID, s.UserName, body)
	if err != nil {
		return articleNotFound(err)
	}
	if wantsJSON(c) {
		return c.JSON(http.StatusCreated, map[string]any{"id": cm.ID, "article_id": id, "user": cm.User, "body": cm.Body})
	}
	h.setFlash(c, "Your comment is posted.")
	return redirect(c, views.ArticleURL(id)+"#comment-"+itoa(cm.ID))
}

// checkComment says what is wrong with a comment's text, or "".
func checkComment(body string) string {
	n := utf8.RuneCountInString(body)
	switch {
	case n == 0:
		return "Write something first."
	case n > maxCommentLen:
		return "Comments can be at most 2,000 characters long."
	case !utf8.ValidString(body) || strings.ContainsFunc(body, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }):
		return "The comment contains characters we cannot show."
	}
	return ""
}
