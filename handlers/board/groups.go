package board

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/platform"
	"storefront/views"
)

// EditArticleGroups is POST /articles/:id/groups (add=, remove=, each a
// group name, repeated or comma-separated; signed in only): the poster or
// an admin moves
// the article in and out of groups. Unknown groups are a 422; anyone else
// gets a 403.
func (h *Handler) EditArticleGroups(c echo.Context) error {
	id, err := web.ArticleIDParam(c)
	if err != nil {
		return err
	}
	s := web.SessionOf(c)
	ctx := c.Request().Context()
	a, _, err := h.articles.ArticleWithComments(ctx, id, 0)
	if err != nil || a.Hidden {
		return web.ArticleNotFound(platform.ErrNotFound)
	}
	if a.PosterID != s.UserID && !s.IsAdmin {
		return echo.NewHTTPError(http.StatusForbidden, "Only the poster can change an article's groups.")
	}
	params, _ := c.FormParams()
	add, remove := groupList(params["add"]), groupList(params["remove"])
	groups, err := h.articles.EditArticleGroups(ctx, id, add, remove)
	if errors.Is(err, platform.ErrInvalid) || (err == nil && len(add)+len(remove) == 0) {
		msg := "Choose groups from the site's list: " + strings.Join(board.ArticleGroups, ", ") + "."
		return web.Unprocessable(c, msg)
	}
	if err != nil {
		return web.ArticleNotFound(err)
	}
	if a.PosterID != s.UserID {
		h.web.Audit(c, "edit article groups", "article "+web.Itoa(id), "add", strings.Join(add, ","), "remove", strings.Join(remove, ","))
	}
	if web.WantsJSON(c) {
		return c.JSON(http.StatusOK, map[string]any{"id": id, "groups": groups})
	}
	h.web.SetFlash(c, "The article's groups are saved.")
	return web.Redirect(c, views.ArticleBase(id))
}

// groupList reads repeated or comma-separated group names, skipping blanks.
func groupList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, g := range strings.Split(v, ",") {
			if g = strings.TrimSpace(g); g != "" {
				out = append(out, g)
			}
		}
	}
	return out
}
