package board

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/social"
	"storefront/views"
)

// ShowFeed is GET /feed: articles by the people the reader follows,
// newest first, ARTICLES_PER_PAGE a page.
func (h *Handler) ShowFeed(c echo.Context) error {
	page, err := web.PageParam(c)
	if err != nil {
		return err
	}
	s := web.SessionOf(c)
	per := h.cfg.PerPage
	var entries []social.FeedEntry
	var total int64
	if page <= web.MaxPage {
		if entries, total, err = h.social.FeedPage(c.Request().Context(), s.UserID, page, per); err != nil {
			return err
		}
	}
	rows, err := h.withVotes(c.Request().Context(), feedArticles(entries), s.UserID)
	if err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, views.FeedPage(h.web.Chrome(c, "Your feed"), views.FeedData{
		Articles: rows,
		Total:    total,
		Pager:    web.PagerFor(page, per, int(total), func(p int) string { return "/feed?page=" + strconv.Itoa(p) }),
	}))
}
