package admin

import (
	"errors"
	"fmt"
	"io"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/platform"
	"storefront/views"
)

// PackingSlip is GET /admin/orders/:id/packing-slip.pdf: what goes in the
// parcel (lines with their options, SKU and quantity) and where it goes,
// without prices.
func (h *Handler) PackingSlip(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no order with that number.")
	}
	o, err := h.orders.OrderAny(c.Request().Context(), id)
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no order with that number.")
	}
	if err != nil {
		return err
	}
	d := h.web.InvoiceDoc(o, "")
	return web.SendPDF(c, fmt.Sprintf("packing-slip-%d.pdf", o.ID), func(w io.Writer) error { return views.PackingSlipPDF(w, d) })
}
