package shop

import (
	"errors"
	"fmt"
	"io"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/views"
)

// Invoice is GET /orders/:id/invoice.pdf: the order's invoice for the
// shopper who placed it, for a guest through the key of their order's
// link (?key=), and for the shop's staff. Anyone else gets the 404 an
// order that does not exist gets, so order numbers tell strangers nothing.
func (h *Handler) Invoice(c echo.Context) error {
	notFound := web.NotFound("There is no order with that number.")
	id, err := web.OrderIDParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	s := web.SessionOf(c)
	var o orders.Order
	customer := ""
	switch {
	case c.QueryParam("key") != "":
		if !h.web.ValidOrderKey(id, c.QueryParam("key")) {
			return notFound
		}
		o, err = h.orders.GuestOrder(ctx, id)
		c.Response().Header().Set("Referrer-Policy", "no-referrer") // the key is in the URL
	case s.SignedIn():
		o, err = h.orders.Order(ctx, s.UserID, id)
		customer = s.UserName
		if errors.Is(err, platform.ErrNotFound) && s.IsAdmin {
			if u, uerr := h.sessions.UserByID(ctx, s.UserID); uerr == nil && u.IsAdmin {
				o, err = h.orders.OrderAny(ctx, id)
				customer = ""
			}
		}
	default:
		return notFound
	}
	if errors.Is(err, platform.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	if customer == "" {
		customer = o.Email
		if o.UserID != orders.GuestUserID {
			if u, err := h.sessions.UserByID(ctx, o.UserID); err == nil {
				customer = u.Username
			}
		}
	}
	d := h.web.InvoiceDoc(o, customer)
	return web.SendPDF(c, fmt.Sprintf("invoice-%d.pdf", o.InvoiceNumber), func(w io.Writer) error { return views.InvoicePDF(w, d) })
}
