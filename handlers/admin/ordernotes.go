package admin

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/media"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/returns"
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
	web.UseCurrency(c, o.Currency)
	notes, err := h.orders.Notes(ctx, id)
	if err != nil {
		return views.AdminOrderData{}, err
	}
	d := views.AdminOrderData{ID: o.ID, Email: o.Email, Status: o.Status, Placed: web.When(o.CreatedAt), TotalCents: o.TotalCents,
		Shipping: orders.ShippingName(o.Shipping), Payment: o.Payment, MaxNote: orders.MaxNoteLen, Address: web.AddressLines(o.Address),
		Country: orders.CountryName(o.Address.Country), Tracking: o.Tracking, ItemCount: o.ItemCount, SubtotalCents: o.SubtotalCents,
		Discount: web.OrderDiscount(o), ShippingCents: o.ShippingCents, Tax: web.OrderTax(o), PaidCents: o.PaidCents,
		RefundedCents: o.RefundedCents, Moves: nextMoves(o.Status), Editable: orders.Editable(o.Status), EditVersion: o.EditVersion,
		DueCents: o.DueCents, MaxEditQty: orders.MaxEditQty}
	if d.Shipping == "" {
		d.Shipping = o.Shipping
	}
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
	pics, err := h.linePictures(ctx, o.Lines)
	if err != nil {
		return d, err
	}
	for _, l := range o.Lines {
		key := returns.LineKey{ItemID: l.ItemID, VariantID: l.VariantID}
		d.Lines = append(d.Lines, views.AdminOrderLine{Key: key.String(), ItemID: l.ItemID, VariantID: l.VariantID, SKU: l.SKU,
			Variant: l.Variant, Name: l.Name, Qty: l.Qty, PriceCents: l.PriceCents, Picture: pics[key]})
	}
	for _, e := range o.Events {
		d.Events = append(d.Events, views.AdminOrderEvent{Status: e.Status, Actor: e.Actor, At: web.When(e.At)})
	}
	for _, n := range notes {
		d.Notes = append(d.Notes, views.AdminOrderNote{ID: n.ID, Author: n.Author, Body: n.Body, At: web.When(n.At)})
	}
	return d, nil
}

// linePictures are the pictures of an order's lines: a variant's own
// picture where it has one, else its item's main one (none for an item
// without pictures). One read per item: an order has few.
func (h *Handler) linePictures(ctx context.Context, lines []orders.OrderLine) (map[returns.LineKey]views.Picture, error) {
	out := map[returns.LineKey]views.Picture{}
	imgs := map[int64][]media.ItemImage{}
	shown := map[int64]int{} // variant -> picture position
	for _, l := range lines {
		if _, ok := imgs[l.ItemID]; ok {
			continue
		}
		got, err := h.pictures.ItemImages(ctx, l.ItemID)
		if err != nil {
			return nil, err
		}
		imgs[l.ItemID] = got
		if l.VariantID == 0 || len(got) < 2 {
			continue
		}
		vs, err := h.catalog.Variants(ctx, l.ItemID)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			shown[v.ID] = v.Picture
		}
	}
	for _, l := range lines {
		got := imgs[l.ItemID]
		if len(got) == 0 {
			continue
		}
		img := got[0]
		for _, g := range got {
			if p := shown[l.VariantID]; p > 1 && g.Position == p {
				img = g
			}
		}
		out[returns.LineKey{ItemID: l.ItemID, VariantID: l.VariantID}] = web.Picture(img)
	}
	return out, nil
}
