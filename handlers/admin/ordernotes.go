package admin

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/views"
)

// Order is GET /admin/orders/:id: the order as the admin sees it, with
// the admin's notes and the form to add one.
func (h *Handler) Order(c echo.Context) error {
	d, err := h.orderPage(c)
	if err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, views.AdminOrderPage(h.web.Chrome(c, "Order #"+web.Itoa(d.ID)), d))
}

// AddOrderNote is POST /admin/orders/:id/notes (note): the note is kept
// with the admin's name and the time. An empty, over-long or unprintable
// note is a 422 on the order's page with the note as typed, and adds
// nothing.
func (h *Handler) AddOrderNote(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no order with that number.")
	}
	body := c.FormValue("note")
	n, err := h.orders.AddNote(c.Request().Context(), id, web.SessionOf(c).UserName, body)
	switch {
	case errors.Is(err, platform.ErrNotFound):
		return web.NotFound("There is no order with that number.")
	case errors.Is(err, orders.ErrNoteText):
		msg := "Write a note of 1 to 2,000 characters."
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg})
		}
		d, err := h.orderPage(c)
		if err != nil {
			return err
		}
		d.Note, d.NoteError = body, msg
		return web.Render(c, http.StatusUnprocessableEntity, views.AdminOrderPage(h.web.Chrome(c, "Order #"+web.Itoa(id)), d))
	case err != nil:
		return err
	}
	h.web.Audit(c, "add order note", "order "+web.Itoa(id), "note", n.ID)
	return h.web.Done(c, "Note added.", "/admin/orders/"+web.Itoa(id)+"#notes-h")
}

// orderPage reads the order of the :id in the path and its notes.
func (h *Handler) orderPage(c echo.Context) (views.AdminOrderData, error) {
	ctx := c.Request().Context()
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return views.AdminOrderData{}, web.NotFound("There is no order with that number.")
	}
	o, err := h.orders.OrderAny(ctx, id)
	if errors.Is(err, platform.ErrNotFound) {
		return views.AdminOrderData{}, web.NotFound("There is no order with that number.")
	}
	if err != nil {
		return views.AdminOrderData{}, err
	}
	notes, err := h.orders.Notes(ctx, id)
	if err != nil {
		return views.AdminOrderData{}, err
	}
	d := views.AdminOrderData{ID: o.ID, Email: o.Email, Status: o.Status, Placed: web.When(o.CreatedAt), TotalCents: o.TotalCents,
		Shipping: o.Shipping, Payment: o.Payment, MaxNote: orders.MaxNoteLen, Address: addressLines(o.Address)}
	if o.UserID != orders.GuestUserID {
		u, err := h.accounts.UserByID(ctx, o.UserID)
		if err != nil {
			return d, err
		}
		d.Shopper = u.Username
	}
	if pm, ok := h.orders.PaymentByCode(o.Payment); ok {
		d.Payment = pm.Label()
	}
	for _, l := range o.Lines {
		d.Lines = append(d.Lines, views.AdminOrderLine{ItemID: l.ItemID, Name: l.Name, Qty: l.Qty, PriceCents: l.PriceCents})
	}
	for _, e := range o.Events {
		d.Events = append(d.Events, views.AdminOrderEvent{Status: e.Status, Actor: e.Actor, At: web.When(e.At)})
	}
	for _, n := range notes {
		d.Notes = append(d.Notes, views.AdminOrderNote{ID: n.ID, Author: n.Author, Body: n.Body, At: web.When(n.At)})
	}
	return d, nil
}

// addressLines is a delivery address line by line, empty lines left out.
func addressLines(a orders.Address) []string {
	var out []string
	for _, l := range []string{a.Name, a.Line1, a.Line2, strings.TrimSpace(a.Postcode + " " + a.City), a.Country} {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
