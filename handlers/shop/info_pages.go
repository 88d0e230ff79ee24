package shop

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/merchant"
	"storefront/views"
)

// InfoPage is GET /pages/:slug: one of the merchant's information pages
// (a policy, how to reach the shop), read from memory; 404 for a slug no
// page has.
func (h *Handler) InfoPage(c echo.Context) error {
	p, err := h.home.Page(c.Param("slug"))
	if errors.Is(err, merchant.ErrPageNotFound) {
		return web.NotFound("There is no page at this address.")
	}
	if err != nil {
		return err
	}
	chrome := h.web.Chrome(c, p.Title)
	chrome.Description = views.MetaDescription(p.Body)
	return web.Render(c, http.StatusOK, views.InfoPage(chrome, views.InfoPageData{Title: p.Title, Body: p.Body}))
}
