package shop

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/returns"
	"storefront/views"
)

// addReturns puts the order's returns on its page and, when the shopper
// may still return some of it, the form that asks (the admin's view shows
// the returns only). A guest asks from the order's signed link.
func (h *Handler) addReturns(ctx context.Context, d *views.OrderData, o orders.Order, canAsk bool) error {
	rs, err := h.returns.ForOrder(ctx, o.ID)
	if err != nil {
		return err
	}
	for _, r := range rs {
		d.Returns = append(d.Returns, web.ReturnView(r))
	}
	until, open := h.returns.Deadline(o)
	if !canAsk || !open {
		return nil
	}
	left, err := h.returns.Returnable(ctx, o.ID)
	if err != nil {
		return err
	}
	f := &views.ReturnForm{Until: web.When(until), Max: returns.MaxReasonLen}
	some := false
	for _, l := range o.Lines {
		key := returns.LineKey{ItemID: l.ItemID, VariantID: l.VariantID}
		n := left[key].Qty
		some = some || n > 0
		name := l.Name
		if l.Variant != "" {
			name += " (" + l.Variant + ")"
		}
		f.Lines = append(f.Lines, views.ReturnFormLine{Key: key.String(), Name: name, Left: n})
	}
	if some {
		d.Return = f
	}
	return nil
}

// returnRefusals are the shopper's words for each refused request.
var returnRefusals = []struct {
	err error
	msg string
}{
	{returns.ErrNotDelivered, "Only a delivered order can be returned."},
	{returns.ErrWindowOver, "The time to return this order is over."},
	{returns.ErrNoLines, "Choose at least one item to return."},
	{returns.ErrQty, "Give how many of each chosen item to return: a whole number of at least 1."},
	{returns.ErrTooMany, "That is more than you bought, less what you already asked to return."},
	{returns.ErrUnknownLine, "That item is not in this order."},
	{returns.ErrReason, fmt.Sprintf("Say why in 1 to %d characters of plain text.", returns.MaxReasonLen)},
}

// AskReturn is POST /orders/:id/returns (signed in only): line (an order
// line's item id, repeatable), qty-<line> and reason. Someone else's
// order is a 404; a refused request (not delivered, the window over, no
// line, a bad quantity, more than is left to return, a line not in the
// order, a bad reason) is a 422 on the order's page with the form as
// typed, and changes nothing.
func (h *Handler) AskReturn(c echo.Context) error {
	id, err := web.OrderIDParam(c)
	if err != nil {
		return err
	}
	s := web.SessionOf(c)
	o, err := h.orders.Order(c.Request().Context(), s.UserID, id)
	if err != nil {
		return err
	}
	return h.askReturn(c, o, returns.Request{OrderID: id, UserID: s.UserID}, "")
}

// AskGuestReturn is POST /guest-orders/:id/returns?key=: a guest asks for a
// return from the order's signed link (the one its emails carry), with
// the same form, checks and answers as a member. A missing or wrong key
// is a 404, like an order that does not exist.
func (h *Handler) AskGuestReturn(c echo.Context) error {
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
	c.Response().Header().Set("Referrer-Policy", "no-referrer") // the key is in the URL
	return h.askReturn(c, o, returns.Request{OrderID: id, Guest: true}, h.web.GuestOrderURL(id))
}

// askReturn asks for the return of order o that the form posted; link is
// a guest's signed link to the order ("" for a member's).
func (h *Handler) askReturn(c echo.Context, o orders.Order, req returns.Request, link string) error {
	ctx := c.Request().Context()
	form, err := c.FormParams()
	if err != nil {
		return web.Unprocessable(c, "The form could not be read.")
	}
	req.Qty, req.Reason = map[returns.LineKey]int64{}, form.Get("reason")
	for _, v := range form["line"] {
		key, ok := returns.ParseLineKey(v)
		if !ok {
			err = returns.ErrUnknownLine
			break
		}
		qty, perr := strconv.ParseInt(form.Get("qty-"+v), 10, 64)
		if perr != nil {
			err = returns.ErrQty
			break
		}
		req.Qty[key] = qty
	}
	var r returns.Return
	if err == nil {
		r, err = h.returns.Ask(ctx, req)
	}
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no order with that number.")
	}
	if errors.Is(err, platform.ErrInvalid) {
		msg := "This return cannot be asked for."
		for _, x := range returnRefusals {
			if errors.Is(err, x.err) {
				msg = x.msg
				break
			}
		}
		if web.WantsJSON(c) {
			return web.Unprocessable(c, msg)
		}
		return h.refusedReturn(c, o, form["line"], req, msg, link)
	}
	if err != nil {
		return err
	}
	page := "/orders/" + web.Itoa(o.ID)
	if link != "" {
		page = link
	}
	return h.web.Done(c, fmt.Sprintf("Return #%d is asked for. We will email you at each step.", r.ID), page+"#returns")
}

// refusedReturn is the order page again, 422, with the return form as
// typed and why it was refused.
func (h *Handler) refusedReturn(c echo.Context, o orders.Order, picked []string, req returns.Request, msg, link string) error {
	ctx := c.Request().Context()
	d := h.orderView(o, false)
	if err := h.pictureOrder(ctx, &d); err != nil {
		return err
	}
	d.Link = link
	d.CanCancel = link == "" && orders.CanMoveOrder(o.Status, orders.OrderCancelled)
	if err := h.addReturns(ctx, &d, o, true); err != nil {
		return err
	}
	if d.Return == nil {
		d.Return = &views.ReturnForm{Max: returns.MaxReasonLen}
	}
	d.Return.Error, d.Return.Reason = msg, req.Reason
	for i, l := range d.Return.Lines {
		d.Return.Lines[i].Picked = slices.Contains(picked, l.Key)
		if key, ok := returns.ParseLineKey(l.Key); ok {
			d.Return.Lines[i].Qty = req.Qty[key]
		}
	}
	web.UseCurrency(c, o.Currency)
	return web.Render(c, http.StatusUnprocessableEntity, views.OrderPage(h.web.Chrome(c, "Order #"+web.Itoa(o.ID)), d))
}
