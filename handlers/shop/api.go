package shop

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
)

// APIItem is GET /api/items/:id: the item's row as JSON, column names as
// keys, from the row cache (`inv:<id>`, X-Row-Cache: HIT, with cached_at)
// when the row is scheduled there, else from the database (MISS); an
// archived item is 410 Gone, like its page. Item pages poll it for live
// price and stock.
func (h *Handler) APIItem(c echo.Context) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	body, cached, err := h.catalog.ItemRow(c.Request().Context(), id)
	if err != nil {
		return err
	}
	hit := "MISS"
	if cached {
		hit = "HIT"
	}
	hdr := c.Response().Header()
	hdr.Set("X-Row-Cache", hit)
	hdr.Set("Cache-Control", "no-cache")
	return c.JSONBlob(http.StatusOK, body)
}
