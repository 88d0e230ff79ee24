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
	id, slug, err := web.ArticleRef(c)
	if err != nil {
		return err
	}
	return h.renderArticle(c, id, &slug, http.StatusOK, views.CommentForm{})
}

// renderArticle renders an article's page; slug, when not nil, is the
// words its URL gave, and words that are not the title's current slug
// move the page to its URL (301).
func (h *Handler) renderArticle(c echo.Context, id int64, slug *string, status int, form views.CommentForm) error {
	s := web.SessionOf(c)
	a, comments, err := h.articles.ArticleWithComments(c.Request().Context(), id, s.UserID)
	if err != nil {
		return web.ArticleNotFound(err)
	}
	// A hidden article is gone for everyone but its poster and admins.
	if a.Hidden && !s.IsAdmin && (s.UserID == 0 || s.UserID != a.PosterID) {
		return web.NotFound("There is no article with that number.")
	}
	if slug != nil && !views.SlugMatches(a.Title, *slug) {
		return h.web.MovedTo(c, views.ArticleURL(id, a.Title))
	}
	now := time.Now()
	mine := s.SignedIn() && s.UserID == a.PosterID
	d := views.ArticleData{
		Row: web.ArticleRow(a, now), Next: views.ArticleURL(id, a.Title), SignedIn: s.SignedIn() && !a.Hidden, Form: form,
		LoginURL: "/login?next=" + url.QueryEscape(views.ArticleURL(id, a.Title)+"#comments"),
		Hidden:   a.Hidden, Moderator: s.IsAdmin,
		CanEditGroups: !a.Hidden && s.SignedIn() && (mine || s.IsAdmin),
		SiteGroups:    board.ArticleGroups,
		CanReport:     s.SignedIn() && !mine && !a.Hidden,
		Comments:      commentTree(comments, s, now),
	}
	if mine && a.EditLeft > 0 {
		d.EditLeft = leftText(a.EditLeft)
	}
	return web.Render(c, status, views.ArticlePage(h.articleChrome(c, a), d))
}

// commentTree arranges an article's comments for the viewer: comments in
// order, each with its replies below it. What the viewer may not see is
// left out (a comment its author deleted, one a moderator hid unless the
// viewer wrote it or moderates), but a comment that still has replies to
// show leaves a line saying it is gone, so that the replies keep their
// place. A reply whose comment is older than the page shows stands alone.
func commentTree(cs []board.Comment, s *web.Session, now time.Time) []views.CommentView {
	shown := func(c board.Comment) bool {
		return !c.Deleted && (!c.Hidden || s.IsAdmin || (s.SignedIn() && s.UserID == c.UserID))
	}
	held := make(map[int64]bool, len(cs))
	for _, c := range cs {
		held[c.ID] = true
	}
	replies := map[int64][]views.CommentView{}
	var tops []board.Comment
	for _, c := range cs {
		if c.Parent > 0 && held[c.Parent] {
			if shown(c) {
				replies[c.Parent] = append(replies[c.Parent], commentView(c, s, now))
			}
			continue
		}
		tops = append(tops, c)
	}
	var out []views.CommentView
	for _, c := range tops {
		v := commentView(c, s, now)
		if !shown(c) {
			if len(replies[c.ID]) == 0 {
				continue
			}
			v = views.CommentView{ID: c.ID, Gone: "hidden"}
			if c.Deleted {
				v.Gone = "deleted"
			}
		}
		v.Replies = replies[c.ID]
		out = append(out, v)
	}
	return out
}

// commentView is one comment as the viewer sees it.
func commentView(c board.Comment, s *web.Session, now time.Time) views.CommentView {
	mine := s.SignedIn() && s.UserID == c.UserID
	return views.CommentView{
		ID: c.ID, Ref: board.CommentRef(c.ArticleID, c.ID), User: c.User, Body: c.Body, To: c.To, Hidden: c.Hidden,
		Edited: !c.Edited.IsZero(), Age: web.AgeText(now.Sub(c.Posted)), PostedAt: c.Posted.UTC().Format(time.RFC3339),
		CanEdit: mine && c.EditLeft > 0, CanReport: s.SignedIn() && !mine && !c.Hidden,
	}
}

// leftText says how long an author may still change what they posted, in
// whole minutes rounded up ("1 minute" for the last seconds).
func leftText(d time.Duration) string {
	return views.Counted(int64((d+time.Minute-1)/time.Minute), "minute", "minutes")
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
	back := web.ReturnPath(c, views.ArticleBase(id))
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
// reader, at most COMMENT_RATE per reader; with reply_to (a comment's
// number) it is a reply to that comment, one level deep.
func (h *Handler) CommentArticle(c echo.Context) error {
	id, err := web.ArticleIDParam(c)
	if err != nil {
		return err
	}
	var parent int64
	if v := c.FormValue("reply_to"); v != "" {
		n, ok := web.PathID(v)
		if !ok {
			return web.BadRequest("reply_to must name a comment by its number.")
		}
		parent = n
	}
	s := web.SessionOf(c)
	body := cleanText(c.FormValue("body"))
	if msg := web.CheckText(body, "comment"); msg != "" {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg})
		}
		return h.renderArticle(c, id, nil, http.StatusUnprocessableEntity, views.CommentForm{Body: body, Error: msg, Parent: parent})
	}
	if err := h.web.Limit(c, keys.RateComment, web.Itoa(s.UserID), h.cfg.Comment, "You are commenting faster than we allow."); err != nil {
		// A form post over the limit gets the article back with the text
		// as typed and the wait by the box, not a bare error page.
		var rl *web.RateLimited
		if web.WantsJSON(c) || !errors.As(err, &rl) {
			return err
		}
		c.Response().Header().Set("Retry-After", strconv.Itoa(rl.RetryAfter))
		return h.renderArticle(c, id, nil, http.StatusTooManyRequests, views.CommentForm{Body: body, Error: rl.Message, Parent: parent})
	}
	cm, err := h.articles.AddReply(c.Request().Context(), id, s.UserID, s.UserName, body, parent)
	if errors.Is(err, board.ErrReplyGone) {
		// The text is kept in the article's own box: it can still be
		// posted as a comment.
		const msg = "The comment you answered is gone. You can post your reply as a comment instead."
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg})
		}
		return h.renderArticle(c, id, nil, http.StatusUnprocessableEntity, views.CommentForm{Body: body, Error: msg})
	}
	if err != nil {
		return web.ArticleNotFound(err)
	}
	if web.WantsJSON(c) {
		return c.JSON(http.StatusCreated, map[string]any{"id": cm.ID, "article_id": id, "user": cm.User, "body": cm.Body, "parent": cm.Parent})
	}
	if cm.Parent > 0 {
		h.web.SetFlash(c, "Your reply is posted.")
	} else {
		h.web.SetFlash(c, "Your comment is posted.")
	}
	return web.Redirect(c, views.ArticleBase(id)+"#comment-"+web.Itoa(cm.ID))
}

// cleanText is a comment as typed, with Windows line breaks made plain and
// no blank lines around it.
func cleanText(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n")) }

// articleChrome is an article page's layout data with what it tells
// search engines and link previews: its readable URL as canonical, its
// text as description, Open Graph tags, and its Article and
// BreadcrumbList documents.
func (h *Handler) articleChrome(c echo.Context, a board.Article) views.Chrome {
	ch := h.web.Chrome(c, a.Title)
	page := h.web.Absolute(views.ArticleURL(a.ID, a.Title))
	desc := views.MetaDescription(a.Body)
	if desc == "" {
		desc = a.Title + ", posted by " + a.Poster + " on the " + h.web.Shop().Name + " board."
	}
	ch.Canonical, ch.Description = page, desc
	ch.Social = views.Social{Type: "article", Title: a.Title, Description: desc, URL: page}
	facts := views.ArticleFacts{Headline: a.Title, Author: a.Poster, AuthorURL: h.web.Absolute(views.UserURL(a.Poster)),
		URL: page, Published: a.Posted.UTC().Format(time.RFC3339), ShopURL: h.web.ShopURL()}
	if !a.Edited.IsZero() {
		facts.Modified = a.Edited.UTC().Format(time.RFC3339)
	}
	ch.LD = []views.LD{views.ArticleLD(h.web.Shop(), facts), views.BreadcrumbLD([]views.Crumb{
		{Name: "Articles", URL: h.web.Absolute("/articles")}, {Name: a.Title, URL: page}})}
	if a.Hidden {
		ch.NoIndex = true
	}
	return ch
}
