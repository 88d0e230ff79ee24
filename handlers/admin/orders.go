package admin

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/views"
)

// adminOrdersPerPage is the admin order list's page size.
const adminOrdersPerPage = 50

// adminMoves are the statuses an admin may move an order to.
var adminMoves = []string{orders.OrderPaid, orders.OrderShipped, orders.OrderDelivered, orders.OrderCancelled}

// Orders is GET /admin/orders?q=&status=&page=: every shopper's orders,
// newest first, optionally of one status and found by number, name or
// email.
func (h *Handler) Orders(c echo.Context) error {
	page, err := web.PageParam(c)
	if err != nil {
		return err
	}
	status := c.QueryParam("status")
	if status != "" && !orders.IsOrderStatus(status) {
		return web.BadRequest("Unknown order status.")
	}
	q, err := searchParam(c)
	if err != nil {
		return err
	}
	d := views.AdminOrdersData{Query: q, Status: status, Statuses: append(append([]string{orders.OrderAwaitingPayment}, orders.OrderPath...), orders.OrderCancelled)}
	if page <= web.MaxPage {
		found, total, err := h.orders.AdminOrders(c.Request().Context(), orders.AdminOrderQuery{Status: status, Q: q,
			Limit: adminOrdersPerPage, Offset: (page - 1) * adminOrdersPerPage})
		if err != nil {
			return err
		}
		d.Total = total
		for _, o := range found {
			row := views.AdminOrderRow{ID: o.ID, Shopper: o.Username, Name: o.Address.Name, Status: o.Status,
				TotalCents: o.TotalCents, ItemCount: o.ItemCount, Placed: web.When(o.CreatedAt), Next: nextMoves(o.Status)}
			if o.UserID == orders.GuestUserID {
				row.Shopper, row.Email = "", o.Email
			}
			d.Orders = append(d.Orders, row)
		}
	}
	d.Pager = web.PagerFor(page, adminOrdersPerPage, d.Total, listURL("/admin/orders", url.Values{"q": {q}, "status": {status}}))
	return web.Render(c, http.StatusOK, views.AdminOrdersPage(h.web.Chrome(c, "Orders"), d))
}

// nextMoves lists the admin moves open to an order in status.
func nextMoves(status string) []string {
	var out []string
	for _, to := range adminMoves {
		if orders.CanMoveOrder(status, to) {
			out = append(out, to)
		}
	}
	return out
}

// MoveOrder is POST /admin/orders/:id/status (status=paid, shipped,
// delivered or cancelled; tracking, required for shipped; next, the page
// to go back to, the order list by default). Only forward moves along the
// lifecycle, or a cancel before shipping, apply; anything else is a 422
// with the order's page, its status form showing what was typed and why,
// and changes nothing. Of two admins moving one order at once, one wins
// and the other gets the 422.
func (h *Handler) MoveOrder(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no order with that number.")
	}
	to := c.FormValue("status")
	if !slices.Contains(adminMoves, to) {
		return h.orderMoveInvalid(c, "Choose paid, shipped, delivered or cancelled.")
	}
	if to == orders.OrderCancelled && !web.May(web.SessionOf(c).Role, web.PermRefunds) {
		return web.Forbidden(c) // cancelling gives a paid order's money back
	}
	actor := orders.AdminActor(web.SessionOf(c).UserName)
	var o orders.Order
	var err error
	if to == orders.OrderShipped {
		o, err = h.orders.ShipOrder(c.Request().Context(), id, c.FormValue("tracking"), actor)
	} else {
		o, err = h.orders.MoveOrder(c.Request().Context(), id, 0, to, actor)
	}
	if errors.Is(err, orders.ErrBadTracking) {
		return h.orderMoveInvalid(c, "Give the carrier's tracking number to ship order "+web.Itoa(id)+": 1 to 64 letters, digits, spaces or - . / _.")
	}
	var me *orders.MoveError
	if errors.As(err, &me) {
		return h.orderMoveInvalid(c, fmt.Sprintf("Order %d is %s: it cannot move to %s.", id, views.StatusText(me.From), views.StatusText(to)))
	}
	if errors.Is(err, orders.ErrBalanceDue) {
		return h.orderMoveInvalid(c, fmt.Sprintf("Order %d waits for the shopper to pay the difference its change asked for: it ships once that is paid.", id))
	}
	if errors.Is(err, orders.ErrNoRefundMethod) {
		return h.orderMoveInvalid(c, fmt.Sprintf("Order %d was paid through a payment method that is not offered now, so its payment cannot be given back: it was not cancelled. Turn that payment method back on to cancel it.", id))
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "move order", "order "+web.Itoa(id), "status", o.Status, "refunded_cents", o.RefundedCents)
	msg := fmt.Sprintf("Order %d is now %s.", id, views.StatusText(o.Status))
	if o.Status == orders.OrderCancelled && o.RefundedCents > 0 {
		msg += fmt.Sprintf(" %s of its payment goes back to the shopper (see Refunds).", web.ViewCurrency(o.Currency).Format(o.RefundedCents))
	}
	return h.web.Done(c, msg, web.LocalPath(c.FormValue("next"), "/admin/orders"))
}

// orderMoveInvalid is a refused move: 422 with the message, on the order's
// page beside its status form (JSON {"error"} for a script).
func (h *Handler) orderMoveInvalid(c echo.Context, msg string) error {
	if web.WantsJSON(c) {
		return web.Unprocessable(c, msg)
	}
	d, err := h.orderPage(c)
	if err != nil {
		return err
	}
	d.MoveTo, d.MoveTracking, d.MoveError = c.FormValue("status"), c.FormValue("tracking"), msg
	return web.Render(c, http.StatusUnprocessableEntity, views.AdminOrderPage(h.web.Chrome(c, "Order #"+web.Itoa(d.ID)), d))
}

// listURL is the address of page p of an admin list, with its filters
// (the search, the status) that are set.
func listURL(path string, filters url.Values) func(p int) string {
	return func(p int) string {
		v := url.Values{"page": {strconv.Itoa(p)}}
		for k, vals := range filters {
			if len(vals) > 0 && vals[0] != "" {
				v.Set(k, vals[0])
			}
		}
		return path + "?" + v.Encode()
	}
}

// searchParam is an admin list's search (q), trimmed: 400 when it is over
// 200 characters.
func searchParam(c echo.Context) (string, error) {
	q := strings.TrimSpace(c.QueryParam("q"))
	if utf8.RuneCountInString(q) > web.MaxQueryLen || !utf8.ValidString(q) {
		return "", web.BadRequest("Search for at most 200 characters.")
	}
	return q, nil
}
