package board

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/keys"
	"storefront/views"
)

const (
	maxTitleLen = 200
	maxLinkLen  = 2048
)

// ListArticles is the board: GET /articles?sort=top|new&page=.
func (h *Handler) ListArticles(c echo.Context) error { return h.listArticles(c, "") }

// ListGroup is one group's articles: GET /groups/:name?sort=&page=.
func (h *Handler) ListGroup(c echo.Context) error {
	name := c.Param("name")
	if !board.IsArticleGroup(name) {
		return web.NotFound("There is no group with that name.")
	}
	return h.listArticles(c, name)
}

func (h *Handler) listArticles(c echo.Context, group string) error {
	page, err := web.PageParam(c)
	if err != nil {
		return err
	}
	sort := c.QueryParam("sort")
	switch sort {
	case "":
		sort = board.SortTop
	case board.SortTop, board.SortNew:
	default:
		return web.BadRequest("Sort by top or new.")
	}
	s := web.SessionOf(c)
	res, err := h.articles.Articles(c.Request().Context(), board.ArticleQuery{
		Sort: sort, Group: group, Page: page, PerPage: h.cfg.PerPage, ViewerID: s.UserID})
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
		Rows: web.ArticleRows(res.Articles, time.Now()), Group: group, Sort: sort, Total: res.Total,
		TopURL: urlFor(board.SortTop, 1), NewURL: urlFor(board.SortNew, 1),
		Groups: board.ArticleGroups, Next: c.Request().URL.RequestURI(),
		Pager: web.PagerFor(page, h.cfg.PerPage, res.Total, func(p int) string { return urlFor(sort, p) }),
	}
	title := "Articles"
	if group != "" {
		title = "Articles in " + group
	}
	return web.Render(c, http.StatusOK, views.ArticlesPage(h.web.Chrome(c, title), d))
}

// NewArticleForm shows the form to post an article.
func (h *Handler) NewArticleForm(c echo.Context) error {
	return web.Render(c, http.StatusOK, views.NewArticlePage(h.web.Chrome(c, "Post an article"), views.ArticleForm{Groups: board.ArticleGroups}))
}

// articleForm is a posted article.
type articleForm struct {
	Title  string   `form:"title"`
	Link   string   `form:"link"`
	Body   string   `form:"body"`
	Groups []string `form:"groups"`
}

// PostArticle stores a new article (with the poster's up vote) and
// redirects to its page. An article has a title and a link, a text, or
// both.
func (h *Handler) PostArticle(c echo.Context) error {
	s := web.SessionOf(c)
	var f articleForm
	if err := c.Bind(&f); err != nil {
		return web.BadRequest("The form could not be read.")
	}
	f.Title, f.Link, f.Body = cleanWords(f.Title, f.Link, f.Body)
	if errs := f.validate(); len(errs) > 0 {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]any{"error": "Some fields need another look.", "fields": errs})
		}
		return web.Render(c, http.StatusUnprocessableEntity, views.NewArticlePage(h.web.Chrome(c, "Post an article"), views.ArticleForm{
			Title: f.Title, Link: f.Link, Body: f.Body, Chosen: f.Groups, Groups: board.ArticleGroups, Errors: errs}))
	}
	if err := h.web.Limit(c, keys.RatePost, web.Itoa(s.UserID), h.cfg.Post, "You have posted several articles recently."); err != nil {
		return err
	}
	a, err := h.articles.PostArticle(c.Request().Context(), board.NewArticle{
		Title: f.Title, Link: f.Link, Body: f.Body, Groups: f.Groups, PosterID: s.UserID, Poster: s.UserName})
	if err != nil {
		return err
	}
	if web.WantsJSON(c) {
		return c.JSON(http.StatusCreated, map[string]any{"id": a.ID, "url": views.ArticleBase(a.ID), "score": a.Score})
	}
	h.web.SetFlash(c, "Your article is posted.")
	return web.Redirect(c, views.ArticleBase(a.ID))
}

func (f *articleForm) validate() map[string]string {
	errs := checkWords(f.Title, f.Link, f.Body)
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

// cleanWords tidies an article's words as typed: the title on one line,
// the link trimmed, the text with its own line breaks but no blank lines
// around it.
func cleanWords(title, link, body string) (string, string, string) {
	body = strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n")
	return strings.Join(strings.Fields(title), " "), strings.TrimSpace(link), strings.TrimSpace(body)
}

// checkWords says what is wrong with an article's title, link and text
// (field -> message): a title of 1 to 200 characters, and a link, a text
// of up to MaxArticleText characters, or both.
func checkWords(title, link, body string) map[string]string {
	errs := map[string]string{}
	if n := utf8.RuneCountInString(title); n == 0 || n > maxTitleLen || !web.Printable(title) {
		errs["title"] = "Give a title of 1 to 200 characters."
	}
	switch {
	case link == "" && body == "":
		errs["body"] = "Give a link, write a text, or both."
	case link != "":
		if msg := checkLink(link); msg != "" {
			errs["link"] = msg
		}
	}
	if msg := checkBody(body); msg != "" {
		errs["body"] = msg
	}
	return errs
}

// checkBody says what is wrong with an article's text, or "": too long, or
// holding characters that are neither printable nor line breaks and tabs.
func checkBody(body string) string {
	switch {
	case utf8.RuneCountInString(body) > views.MaxArticleText:
		return "A text can be at most 10,000 characters long."
	case !utf8.ValidString(body) || strings.ContainsFunc(body, func(r rune) bool {
		return (unicode.IsControl(r) && r != '\n' && r != '\t') || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
	}):
		return "The text contains characters we cannot show."
	}
	return ""
}

// checkLink accepts only absolute http and https links to a host: no
// javascript:, data: or other schemes, no credentials, no control
// characters. It returns what is wrong, or "".
func checkLink(link string) string {
	if link == "" {
		return "Enter the article's web address."
	}
	if len(link) > maxLinkLen || !web.Printable(link) || strings.ContainsAny(link, " \\") {
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
