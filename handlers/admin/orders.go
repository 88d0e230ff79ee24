package admin

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/views"
)

// adminOrdersPerPage is the admin order list's page size.
const adminOrdersPerPage = 50

// adminMoves are the statuses an admin may move an order to.
var adminMoves = []string{orders.OrderPaid, orders.OrderShipped, orders.OrderDelivered, orders.OrderCancelled}

// Orders is GET /admin/orders?status=&page=: every shopper's orders,
// newest first, optionally of one status.
func (h *Handler) Orders(c echo.Context) error {
	page, err := web.PageParam(c)
	if err != nil {
		return err
	}
	status := c.QueryParam("status")
	if status != "" && !orders.IsOrderStatus(status) {
		return web.BadRequest("Unknown order status.")
	}
	d := views.AdminOrdersData{Status: status, Statuses: append(append([]string{}, orders.OrderPath...), orders.OrderCancelled)}
	if page <= web.MaxPage {
		orders, total, err := h.orders.AdminOrders(c.Request().Context(), status, adminOrdersPerPage, (page-1)*adminOrdersPerPage)
		if err != nil {
			return err
		}
		d.Total = total
		for _, o := range orders {
			d.Orders = append(d.Orders, views.AdminOrderRow{ID: o.ID, Shopper: o.Username, Status: o.Status,
				TotalCents: o.TotalCents, ItemCount: o.ItemCount, Placed: web.When(o.CreatedAt), Next: nextMoves(o.Status)})
		}
	}
	d.Pager = web.PagerFor(page, adminOrdersPerPage, d.Total, listURL("/admin/orders", "status", status))
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
// delivered or cancelled). Only forward moves along the lifecycle, or a
// cancel before shipping, apply; anything else is a 422 and changes
// nothing. Of two admins moving one order at once, one wins and the other
// gets the 422.
func (h *Handler) MoveOrder(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no order with that number.")
	}
	to := c.FormValue("status")
	if !slices.Contains(adminMoves, to) {
		return h.orderMoveInvalid(c, "Choose paid, shipped, delivered or cancelled.")
	}
	o, err := h.orders.MoveOrder(c.Request().Context(), id, 0, to, orders.AdminActor(web.SessionOf(c).UserName))
	var me *orders.MoveError
	if errors.As(err, &me) {
		return h.orderMoveInvalid(c, fmt.Sprintf("Order %d is %s: it cannot move to %s.", id, views.StatusText(me.From), views.StatusText(to)))
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "move order", "order "+web.Itoa(id), "status", o.Status)
	return h.web.Done(c, fmt.Sprintf("Order %d is now %s.", id, views.StatusText(o.Status)), "/admin/orders")
}

// orderMoveInvalid is a refused move: 422 with the message.
func (h *Handler) orderMoveInvalid(c echo.Context, msg string) error {
	return web.Unprocessable(c, msg)
}

// listURL is the address of page p of an admin list, with its one filter
// (the search, the status) when set.
func listURL(path, filter, value string) func(p int) string {
	return func(p int) string {
		v := url.Values{"page": {strconv.Itoa(p)}}
		if value != "" {
			v.Set(filter, value)
		}
		return path + "?" + v.Encode()
	}
}
