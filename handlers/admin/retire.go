package admin

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/store/platform"
	"storefront/store/pricing"
)

// Discount codes and shipping zones are retired, never deleted: orders
// that used them keep showing them, and the admin may bring them back.

// RetireDiscount is POST /admin/discounts/:code/retire: checkouts refuse
// the code from now on and the list hides it (?retired=1 shows it).
func (h *Handler) RetireDiscount(c echo.Context) error { return h.setCodeRetired(c, true) }

// RestoreDiscount is POST /admin/discounts/:code/restore: the code works
// again, with the rules and uses it had.
func (h *Handler) RestoreDiscount(c echo.Context) error { return h.setCodeRetired(c, false) }

func (h *Handler) setCodeRetired(c echo.Context, retired bool) error {
	code, changed, err := h.pricing.SetCodeRetired(c.Request().Context(), c.Param("code"), retired)
	if errors.Is(err, platform.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "There is no such discount code.")
	}
	if err != nil {
		return err
	}
	if !changed {
		return h.web.Done(c, "Nothing changed: the code "+code.Code+" was already "+retiredWord(retired)+".", "/admin/discounts?retired=1")
	}
	h.web.Audit(c, retiredWord(retired)+" discount code", code.Code)
	return h.web.Done(c, "The discount code "+code.Code+" is "+retiredWord(retired)+".", "/admin/discounts?retired=1")
}

// RetireZone is POST /admin/shipping/:id/retire: the zone prices no
// delivery from now on (its countries fall to the zone without
// countries) and the page hides it (?retired=1 shows it).
func (h *Handler) RetireZone(c echo.Context) error { return h.setZoneRetired(c, true) }

// RestoreZone is POST /admin/shipping/:id/restore: the zone prices its
// countries again, unless a zone in use took one of them since (422).
func (h *Handler) RestoreZone(c echo.Context) error { return h.setZoneRetired(c, false) }

func (h *Handler) setZoneRetired(c echo.Context, retired bool) error {
	id, ok := positiveID(c.Param("id"))
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "There is no such shipping zone.")
	}
	z, err := h.pricing.SetZoneRetired(c.Request().Context(), id, retired)
	var conflict *pricing.ZoneConflict
	switch {
	case errors.Is(err, platform.ErrNotFound):
		return echo.NewHTTPError(http.StatusNotFound, "There is no such shipping zone.")
	case errors.As(err, &conflict) && conflict.Country == "":
		return h.renderShipping(c, http.StatusUnprocessableEntity, nil, "The zone was not brought back: only one zone may have no countries, and "+conflict.Other+" has none.")
	case errors.As(err, &conflict):
		return h.renderShipping(c, http.StatusUnprocessableEntity, nil, fmt.Sprintf("The zone was not brought back: %s is in the zone %s now.", conflict.Country, conflict.Other))
	case err != nil:
		return err
	}
	h.web.Audit(c, retiredWord(retired)+" shipping zone", z.Name)
	return h.web.Done(c, "The shipping zone "+z.Name+" is "+retiredWord(retired)+".", "/admin/shipping?retired=1")
}

func retiredWord(retired bool) string {
	if retired {
		return "retired"
	}
	return "back in use"
}
