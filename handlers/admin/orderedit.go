package admin

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/returns"
	"storefront/views"
)

// EditOrder is POST /admin/orders/:id/edit (qty-<line id> per line, 0
// removes it; add_sku and add_qty add an item or variant; version, the
// order's edit version the form showed): the order's lines change before
// it ships, its stock, code, delivery, tax and total recomputed in one
// step, and the difference refunded through its payment method or asked
// of the shopper. A refusal (an order that shipped, a quantity out of
// range, an unknown SKU, too little stock, a total below what was
// refunded) is a 422 on the order's page with the form as typed and why;
// a form shown before another edit is a 409. Nothing changes then.
func (h *Handler) EditOrder(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no order with that number.")
	}
	req := orders.EditRequest{OrderID: id, Version: -1, Qty: map[orders.LineRef]int64{}, AddSKU: strings.TrimSpace(c.FormValue("add_sku")),
		Actor: web.SessionOf(c).UserName}
	form, err := c.FormParams()
	if err != nil {
		return web.BadRequest("The form could not be read.")
	}
	for name, vals := range form {
		key, ok := strings.CutPrefix(name, "qty-")
		if !ok || len(vals) == 0 {
			continue
		}
		lk, ok := returns.ParseLineKey(key)
		qty, err := strconv.ParseInt(strings.TrimSpace(vals[0]), 10, 64)
		if !ok || err != nil {
			return h.orderEditInvalid(c, http.StatusUnprocessableEntity, fmt.Sprintf("Give each line a quantity from 0 (to remove it) to %d.", orders.MaxEditQty))
		}
		req.Qty[orders.LineRef{ItemID: lk.ItemID, VariantID: lk.VariantID}] = qty
	}
	if v := strings.TrimSpace(c.FormValue("version")); v != "" {
		if req.Version, err = strconv.ParseInt(v, 10, 64); err != nil || req.Version < 0 {
			return h.orderEditInvalid(c, http.StatusUnprocessableEntity, "The form is damaged: look at the order again.")
		}
	}
	if q := strings.TrimSpace(c.FormValue("add_qty")); q != "" {
		if req.AddQty, err = strconv.ParseInt(q, 10, 64); err != nil {
			return h.orderEditInvalid(c, http.StatusUnprocessableEntity, fmt.Sprintf("Add a quantity from 1 to %d.", orders.MaxEditQty))
		}
	} else if req.AddSKU != "" {
		req.AddQty = 1
	}
	e, err := h.orders.EditOrder(c.Request().Context(), req)
	var ee *orders.EditError
	switch {
	case errors.Is(err, platform.ErrNotFound):
		return web.NotFound("There is no order with that number.")
	case errors.As(err, &ee) && ee.Reason == orders.EditConflict:
		return h.orderEditInvalid(c, http.StatusConflict, ee.Msg)
	case errors.As(err, &ee):
		return h.orderEditInvalid(c, http.StatusUnprocessableEntity, ee.Msg)
	case err != nil:
		return err
	}
	h.web.Audit(c, "edit order", "order "+web.Itoa(id), "total_before", e.Before.TotalCents, "total_after", e.After.TotalCents,
		"refund_cents", e.Refund.Cents, "due_cents", e.DueCents)
	cur := web.ViewCurrency(e.After.Currency)
	msg := fmt.Sprintf("Order %d changed: its total is now %s.", id, cur.Format(e.After.TotalCents))
	switch {
	case e.Refund.Cents > 0 && e.Refund.Done():
		msg += fmt.Sprintf(" %s went back to the shopper.", cur.Format(e.Refund.Cents))
	case e.Refund.Cents > 0:
		msg += fmt.Sprintf(" %s goes back to the shopper (see Refunds).", cur.Format(e.Refund.Cents))
	case e.DueCents > 0:
		msg += fmt.Sprintf(" The shopper was emailed a link to pay the %s more; the order ships once it is paid.", cur.Format(e.DueCents))
	case e.Collect > 0:
		msg += fmt.Sprintf(" Collect the %s more from the shopper.", cur.Format(e.Collect))
	}
	if e.CodeDropped != "" {
		msg += " The code " + e.CodeDropped + " came off: the order no longer meets its minimum."
	}
	return h.web.Done(c, msg, "/admin/orders/"+web.Itoa(id))
}

// orderEditInvalid is a refused edit: status with the message, on the
// order's page beside its edit form as typed (JSON {"error"} for a
// script).
func (h *Handler) orderEditInvalid(c echo.Context, status int, msg string) error {
	if web.WantsJSON(c) {
		return c.JSON(status, map[string]string{"error": msg})
	}
	d, err := h.orderPage(c)
	if err != nil {
		return err
	}
	d.EditError, d.EditSKU, d.EditAddQty = msg, c.FormValue("add_sku"), c.FormValue("add_qty")
	d.EditQty = map[string]string{}
	for i := range d.Lines {
		if v := c.FormValue("qty-" + d.Lines[i].Key); v != "" {
			d.EditQty[d.Lines[i].Key] = v
		}
	}
	return web.Render(c, status, views.AdminOrderPage(h.web.Chrome(c, "Order #"+web.Itoa(d.ID)), d))
}
