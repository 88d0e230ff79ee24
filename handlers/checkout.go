package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/store"
	"storefront/views"
)

// orderStore is the part of the store that checkout and orders use.
type orderStore interface {
	Checkout(ctx context.Context, token string, userID, expectTotal int64) (store.Order, error)
	Orders(ctx context.Context, userID int64, limit, offset int) ([]store.Order, int, error)
	Order(ctx context.Context, userID, id int64) (store.Order, error)
}

// Checkout places an order for the cart (POST /checkout, optional total:
// the total the shopper saw). Guests are sent to sign in and come back to
// the cart, which sign-in keeps. A line that cannot be filled, or a total
// that changed, re-renders the cart (422) saying which line and why.
func (h *Handler) Checkout(c echo.Context) error {
	s := session(c)
	if !s.SignedIn() {
		h.setFlash(c, "Please sign in to check out. Your cart is kept.")
		return redirect(c, "/login?next=/cart")
	}
	expect, err := readCheckoutForm(c)
	if err != nil {
		return err
	}
	o, err := h.store.Checkout(c.Request().Context(), s.Token, s.UserID, expect)
	var ce *store.CheckoutError
	switch {
	case errors.As(err, &ce):
		return h.checkoutRefused(c, ce)
	case errors.Is(err, store.ErrEmptyCart):
		return h.renderCart(c, http.StatusUnprocessableEntity, "Your cart is empty: add something before checking out.", nil, -1)
	case errors.Is(err, store.ErrCheckoutBusy):
		return echo.NewHTTPError(http.StatusConflict, "Your order is already being placed. See your orders in a moment.")
	case err != nil:
		return err
	}
	h.setFlash(c, fmt.Sprintf("Thank you! Order #%d is placed.", o.ID))
	return redirect(c, "/orders/"+itoa(o.ID))
}

// readCheckoutForm reads the optional total (cents); -1 when absent.
func readCheckoutForm(c echo.Context) (int64, error) {
	form, err := postForm(c)
	if err != nil {
		return 0, err
	}
	totals := form["total"]
	switch {
	case len(totals) == 0:
		return -1, nil
	case len(totals) > 1:
		return 0, badRequest("Send the total once.")
	}
	n, err := strconv.ParseInt(totals[0], 10, 64)
	if err != nil || n < 0 {
		return 0, badRequest("The total is not valid.")
	}
	return n, nil
}

// checkoutRefused re-renders the cart with what stopped the order.
func (h *Handler) checkoutRefused(c echo.Context, ce *store.CheckoutError) error {
	if ce.PriceChanged {
		msg := fmt.Sprintf("Prices changed since you opened your cart: the total is now %s. Check out again to confirm.", views.Money(ce.Total))
		return h.renderCart(c, http.StatusUnprocessableEntity, msg, nil, ce.Total)
	}
	problems := make(map[int64]string, len(ce.Problems))
	msgs := make([]string, 0, len(ce.Problems))
	for _, p := range ce.Problems {
		m := problemText(p)
		problems[p.ItemID] = m
		msgs = append(msgs, m)
	}
	return h.renderCart(c, http.StatusUnprocessableEntity, "Your order was not placed. "+strings.Join(msgs, " "), problems, -1)
}

// problemText says, for the shopper, why a line could not be ordered.
func problemText(p store.LineProblem) string {
	switch p.Reason {
	case store.ProblemGone:
		return "An item in your cart is no longer sold; remove it to check out."
	case store.ProblemSoldOut:
		return p.Name + " is sold out; remove it to check out."
	}
	return fmt.Sprintf("Only %d of %s left (you asked for %d); lower the quantity to check out.", p.Available, p.Name, p.Wanted)
}
