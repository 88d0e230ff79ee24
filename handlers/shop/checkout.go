package shop

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/addressbook"
	"storefront/store/cart"
	"storefront/store/orders"
	"storefront/store/pricing"
	"storefront/views"
)

// ShowCheckout is the checkout page (GET /checkout): the review of the
// cart at current prices and the form. A signed-in shopper's default saved
// address is filled in (or the one chosen with ?address=<id>, a link per
// saved address that works without JavaScript), else the last order's.
func (h *Handler) ShowCheckout(c echo.Context) error {
	s := web.SessionOf(c)
	f := checkoutForm{Shipping: orders.ShippingStandard, Payment: h.orders.PaymentMethods()[0].Code()}
	var fill func(d *views.CheckoutData)
	if s.SignedIn() {
		var err error
		if fill, err = h.fillAddress(c, s.UserID, &f); err != nil {
			return err
		}
	}
	return h.renderCheckout(c, http.StatusOK, f, nil, "", fill)
}

// fillAddress fills f's address for a member: the saved address asked
// for, else the default one, else the last order's; and offers the saved
// addresses.
func (h *Handler) fillAddress(c echo.Context, userID int64, f *checkoutForm) (func(d *views.CheckoutData), error) {
	ctx := c.Request().Context()
	var saved []addressbook.Entry
	if h.saved != nil {
		var err error
		if saved, err = h.saved.List(ctx, userID); err != nil {
			return nil, err
		}
	}
	offer := func(d *views.CheckoutData, chosen int64, fromLast bool) {
		d.AddressFromLastOrder = fromLast
		for _, e := range saved {
			d.SavedAddresses = append(d.SavedAddresses, views.SavedAddressOption{ID: e.ID,
				Summary: strings.Join(web.AddressLines(e.Address), ", "), Chosen: e.ID == chosen})
		}
	}
	if q := c.QueryParam("address"); q != "" {
		id, _ := web.PathID(q)
		for _, e := range saved {
			if e.ID == id {
				f.setAddress(e.Address)
				return func(d *views.CheckoutData) { offer(d, e.ID, false) }, nil
			}
		}
		return nil, web.NotFound("There is no such address in your address book.")
	}
	if len(saved) > 0 { // the default comes first
		f.setAddress(saved[0].Address)
		return func(d *views.CheckoutData) { offer(d, saved[0].ID, false) }, nil
	}
	a, ok, err := h.orders.LastAddress(ctx, userID)
	if err != nil {
		return nil, err
	}
	if ok {
		f.setAddress(a)
	}
	return func(d *views.CheckoutData) { offer(d, 0, ok) }, nil
}

// PlaceOrder places the order (POST /checkout). A missing or bad field
// re-renders the form as typed with the field's message (422); a line the
// stock cannot fill, or a total other than the one the shopper saw, shows
// the new review (422). Nothing changes unless the order is placed. A
// guest is sent to the order's signed link, a signed-in shopper to the
// order's page.
func (h *Handler) PlaceOrder(c echo.Context) error {
	f, err := readCheckoutForm(c)
	if err != nil {
		return err
	}
	s := web.SessionOf(c)
	if f.Review {
		// "Update the review": price it for the country and method typed.
		return h.renderCheckout(c, http.StatusOK, f, nil, "", nil)
	}
	errs := f.validate(!s.SignedIn(), h.orders.PaymentByCode)
	if len(errs) > 0 {
		return h.renderCheckout(c, http.StatusUnprocessableEntity, f, errs, "Please correct the marked fields.", nil)
	}
	pay, _ := h.orders.PaymentByCode(f.Payment)
	expect, _ := orders.ParseMoney(f.Total)
	req := orders.CheckoutRequest{Cart: cartOwner(s), Address: f.address(), Shipping: f.Shipping, Payment: pay.Code(), ExpectTotal: expect}
	if !s.SignedIn() {
		req.Email = f.Email
	}
	o, err := h.placeOrder(c, s, req)
	var ce *orders.CheckoutError
	var refused *pricing.CodeError
	switch {
	case errors.As(err, &refused):
		msg, _ := codeText(h.web.Shop().Currency, refused)
		return h.renderCheckout(c, http.StatusUnprocessableEntity, f, nil, "Your order was not placed. "+msg+" Remove the code from your cart to order without it.", nil)
	case errors.As(err, &ce) && ce.PriceChanged:
		msg := fmt.Sprintf("Prices or delivery changed since you saw the total: it is now %s. Check the order and place it again.", views.Money(c.Request().Context(), ce.Total))
		return h.renderCheckout(c, http.StatusUnprocessableEntity, f, nil, msg, nil)
	case errors.As(err, &ce):
		return h.checkoutRefused(c, f, ce)
	case errors.Is(err, pricing.ErrNoZone):
		return h.renderCheckout(c, http.StatusUnprocessableEntity, f, map[string]string{"country": noDeliveryText(f.Country)},
			"Please correct the marked fields.", nil)
	case errors.Is(err, orders.ErrEmptyCart):
		h.web.SetFlash(c, "Your cart is empty: add something before checking out.")
		return web.Redirect(c, "/cart")
	case errors.Is(err, orders.ErrCheckoutBusy):
		return echo.NewHTTPError(http.StatusConflict, "Your order is already being placed. See your orders in a moment.")
	case err != nil:
		return err
	}
	s.CartCount = 0
	page := "/orders/" + web.Itoa(o.ID)
	if !s.SignedIn() {
		page = h.web.GuestOrderURL(o.ID)
	}
	next, err := pay.Begin(c.Request().Context(), o, h.returnURLs(page))
	if err != nil {
		return h.paymentNotStarted(c, o, page, err)
	}
	if next == "" {
		h.web.SetFlash(c, fmt.Sprintf("Thank you! Order #%d is placed.", o.ID))
		next = page
	}
	return web.Redirect(c, next)
}

// returnURLs are where a payment provider sends the shopper back: the
// order's page on SHOP_URL.
func (h *Handler) returnURLs(page string) orders.ReturnURLs {
	return orders.ReturnURLs{Done: h.cfg.ShopURL + page, Cancel: h.cfg.ShopURL + page}
}

// paymentNotStarted handles a card order whose payment the provider would
// not start (or did not answer within the request's time): the order is
// cancelled at once (its stock goes back) rather than held for the payment
// hold, its lines go back into the cart so the shopper can pay another way,
// and the shopper sees it with why; no email is sent, as none confirmed the
// order (a card order is confirmed when paid): one clear outcome.
func (h *Handler) paymentNotStarted(c echo.Context, o orders.Order, page string, cause error) error {
	ctx := context.WithoutCancel(c.Request().Context())
	h.web.Log().Error("payment could not start: order cancelled", "order", o.ID, "err", cause)
	if _, err := h.orders.MoveOrder(ctx, o.ID, 0, orders.OrderCancelled, orders.ActorPayment); err != nil {
		h.web.Log().Error("cancelling the order whose payment could not start", "order", o.ID, "err", err)
	}
	s := web.SessionOf(c)
	for _, l := range o.Lines {
		if _, err := h.carts.SetLine(ctx, cartOwner(s), cart.Line{ItemID: l.ItemID, VariantID: l.VariantID, Qty: l.Qty}); err != nil {
			h.web.Log().Error("putting the lines of an order whose payment could not start back in the cart", "order", o.ID, "err", err)
			break
		}
		s.CartCount += l.Qty
	}
	h.web.SetFlash(c, fmt.Sprintf("Card payments are not available right now, so order #%d was cancelled and nothing was charged. Its items are back in your cart: please try again later or choose another way to pay.", o.ID))
	return web.Redirect(c, page)
}

// placeOrder runs the checkout for a cart that has a session (a guest with
// no session has an empty cart).
func (h *Handler) placeOrder(c echo.Context, s *web.Session, req orders.CheckoutRequest) (orders.Order, error) {
	if s.Token == "" {
		return orders.Order{}, orders.ErrEmptyCart
	}
	return h.orders.Checkout(c.Request().Context(), req)
}

// checkoutRefused shows the review with the lines that stopped the order.
func (h *Handler) checkoutRefused(c echo.Context, f checkoutForm, ce *orders.CheckoutError) error {
	problems := make(map[string]string, len(ce.Problems))
	msgs := make([]string, 0, len(ce.Problems))
	for _, p := range ce.Problems {
		m := problemText(p)
		problems[cart.LineField(p.ItemID, p.VariantID)] = m
		msgs = append(msgs, m)
	}
	return h.renderCheckout(c, http.StatusUnprocessableEntity, f, nil, "Your order was not placed. "+strings.Join(msgs, " "),
		func(d *views.CheckoutData) {
			for i, l := range d.Lines {
				if p, ok := problems[cart.LineField(l.ItemID, l.VariantID)]; ok {
					d.Lines[i].Problem = p
				}
			}
		})
}

// renderCheckout renders the checkout page: the review of the cart at
// current prices with the delivery the form picked, and the form as typed.
// An empty cart sends the shopper back to it. edit adjusts the page model.
func (h *Handler) renderCheckout(c echo.Context, status int, f checkoutForm, errs map[string]string, msg string, edit func(*views.CheckoutData)) error {
	cart, rows, err := h.loadCart(c)
	if err != nil {
		return err
	}
	if len(cart.Lines) == 0 {
		h.web.SetFlash(c, "Your cart is empty: add something before checking out.")
		return web.Redirect(c, "/cart")
	}
	s := web.SessionOf(c)
	s.CartCount = h.web.BuyableCount(c, cart.Lines)
	cv := h.cartView(cart, rows, nil)
	if err := h.pictureLines(c.Request().Context(), cv.Lines); err != nil {
		return err
	}
	if msg == "" {
		msg = goneLines(cv.Lines) // named before the shopper types an address
	}
	d := views.CheckoutData{Guest: !s.SignedIn(), Lines: cv.Lines, Count: cv.Count, SubtotalCents: cv.SubtotalCents, Error: msg,
		Form: f.view(errs), Payments: h.paymentOptions(), Countries: web.CountryOptions()}
	if err := h.priceReview(c.Request().Context(), &d, cart.Code, f); err != nil {
		return err
	}
	if edit != nil {
		edit(&d)
	}
	return web.Render(c, status, views.CheckoutPage(h.web.Chrome(c, "Checkout"), d))
}

// priceReview prices the review for the form's country and delivery
// method (standard until one is picked; no tax line until a country is):
// each method's price and total, the discount, the tax and the total the
// form sends back. An applied code that cannot be used says why.
func (h *Handler) priceReview(ctx context.Context, d *views.CheckoutData, code string, f checkoutForm) error {
	method := f.Shipping
	if !orders.ValidShipping(method) {
		method = orders.ShippingStandard
	}
	country := f.Country
	if orders.CountryName(country) == "" {
		country = ""
	}
	amounts := lineAmounts(d.Lines)
	for _, m := range []struct{ code, label string }{{orders.ShippingStandard, "Standard (3-5 working days)"}, {orders.ShippingExpress, "Express (next working day)"}} {
		q, refused, err := h.pricing.Quote(ctx, nil, pricing.Request{Lines: amounts, Country: country, Method: m.code, Code: code})
		if errors.Is(err, pricing.ErrNoZone) {
			noDelivery(d, country)
			q, refused, err = h.pricing.Quote(ctx, nil, pricing.Request{Lines: amounts, Method: m.code, Code: code})
			country = ""
		}
		if err != nil {
			return err
		}
		if country == "" {
			// No delivery priced before a country: the goods alone.
			q.Shipping, q.Discount, q.Tax = 0, q.GoodsDiscount, 0
			q.Total = q.Subtotal - q.GoodsDiscount
		}
		d.Shipping = append(d.Shipping, views.ShippingOption{Code: m.code, Label: m.label, CostCents: q.Shipping, TotalCents: q.Total,
			TaxCents: q.Tax, DiscountCents: q.Discount})
		if m.code != method {
			continue
		}
		d.ShippingCents, d.TotalCents = q.Shipping, q.Total
		if country != "" {
			d.Zone = q.Zone.Name
		}
		d.Tax = taxLine(q.TaxMode, q.RateBP, q.Tax, country)
		if code != "" {
			d.Discount = discountLine(h.web.Shop().Currency, q, code, refused)
			if refused != nil && d.Error == "" {
				d.Error = d.Discount.Problem
			}
		}
	}
	return nil
}

// noDelivery marks the review's country as one the shop does not deliver
// to (no shipping zone takes it and there is no "Rest of world" zone).
func noDelivery(d *views.CheckoutData, country string) {
	if d.Form.Errors == nil {
		d.Form.Errors = map[string]string{}
	}
	d.Form.Errors["country"] = noDeliveryText(country)
}

// noDeliveryText says the shop does not deliver to a country.
func noDeliveryText(country string) string {
	return "We do not deliver to " + orders.CountryName(country) + ". Choose another country."
}

func (h *Handler) paymentOptions() []views.PaymentOption {
	var out []views.PaymentOption
	for _, p := range h.orders.PaymentMethods() {
		out = append(out, views.PaymentOption{Code: p.Code(), Label: p.Label(), Instructions: p.Instructions()})
	}
	return out
}

// problemText says, for the shopper, why a line could not be ordered.
func problemText(p orders.LineProblem) string {
	switch p.Reason {
	case orders.ProblemGone:
		if p.Name != "" {
			return p.Name + " is no longer sold; remove it from your cart to check out."
		}
		return "An item in your cart is no longer sold; remove it to check out."
	case orders.ProblemSoldOut:
		return p.Name + " is sold out; remove it to check out."
	}
	return fmt.Sprintf("Only %d of %s left (you asked for %d); lower the quantity to check out.", p.Available, p.Name, p.Wanted)
}
