package shop

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/views"
)

// ordersPerPage is the orders list's page size.
const ordersPerPage = 20

// ListOrders is the signed-in shopper's orders, newest first.
func (h *Handler) ListOrders(c echo.Context) error {
	s := web.SessionOf(c)
	page, err := web.PageParam(c)
	if err != nil {
		return err
	}
	var orders []orders.Order
	total := 0
	if page <= web.MaxPage {
		orders, total, err = h.orders.Orders(c.Request().Context(), s.UserID, ordersPerPage, (page-1)*ordersPerPage)
		if err != nil {
			return err
		}
	}
	d := views.OrdersData{Total: total, Pager: web.PagerFor(page, ordersPerPage, total, func(p int) string { return "/orders?page=" + strconv.Itoa(p) })}
	for _, o := range orders {
		d.Orders = append(d.Orders, views.OrderSummary{ID: o.ID, Status: o.Status, TotalCents: o.TotalCents, ItemCount: o.ItemCount, Placed: web.When(o.CreatedAt)})
	}
	return web.Render(c, http.StatusOK, views.OrdersPage(h.web.Chrome(c, "Your orders"), d))
}

// ShowOrder is one of the shopper's orders; anyone else's is a 404,
// except for an admin, who may open any order.
func (h *Handler) ShowOrder(c echo.Context) error {
	s := web.SessionOf(c)
	id, err := web.OrderIDParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	o, err := h.orders.Order(ctx, s.UserID, id)
	adminView := false
	if errors.Is(err, platform.ErrNotFound) && s.IsAdmin {
		if u, uerr := h.sessions.UserByID(ctx, s.UserID); uerr == nil && u.IsAdmin {
			o, err = h.orders.OrderAny(ctx, id)
			adminView = err == nil
		}
	}
	if err != nil {
		return err
	}
	d := h.orderView(o, adminView)
	if err := h.pictureOrder(ctx, &d); err != nil {
		return err
	}
	d.CanCancel = !adminView && orders.CanMoveOrder(o.Status, orders.OrderCancelled)
	if err := h.addReturns(ctx, &d, o, !adminView); err != nil {
		return err
	}
	if adminView && o.UserID != orders.GuestUserID {
		if u, err := h.sessions.UserByID(ctx, o.UserID); err == nil {
			d.Shopper = u.Username
		}
	}
	return web.Render(c, http.StatusOK, views.OrderPage(h.web.Chrome(c, "Order #"+web.Itoa(o.ID)), d))
}

// ShowGuestOrder is a guest's order, reachable only through the signed
// link the confirmation gives (GET /guest-orders/:id?key=). A missing or
// wrong key is a 404, like an order that does not exist.
func (h *Handler) ShowGuestOrder(c echo.Context) error {
	id, err := web.OrderIDParam(c)
	if err != nil {
		return err
	}
	if !h.web.ValidOrderKey(id, c.QueryParam("key")) {
		return web.NotFound("There is no order with that link. Use the link from your order confirmation.")
	}
	o, err := h.orders.GuestOrder(c.Request().Context(), id)
	if err != nil {
		return err
	}
	d := h.orderView(o, false)
	if err := h.pictureOrder(c.Request().Context(), &d); err != nil {
		return err
	}
	d.Link = h.web.GuestOrderURL(o.ID)
	if err := h.addReturns(c.Request().Context(), &d, o, false); err != nil {
		return err
	}
	c.Response().Header().Set("Referrer-Policy", "no-referrer") // the key is in the URL
	return web.Render(c, http.StatusOK, views.OrderPage(h.web.Chrome(c, "Order #"+web.Itoa(o.ID)), d))
}

// pictureOrder sets the main picture of each order line (the item's
// picture today: orders keep the name and price they were sold at).
func (h *Handler) pictureOrder(ctx context.Context, d *views.OrderData) error {
	ids := make([]int64, len(d.Lines))
	for i, l := range d.Lines {
		ids[i] = l.ItemID
	}
	pics, err := h.linePictures(ctx, ids)
	if err != nil {
		return err
	}
	for i := range d.Lines {
		d.Lines[i].Picture = pics[d.Lines[i].ItemID]
	}
	return nil
}

// orderView is an order's page model, with its timeline as the shopper
// (or, with adminView, an admin) reads it.
func (h *Handler) orderView(o orders.Order, adminView bool) views.OrderData {
	d := views.OrderData{ID: o.ID, Status: o.Status, TotalCents: o.TotalCents, SubtotalCents: o.SubtotalCents, ShippingCents: o.ShippingCents,
		ItemCount: o.ItemCount, Placed: web.When(o.CreatedAt), Processed: web.When(o.ProcessedAt), Email: o.Email, Guest: o.UserID == orders.GuestUserID,
		Shipping: shippingLabel(o.Shipping), AdminView: adminView, Discount: orderDiscount(o), Tax: orderTax(o)}
	d.Tracking = o.Tracking
	if o.Address.Line1 != "" {
		a := o.Address
		d.Address = []string{a.Name, a.Line1}
		if a.Line2 != "" {
			d.Address = append(d.Address, a.Line2)
		}
		d.Address = append(d.Address, a.Postcode+" "+a.City, orders.CountryName(a.Country))
	}
	if p, ok := h.orders.PaymentByCode(o.Payment); ok {
		d.Payment, d.PaymentNote = p.Label(), p.Instructions()
	}
	for _, l := range o.Lines {
		d.Lines = append(d.Lines, views.OrderLine{ItemID: l.ItemID, VariantID: l.VariantID, SKU: l.SKU, Variant: l.Variant, Name: l.Name, PriceCents: l.PriceCents, Qty: l.Qty})
	}
	d.Timeline = append(d.Timeline, views.OrderEventView{Status: orders.OrderPending, By: actorText(orders.ActorShopper, adminView), At: web.When(o.CreatedAt)})
	for _, e := range o.Events {
		d.Timeline = append(d.Timeline, views.OrderEventView{Status: e.Status, By: actorText(e.Actor, adminView), At: web.When(e.At)})
	}
	return d
}

// shippingLabel names a delivery method on order pages.
func shippingLabel(method string) string {
	switch method {
	case orders.ShippingStandard:
		return "Standard delivery"
	case orders.ShippingExpress:
		return "Express delivery"
	}
	return ""
}

// actorText says who made an order change, as the timeline shows it: to
// the shopper, "you" and "the shop"; to an admin, the shopper and the
// admin by name.
func actorText(actor string, adminView bool) string {
	switch {
	case actor == orders.ActorShopper && adminView:
		return "the shopper"
	case actor == orders.ActorShopper:
		return "you"
	case actor == orders.ActorFulfilment:
		return "the warehouse"
	case strings.HasPrefix(actor, "admin:") && adminView:
		return strings.TrimPrefix(actor, "admin:")
	case strings.HasPrefix(actor, "admin:"):
		return "the shop"
	}
	return actor
}

// ConfirmCancel is GET /orders/:id/cancel (signed in only): the order
// with the form that cancels it and a way back, so that cancelling takes
// a deliberate second step with JavaScript off too. It changes nothing.
// An order past cancelling goes back to its page, which says why; someone
// else's is a 404.
func (h *Handler) ConfirmCancel(c echo.Context) error {
	s := web.SessionOf(c)
	id, err := web.OrderIDParam(c)
	if err != nil {
		return err
	}
	o, err := h.orders.Order(c.Request().Context(), s.UserID, id)
	if err != nil {
		return err
	}
	if !orders.CanMoveOrder(o.Status, orders.OrderCancelled) {
		h.web.SetFlash(c, notCancellable(o.ID, o.Status))
		return web.Redirect(c, "/orders/"+web.Itoa(o.ID))
	}
	d := h.orderView(o, false)
	if err := h.pictureOrder(c.Request().Context(), &d); err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, views.CancelOrderPage(h.web.Chrome(c, "Cancel order #"+web.Itoa(o.ID)), d))
}

// notCancellable says why an order can no longer be cancelled.
func notCancellable(id int64, status string) string {
	return fmt.Sprintf("Order %d is %s and can no longer be cancelled.", id, strings.ToLower(views.StatusText(status)))
}

// CancelOrder is POST /orders/:id/cancel (signed in only), the form of
// the confirmation: the shopper cancels their own order until it ships;
// the stock goes back in the same transaction. After shipping (or a
// second cancel) it is a 422 and nothing changes.
func (h *Handler) CancelOrder(c echo.Context) error {
	s := web.SessionOf(c)
	id, err := web.OrderIDParam(c)
	if err != nil {
		return err
	}
	_, err = h.orders.MoveOrder(c.Request().Context(), id, s.UserID, orders.OrderCancelled, orders.ActorShopper)
	var me *orders.MoveError
	if errors.As(err, &me) {
		return web.Unprocessable(c, notCancellable(id, me.From))
	}
	if err != nil {
		return err
	}
	if web.WantsJSON(c) {
		return c.JSON(http.StatusOK, map[string]string{"message": "Order cancelled.", "status": orders.OrderCancelled})
	}
	h.web.SetFlash(c, fmt.Sprintf("Order %d is cancelled.", id))
	return web.Redirect(c, "/orders/"+web.Itoa(id))
}
