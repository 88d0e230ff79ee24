package board

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/platform"
	"storefront/views"
)

// Authors change what they posted for board.EditWindow after posting:
// the edit pages and their posts answer only them, and only then; anyone
// else gets 403 (or 404 for what a moderator hid), and so does the author
// after the window, with words saying why.

// refusal answers a refused edit or delete of an article or a comment
// (what names which) with the route's status and words.
func refusal(err error, what string) error {
	switch {
	case errors.Is(err, board.ErrNotAuthor):
		return echo.NewHTTPError(http.StatusForbidden, "Only its author can change or delete this "+what+".")
	case errors.Is(err, board.ErrEditClosed):
		return echo.NewHTTPError(http.StatusForbidden, capitalArticle(what)+" can be changed or deleted only in the first 15 minutes after it is posted.")
	case errors.Is(err, board.ErrHidden):
		return echo.NewHTTPError(http.StatusForbidden, "A moderator hid this "+what+", so it can no longer be changed.")
	case errors.Is(err, platform.ErrNotFound):
		return web.NotFound("There is no such " + what + ".")
	}
	return err
}

// capitalArticle is "An article" or "A comment".
func capitalArticle(what string) string {
	if what == "article" {
		return "An article"
	}
	return "A " + what
}

// ownArticle reads the article at :id for the signed-in reader who may
// change it now, or answers why not.
func (h *Handler) ownArticle(c echo.Context) (board.Article, error) {
	id, err := web.ArticleIDParam(c)
	if err != nil {
		return board.Article{}, err
	}
	s := web.SessionOf(c)
	a, _, err := h.articles.ArticleWithComments(c.Request().Context(), id, 0)
	switch {
	case err != nil:
		return a, refusal(err, "article")
	case a.PosterID != s.UserID && a.Hidden:
		return a, refusal(platform.ErrNotFound, "article")
	case a.PosterID != s.UserID:
		return a, refusal(board.ErrNotAuthor, "article")
	case a.Hidden:
		return a, refusal(board.ErrHidden, "article")
	case a.EditLeft <= 0:
		return a, refusal(board.ErrEditClosed, "article")
	}
	return a, nil
}

// EditArticleForm is GET /articles/:id/edit: the poster's form to change
// the title, link and text, and to delete the article.
func (h *Handler) EditArticleForm(c echo.Context) error {
	a, err := h.ownArticle(c)
	if err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, views.EditArticlePage(h.web.Chrome(c, "Edit your article"), views.ArticleEditData{
		ID: a.ID, Left: leftText(a.EditLeft), Form: views.ArticleForm{Title: a.Title, Link: a.Link, Body: a.Body}}))
}

// EditArticle is POST /articles/:id/edit (title, link, body): the poster's
// change, checked as a new article is; the page then says "edited".
func (h *Handler) EditArticle(c echo.Context) error {
	a, err := h.ownArticle(c)
	if err != nil {
		return err
	}
	title, link, body := cleanWords(c.FormValue("title"), c.FormValue("link"), c.FormValue("body"))
	if errs := checkWords(title, link, body); len(errs) > 0 {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]any{"error": "Some fields need another look.", "fields": errs})
		}
		return web.Render(c, http.StatusUnprocessableEntity, views.EditArticlePage(h.web.Chrome(c, "Edit your article"), views.ArticleEditData{
			ID: a.ID, Left: leftText(a.EditLeft), Form: views.ArticleForm{Title: title, Link: link, Body: body, Errors: errs}}))
	}
	s := web.SessionOf(c)
	if _, err := h.articles.EditArticle(c.Request().Context(), a.ID, s.UserID, board.ArticleEdit{Title: title, Link: link, Body: body}); err != nil {
		return refusal(err, "article")
	}
	return h.web.Done(c, "Your article is saved.", views.ArticleBase(a.ID))
}

// DeleteArticle is POST /articles/:id/delete: the poster deletes the
// article with its votes, comments and reports; it leaves every listing,
// group, feed and the poster's count.
func (h *Handler) DeleteArticle(c echo.Context) error {
	id, err := web.ArticleIDParam(c)
	if err != nil {
		return err
	}
	if _, err := h.articles.DeleteArticle(c.Request().Context(), id, web.SessionOf(c).UserID); err != nil {
		return refusal(err, "article")
	}
	return h.web.Done(c, "Your article is deleted.", "/articles")
}

// commentParam reads :ref, a comment's "<article>-<number>".
func commentParam(c echo.Context) (articleID, commentID int64, err error) {
	a, n, ok := board.ParseThingRef(c.Param("ref"))
	if !ok || n == 0 {
		return 0, 0, web.NotFound("There is no such comment.")
	}
	return a, n, nil
}

// ownComment reads the comment at :ref for the signed-in reader who may
// change it now, with its article's title, or answers why not.
func (h *Handler) ownComment(c echo.Context) (board.Comment, string, error) {
	articleID, n, err := commentParam(c)
	if err != nil {
		return board.Comment{}, "", err
	}
	s := web.SessionOf(c)
	a, _, err := h.articles.ArticleWithComments(c.Request().Context(), articleID, 0)
	if err != nil || a.Hidden {
		return board.Comment{}, "", refusal(platform.ErrNotFound, "comment")
	}
	cm, err := h.articles.CommentByID(c.Request().Context(), articleID, n)
	switch {
	case err != nil:
		return cm, "", refusal(err, "comment")
	case cm.Deleted || (cm.Hidden && cm.UserID != s.UserID):
		return cm, "", refusal(platform.ErrNotFound, "comment")
	case cm.UserID != s.UserID:
		return cm, "", refusal(board.ErrNotAuthor, "comment")
	case cm.Hidden:
		return cm, "", refusal(board.ErrHidden, "comment")
	case cm.EditLeft <= 0:
		return cm, "", refusal(board.ErrEditClosed, "comment")
	}
	return cm, a.Title, nil
}

// EditCommentForm is GET /comments/:ref/edit: the author's form to change
// the comment's text, and to delete it.
func (h *Handler) EditCommentForm(c echo.Context) error {
	cm, title, err := h.ownComment(c)
	if err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, views.EditCommentPage(h.web.Chrome(c, "Edit your comment"), views.CommentEditData{
		ArticleID: cm.ArticleID, ArticleTitle: title, Ref: c.Param("ref"), Body: cm.Body, Left: leftText(cm.EditLeft)}))
}

// EditComment is POST /comments/:ref/edit (body): the author's change,
// checked as a new comment is; the page then says "edited".
func (h *Handler) EditComment(c echo.Context) error {
	cm, title, err := h.ownComment(c)
	if err != nil {
		return err
	}
	body := cleanText(c.FormValue("body"))
	if msg := web.CheckText(body, "comment"); msg != "" {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg})
		}
		return web.Render(c, http.StatusUnprocessableEntity, views.EditCommentPage(h.web.Chrome(c, "Edit your comment"), views.CommentEditData{
			ArticleID: cm.ArticleID, ArticleTitle: title, Ref: c.Param("ref"), Body: body, Error: msg, Left: leftText(cm.EditLeft)}))
	}
	if _, err := h.articles.EditComment(c.Request().Context(), cm.ArticleID, cm.ID, web.SessionOf(c).UserID, body); err != nil {
		return refusal(err, "comment")
	}
	return h.web.Done(c, "Your comment is saved.", views.ArticleBase(cm.ArticleID)+"#comment-"+web.Itoa(cm.ID))
}

// DeleteComment is POST /comments/:ref/delete: the author deletes the
// comment; its replies stay under a line saying it was deleted.
func (h *Handler) DeleteComment(c echo.Context) error {
	articleID, n, err := commentParam(c)
	if err != nil {
		return err
	}
	if _, err := h.articles.DeleteComment(c.Request().Context(), articleID, n, web.SessionOf(c).UserID); err != nil {
		return refusal(err, "comment")
	}
	return h.web.Done(c, "Your comment is deleted.", views.ArticleBase(articleID)+"#comments")
}
