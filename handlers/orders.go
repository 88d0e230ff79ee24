package handlers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/store"
	"storefront/views"
)

// ordersPerPage is the orders list's page size.
const ordersPerPage = 20

// ListOrders is the signed-in shopper's orders, newest first.
func (h *Handler) ListOrders(c echo.Context) error {
	s := session(c)
	if !s.SignedIn() {
		return redirect(c, "/login?next=/orders")
	}
	page, err := pageParam(c)
	if err != nil {
		return err
	}
	var orders []store.Order
	total := 0
	if page <= maxPage {
		orders, total, err = h.store.Orders(c.Request().Context(), s.UserID, ordersPerPage, (page-1)*ordersPerPage)
		if err != nil {
			return err
		}
	}
	d := views.OrdersData{Total: total, Pager: pagerFor(page, ordersPerPage, total, func(p int) string { return "/orders?page=" + strconv.Itoa(p) })}
	for _, o := range orders {
		d.Orders = append(d.Orders, views.OrderSummary{ID: o.ID, Status: o.Status, TotalCents: o.TotalCents, ItemCount: o.ItemCount, Placed: when(o.CreatedAt)})
	}
	noStore(c)
	return render(c, http.StatusOK, views.OrdersPage(h.chrome(c, "Your orders"), d))
}

// ShowOrder is one of the shopper's orders; anyone else's is a 404.
func (h *Handler) ShowOrder(c echo.Context) error {
	s := session(c)
	if !s.SignedIn() {
		return redirect(c, "/login?next="+c.Request().URL.Path)
	}
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return notFound("There is no order with that number.")
	}
	o, err := h.store.Order(c.Request().Context(), s.UserID, id)
	if err != nil {
		return err
	}
	d := views.OrderData{ID: o.ID, Status: o.Status, TotalCents: o.TotalCents, ItemCount: o.ItemCount, Placed: when(o.CreatedAt), Processed: when(o.ProcessedAt)}
	for _, l := range o.Lines {
		d.Lines = append(d.Lines, views.OrderLine{ItemID: l.ItemID, Name: l.Name, PriceCents: l.PriceCents, Qty: l.Qty})
	}
	noStore(c)
	return render(c, http.StatusOK, views.OrderPage(h.chrome(c, "Order #"+itoa(o.ID)), d))
}

// when formats a time for order pages; the zero time is "".
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2 Jan 2006, 15:04 UTC")
}
