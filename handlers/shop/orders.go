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
		if u, uerr := h.sessions.UserByID(ctx, s.UserID); uerr == nil && web.May(u.Role, web.PermOrders) {
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
	d.InvoiceURL = "/orders/" + web.Itoa(o.ID) + "/invoice.pdf"
	d.CanCancel = !adminView && orders.CanMoveOrder(o.Status, orders.OrderCancelled)
	if !adminView && h.orders.CanPayNow(o) {
		d.PayNow = "/orders/" + web.Itoa(o.ID) + "/pay"
	}
	if err := h.addReturns(ctx, &d, o, !adminView); err != nil {
		return err
	}
	if adminView && o.UserID != orders.GuestUserID {
		if u, err := h.sessions.UserByID(ctx, o.UserID); err == nil {
			d.Shopper = u.Username
		}
	}
	web.UseCurrency(c, o.Currency)
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
	d.InvoiceURL = "/orders/" + web.Itoa(o.ID) + "/invoice.pdf" + d.Link[strings.Index(d.Link, "?"):]
	if h.orders.CanPayNow(o) {
		d.PayNow = strings.Replace(d.Link, "?", "/pay?", 1)
	}
	if err := h.addReturns(c.Request().Context(), &d, o, true); err != nil {
		return err
	}
	c.Response().Header().Set("Referrer-Policy", "no-referrer") // the key is in the URL
	web.UseCurrency(c, o.Currency)
	return web.Render(c, http.StatusOK, views.OrderPage(h.web.Chrome(c, "Order #"+web.Itoa(o.ID)), d))
}

// pictureOrder sets each order line's picture: its variant's own (as
// the variant shows it today), else its item's main one.
func (h *Handler) pictureOrder(ctx context.Context, d *views.OrderData) error {
	var vids []int64
	for _, l := range d.Lines {
		if l.VariantID != 0 {
			vids = append(vids, l.VariantID)
		}
	}
	vs, err := h.catalog.VariantsByID(ctx, vids)
	if err != nil {
		return err
	}
	refs := make([]lineRef, len(d.Lines))
	for i, l := range d.Lines {
		refs[i] = lineRef{item: l.ItemID}
		if v, ok := vs[l.VariantID]; ok && v.ItemID == l.ItemID {
			refs[i].picture = v.Picture
		}
	}
	pics, err := h.linePictures(ctx, refs)
	if err != nil {
		return err
	}
	for i := range d.Lines {
		d.Lines[i].Picture = pics[i]
	}
	return nil
}

// orderView is an order's page model, with its timeline as the shopper
// (or, with adminView, an admin) reads it.
func (h *Handler) orderView(o orders.Order, adminView bool) views.OrderData {
	d := views.OrderData{ID: o.ID, Status: o.Status, TotalCents: o.TotalCents, SubtotalCents: o.SubtotalCents, ShippingCents: o.ShippingCents,
		ItemCount: o.ItemCount, Placed: web.When(o.CreatedAt), Processed: web.When(o.ProcessedAt), Email: o.Email, Guest: o.UserID == orders.GuestUserID,
		Shipping: orders.ShippingName(o.Shipping), AdminView: adminView, Discount: web.OrderDiscount(o), Tax: web.OrderTax(o),
		RefundedCents: o.RefundedCents}
	d.Tracking = o.Tracking
	if o.Address.Line1 != "" {
		d.Address = web.AddressLines(o.Address)
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
	web.UseCurrency(c, o.Currency)
	return web.Render(c, http.StatusOK, views.CancelOrderPage(h.web.Chrome(c, "Cancel order #"+web.Itoa(o.ID)), d))
}

// notCancellable says why an order can no longer be cancelled.
func notCancellable(id int64, status string) string {
	return fmt.Sprintf("Order %d is %s and can no longer be cancelled.", id, strings.ToLower(views.StatusText(status)))
}

// CancelOrder is POST /orders/:id/cancel (signed in only), the form of
// the confirmation: the shopper cancels their own order until it ships;
// the stock goes back, and what the order was paid goes back through its
// payment method, in the same step. After shipping (or a second cancel)
// it is a 422 and nothing changes; so is a paid order whose payment
// cannot be given back now.
func (h *Handler) CancelOrder(c echo.Context) error {
	s := web.SessionOf(c)
	id, err := web.OrderIDParam(c)
	if err != nil {
		return err
	}
	o, err := h.orders.MoveOrder(c.Request().Context(), id, s.UserID, orders.OrderCancelled, orders.ActorShopper)
	var me *orders.MoveError
	switch {
	case errors.As(err, &me):
		return web.Unprocessable(c, notCancellable(id, me.From))
	case errors.Is(err, orders.ErrNoRefundMethod):
		return web.Unprocessable(c, fmt.Sprintf("Order %d was paid, and its payment cannot be given back online right now, so it was not cancelled. Please contact us.", id))
	case err != nil:
		return err
	}
	msg := h.cancelledText(o)
	if web.WantsJSON(c) {
		return c.JSON(http.StatusOK, map[string]string{"message": msg, "status": orders.OrderCancelled})
	}
	h.web.SetFlash(c, msg)
	return web.Redirect(c, "/orders/"+web.Itoa(id))
}

// cancelledText tells the shopper an order is cancelled, and what of its
// payment goes back.
func (h *Handler) cancelledText(o orders.Order) string {
	if o.RefundedCents > 0 {
		how := "to you"
		if p, ok := h.orders.PaymentByCode(o.Payment); ok && p.PaysFirst() {
			how = "to your " + strings.ToLower(p.Label())
		}
		return fmt.Sprintf("Order %d is cancelled. %s goes back %s.", o.ID, web.ViewCurrency(o.Currency).Format(o.RefundedCents), how)
	}
	return fmt.Sprintf("Order %d is cancelled.", o.ID)
}

// PayNow is POST /orders/:id/pay (signed in only): the shopper's own card
// order still awaiting its payment goes back to Stripe, to its open
// Checkout Session or a new one. Any other order is a 422 with why and
// changes nothing; someone else's is a 404.
func (h *Handler) PayNow(c echo.Context) error {
	s := web.SessionOf(c)
	id, err := web.OrderIDParam(c)
	if err != nil {
		return err
	}
	o, err := h.orders.Order(c.Request().Context(), s.UserID, id)
	if err != nil {
		return err
	}
	return h.payNow(c, o, "/orders/"+web.Itoa(o.ID))
}

// PayGuestOrder is POST /guest-orders/:id/pay?key=: PayNow for a guest's
// order, through its signed link (a wrong key is a 404).
func (h *Handler) PayGuestOrder(c echo.Context) error {
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
	return h.payNow(c, o, h.web.GuestOrderURL(o.ID))
}

// payNow sends the shopper to pay for o, whose page is page.
func (h *Handler) payNow(c echo.Context, o orders.Order, page string) error {
	next, err := h.orders.PayNow(c.Request().Context(), o, h.returnURLs(page))
	switch {
	case errors.Is(err, orders.ErrNotAwaitingPayment):
		return web.Unprocessable(c, fmt.Sprintf("Order %d is %s: there is nothing to pay.", o.ID, strings.ToLower(views.StatusText(o.Status))))
	case errors.Is(err, orders.ErrPaymentUnderway):
		h.web.SetFlash(c, fmt.Sprintf("Your payment for order %d went through; we are confirming it. This page shows it paid in a moment.", o.ID))
		return web.Redirect(c, page)
	case err != nil:
		h.web.Log().Error("pay now: the payment could not start", "order", o.ID, "err", err)
		h.web.SetFlash(c, "Card payments are not available right now. Your order is held for you until its payment time runs out; please try again in a moment.")
		return web.Redirect(c, page)
	}
	return web.Redirect(c, next)
}
