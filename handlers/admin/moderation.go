package admin

import (
	"errors"
	"fmt"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/platform"
	"storefront/views"
)

// HideArticle is POST /admin/articles/:id/hide: the article leaves
// every listing, group listing, feed and counter at once; its poster still
// sees it, marked as hidden by a moderator.
func (h *Handler) HideArticle(c echo.Context) error {
	id, err := web.ArticleIDParam(c)
	if err != nil {
		return err
	}
	a, err := h.articles.HideArticle(c.Request().Context(), id, web.SessionOf(c).UserName)
	if err != nil {
		return web.ArticleNotFound(err)
	}
	h.web.Audit(c, "hide article", "article "+web.Itoa(id), "title", a.Title, "poster", a.Poster)
	return h.web.Done(c, fmt.Sprintf("Article %d is hidden.", id), views.ArticleURL(id))
}

// HideComment is POST /admin/comments/:id/hide, where id is the
// comment's data-comment-id ("<article>-<number>"): the comment leaves the
// page and the count; its author sees that a moderator hid it.
func (h *Handler) HideComment(c echo.Context) error {
	articleID, commentID, ok := board.ParseCommentRef(c.Param("id"))
	if !ok {
		return web.NotFound("There is no comment with that number.")
	}
	cm, err := h.articles.HideComment(c.Request().Context(), articleID, commentID)
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no comment with that number.")
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "hide comment", "comment "+c.Param("id"), "author", cm.User)
	return h.web.Done(c, "The comment is hidden.", views.ArticleURL(articleID)+"#comments")
}

// BanUser is POST /admin/users/:name/ban: every session of the
// account ends at once, it can no longer sign in or check out, and its
// orders stay.
func (h *Handler) BanUser(c echo.Context) error {
	u, n, err := h.accounts.BanUser(c.Request().Context(), c.Param("name"))
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no one by that name.")
	}
	if errors.Is(err, platform.ErrInvalid) {
		return web.Unprocessable(c, "Administrators cannot be banned.")
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "ban user", "user "+u.Username, "user_id", u.ID, "sessions_ended", n)
	return h.web.Done(c, fmt.Sprintf("%s is banned and was signed out of %d sessions.", u.Username, n), views.UserURL(u.Username))
}
