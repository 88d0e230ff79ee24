package shop

import (
	"errors"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/store/stripepay"
)

// StripeWebhook is POST /webhooks/stripe: Stripe's events, signed with
// STRIPE_WEBHOOK_SECRET in the Stripe-Signature header. A missing or bad
// signature is a 400 and changes nothing; a handled event (or one handled
// before) is a 200 with the outcome; a failure to record it is a 5xx, so
// Stripe sends it again. Without card payments the route is a 404.
func (h *Handler) StripeWebhook(c echo.Context) error {
	if h.card == nil {
		return echo.NewHTTPError(http.StatusNotFound, "Card payments are not enabled.")
	}
	payload, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The event could not be read.")
	}
	outcome, err := h.card.HandleWebhook(c.Request().Context(), payload, c.Request().Header.Get("Stripe-Signature"))
	if errors.Is(err, stripepay.ErrBadSignature) {
		h.web.Log().Warn("stripe webhook refused", "err", err)
		return echo.NewHTTPError(http.StatusBadRequest, "The Stripe-Signature header does not verify.")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"received": true, "outcome": outcome})
}
