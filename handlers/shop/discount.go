package shop

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/store/pricing"
	"storefront/views"
)

// Pricing prices carts and orders: discount codes, zones, tax.
type Pricing interface {
	CheckCode(ctx context.Context, typed string, subtotal int64, customer pricing.Customer) (pricing.Code, error)
	Quote(ctx context.Context, q pricing.Querier, r pricing.Request) (pricing.Quote, *pricing.CodeError, error)
}

// ApplyDiscount applies a discount code to the cart (POST /cart/discount:
// code). A code that cannot be used (malformed, unknown, not started,
// expired, used up, used by this shopper as often as it allows, or the
// subtotal below its minimum) is a 422 with the reason and the cart page;
// nothing changes.
func (h *Handler) ApplyDiscount(c echo.Context) error {
	form, err := web.PostForm(c)
	if err != nil {
		return err
	}
	if len(form["code"]) > 1 {
		return web.BadRequest("Send one discount code.")
	}
	typed := ""
	if v := form["code"]; len(v) == 1 {
		typed = v[0]
	}
	basket, rows, err := h.loadCart(c)
	if err != nil {
		return err
	}
	sub := h.cartView(basket, rows, nil).SubtotalCents
	if len(basket.Lines) == 0 {
		return h.renderCartCode(c, typed, "Add something to your cart before you apply a discount code.")
	}
	s := web.SessionOf(c)
	var customer pricing.Customer // a guest's address is known at checkout, which checks it
	if s.SignedIn() {
		acct, err := h.sessions.Email(c.Request().Context(), s.UserID)
		if err != nil {
			return err
		}
		customer = pricing.Member(s.UserID, acct.Email)
	}
	code, err := h.pricing.CheckCode(c.Request().Context(), typed, sub, customer)
	if msg, ok := codeText(h.web.Shop().Currency, err); ok {
		return h.renderCartCode(c, typed, msg)
	}
	if err != nil {
		return err
	}
	if err := h.carts.SetCode(c.Request().Context(), cartOwner(s), strings.TrimSpace(typed)); err != nil {
		return err
	}
	h.web.SetFlash(c, fmt.Sprintf("Code %s applied: %s.", code.Code, codeLabel(h.web.Shop().Currency, code)))
	return web.Redirect(c, "/cart")
}

// RemoveDiscount takes the applied code off the cart (POST
// /cart/discount/remove).
func (h *Handler) RemoveDiscount(c echo.Context) error {
	if s := web.SessionOf(c); s.Token != "" {
		if err := h.carts.SetCode(c.Request().Context(), cartOwner(s), ""); err != nil {
			return err
		}
	}
	h.web.SetFlash(c, "Discount code removed.")
	return web.Redirect(c, "/cart")
}

// renderCartCode is the cart page (422) with a refused code as typed.
func (h *Handler) renderCartCode(c echo.Context, typed, msg string) error {
	if len(typed) > 200 {
		typed = typed[:200]
	}
	return h.renderCartWith(c, http.StatusUnprocessableEntity, "", func(d *views.CartData) {
		d.CodeTyped, d.CodeError = strings.ToValidUTF8(typed, ""), msg
	})
}

// codeText says, for the shopper, why a code was refused; ok is false
// when err is not a refusal.
func codeText(cur views.Currency, err error) (string, bool) {
	ce, ok := err.(*pricing.CodeError)
	if !ok || ce == nil {
		return "", false
	}
	name, r := ce.Rules.Code, ce.Rules
	if name == "" {
		name = ce.Code
	}
	switch ce.Reason {
	case pricing.ReasonMalformed:
		return fmt.Sprintf("Enter a discount code of 1 to %d letters, digits, hyphens or underscores, without spaces.", pricing.MaxCodeLen), true
	case pricing.ReasonUnknown:
		return fmt.Sprintf("There is no discount code %s. Check how it is spelt.", name), true
	case pricing.ReasonNotStarted:
		return fmt.Sprintf("The code %s can be used from %s.", name, r.Starts), true
	case pricing.ReasonExpired:
		return fmt.Sprintf("The code %s expired on %s.", name, r.Ends), true
	case pricing.ReasonUsedUp:
		return fmt.Sprintf("The code %s has been used up.", name), true
	case pricing.ReasonPerCustomer:
		return fmt.Sprintf("You have used the code %s as many times as it allows.", name), true
	case pricing.ReasonRetired:
		return fmt.Sprintf("The code %s is no longer offered.", name), true
	case pricing.ReasonMinimum:
		return fmt.Sprintf("The code %s needs items worth at least %s.", name, cur.Format(r.MinSubtotal)), true
	}
	return fmt.Sprintf("The code %s cannot be used.", name), true
}

// codeLabel says what a code gives.
func codeLabel(cur views.Currency, c pricing.Code) string {
	switch c.Kind {
	case pricing.KindPercent:
		return pricing.FormatPercent(c.Value) + "% off"
	case pricing.KindAmount:
		return cur.Format(c.Value) + " off"
	}
	return "free delivery"
}

// discountLine is the view of a quote's code, or of a refused one.
func discountLine(cur views.Currency, q pricing.Quote, typed string, refused *pricing.CodeError) *views.DiscountLine {
	switch {
	case refused != nil:
		msg, _ := codeText(cur, refused)
		return &views.DiscountLine{Code: strings.ToUpper(strings.TrimSpace(typed)), Label: "not applied", Problem: msg + " Remove it to check out."}
	case q.Code.ID != 0:
		return &views.DiscountLine{Code: q.Code.Code, Label: codeLabel(cur, q.Code), AmountCents: q.Discount}
	case q.Idle != nil:
		// Kept in the cart, not used: it takes no use of the code.
		return &views.DiscountLine{Code: q.Idle.Code, Label: "not needed: delivery is free"}
	}
	return nil
}

// taxLine is the view of a quote's or an order's tax: nil without a
// country (nothing to price yet) or for orders before tax was recorded.
func taxLine(mode string, rateBP, cents int64, country string) *views.TaxLine {
	if mode == "" || country == "" {
		return nil
	}
	return &views.TaxLine{Included: mode == pricing.TaxIncluded, Rate: pricing.FormatPercent(rateBP), AmountCents: cents,
		Country: orders.CountryName(country)}
}
