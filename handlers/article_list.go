package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/store/board"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/views"
)

// articleStore is the part of the store that the article board uses.
type articleStore interface {
	PostArticle(ctx context.Context, p board.NewArticle) (board.Article, error)
	Articles(ctx context.Context, q board.ArticleQuery) (board.ArticlePage, error)
	ArticleWithComments(ctx context.Context, id, viewerID int64) (board.Article, []board.Comment, error)
	Vote(ctx context.Context, articleID, userID int64, dir string) (board.Article, bool, error)
	AddComment(ctx context.Context, articleID, userID int64, user, body string) (board.Comment, error)
	ArticlesByID(ctx context.Context, ids []int64, viewerID int64) ([]board.Article, error)
}

const (
	maxTitleLen   = 200
	maxLinkLen    = 2048
	maxCommentLen = 2000
	homeArticles  = 5
)

// ListArticles is the board: GET /articles?sort=top|new&page=.
func (h *Handler) ListArticles(c echo.Context) error { return h.listArticles(c, "") }

// ListGroup is one group's articles: GET /groups/:name?sort=&page=.
func (h *Handler) ListGroup(c echo.Context) error {
	name := c.Param("name")
	if !board.IsArticleGroup(name) {
		return notFound("There is no group with that name.")
	}
	return h.listArticles(c, name)
}

func (h *Handler) listArticles(c echo.Context, group string) error {
	page, err := pageParam(c)
	if err != nil {
		return err
	}
	sort := c.QueryParam("sort")
	switch sort {
	case "":
		sort = board.SortTop
	case board.SortTop, board.SortNew:
	default:
		return badRequest("Sort by top or new.")
	}
	s := session(c)
	res, err := h.store.Articles(c.Request().Context(), board.ArticleQuery{
		Sort: sort, Group: group, Page: page, PerPage: h.cfg.ArticlesPage, ViewerID: s.UserID})
	if err != nil {
		return err
	}
	base := "/articles"
	if group != "" {
		base = "/groups/" + group
	}
	urlFor := func(sort string, page int) string {
		v := url.Values{}
		if sort != board.SortTop {
			v.Set("sort", sort)
		}
		if page > 1 {
			v.Set("page", strconv.Itoa(page))
		}
		if len(v) == 0 {
			return base
		}
		return base + "?" + v.Encode()
	}
	d := views.ArticlesData{
		Rows: articleRows(res.Articles, time.Now()), Group: group, Sort: sort, Total: res.Total,
		TopURL: urlFor(board.SortTop, 1), NewURL: urlFor(board.SortNew, 1),
		Groups: board.ArticleGroups, Next: c.Request().URL.RequestURI(),
		Pager: pagerFor(page, h.cfg.ArticlesPage, res.Total, func(p int) string { return urlFor(sort, p) }),
	}
	title := "Articles"
	if group != "" {
		title = "Articles in " + group
	}
	return render(c, http.StatusOK, views.ArticlesPage(h.chrome(c, title), d))
}

// NewArticleForm shows the form to post an article.
func (h *Handler) NewArticleForm(c echo.Context) error {
	return render(c, http.StatusOK, views.NewArticlePage(h.chrome(c, "Post an article"), views.ArticleForm{Groups: board.ArticleGroups}))
}

// articleForm is a posted article.
type articleForm struct {
	Title  string   `form:"title"`
	Link   string   `form:"link"`
	Groups []string `form:"groups"`
}

// PostArticle stores a new article (with the poster's up vote) and
// redirects to its page.
func (h *Handler) PostArticle(c echo.Context) error {
	s := session(c)
	var f articleForm
	if err := c.Bind(&f); err != nil {
		return badRequest("The form could not be read.")
	}
	f.Title = strings.Join(strings.Fields(f.Title), " ")
	f.Link = strings.TrimSpace(f.Link)
	if errs := f.validate(); len(errs) > 0 {
		if wantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]any{"error": "Some fields need another look.", "fields": errs})
		}
		return render(c, http.StatusUnprocessableEntity, views.NewArticlePage(h.chrome(c, "Post an article"), views.ArticleForm{
			Title: f.Title, Link: f.Link, Chosen: f.Groups, Groups: board.ArticleGroups, Errors: errs}))
	}
	if err := h.limit(c, keys.RatePost, itoa(s.UserID), h.cfg.Rates.Post, "You have posted several articles recently."); err != nil {
		return err
	}
	a, err := h.store.PostArticle(c.Request().Context(), board.NewArticle{
		Title: f.Title, Link: f.Link, Groups: f.Groups, PosterID: s.UserID, Poster: s.UserName})
	if err != nil {
		return err
	}
	if wantsJSON(c) {
		return c.JSON(http.StatusCreated, map[string]any{"id": a.ID, "url": views.ArticleURL(a.ID), "score": a.Score})
	}
	h.setFlash(c, "Your article is posted.")
	return redirect(c, views.ArticleURL(a.ID))
}

func (f *articleForm) validate() map[string]string {
	errs := map[string]string{}
	if n := utf8.RuneCountInString(f.Title); n == 0 || n > maxTitleLen || !printable(f.Title) {
		errs["title"] = "Give a title of 1 to 200 characters."
	}
	if msg := checkLink(f.Link); msg != "" {
		errs["link"] = msg
	}
	slices.Sort(f.Groups)
	f.Groups = slices.Compact(f.Groups)
	for _, g := range f.Groups {
		if !board.IsArticleGroup(g) {
			errs["groups"] = "Pick groups from the list."
			f.Groups = slices.DeleteFunc(f.Groups, func(g string) bool { return !board.IsArticleGroup(g) })
			break
		}
	}
	return errs
}

// checkLink accepts only absolute http and https links to a host: no
// javascript:, data: or other schemes, no credentials, no control
// characters. It returns what is wrong, or "".
func checkLink(link string) string {
	if link == "" {
		return "Enter the article's web address."
	}
	if len(link) > maxLinkLen || !printable(link) || strings.ContainsAny(link, " \\") {
		return "That web address is not valid."
	}
	u, err := url.Parse(link)
	if err != nil {
		return "That web address is not valid."
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return "Only http:// and https:// links are allowed."
	}
	if u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return "Use a full web address, such as https://example.com/page."
	}
	if u.User != nil {
		return "Links with a user name or password are not allowed."
	}
	return ""
}

// articleNotFound gives a missing article its own message.
func articleNotFound(err error) error {
	if errors.Is(err, platform.ErrNotFound) {
		return notFound("There is no article with that number.")
	}
	return err
}

func articleRows(arts []board.Article, now time.Time) []views.ArticleRow {
	out := make([]views.ArticleRow, len(arts))
	for i, a := range arts {
		out[i] = articleRow(a, now)
	}
	return out
}

func articleRow(a board.Article, now time.Time) views.ArticleRow {
	return views.ArticleRow{
		ID: a.ID, Title: a.Title, Link: a.Link, Domain: domainOf(a.Link), Poster: a.Poster,
		Age: ageText(now.Sub(a.Posted)), PostedAt: a.Posted.UTC().Format(time.RFC3339),
		Score: a.Score, Up: a.Up, Down: a.Down, MyVote: a.MyVote, Open: a.Open,
		Comments: a.Comments, Groups: a.Groups,
	}
}

// domainOf is the host a link points to, without "www.".
func domainOf(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// ageText says how long ago something happened, for people.
func ageText(d time.Duration) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit + " ago"
		}
		return strconv.Itoa(n) + " " + unit + "s ago"
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	}
	return plural(int(d/(24*time.Hour)), "day")
}
