package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/merchant"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/pricing"
	"storefront/views"
)

// Pricing is the discount codes, shipping zones and tax rates the admin
// edits.
type Pricing interface {
	Codes(ctx context.Context, withRetired bool) ([]pricing.Code, error)
	SaveCode(ctx context.Context, c pricing.Code) (pricing.Code, error)
	SetCodeRetired(ctx context.Context, code string, retired bool) (pricing.Code, bool, error)
	Zones(ctx context.Context, withRetired bool) ([]pricing.Zone, error)
	SaveZone(ctx context.Context, z pricing.Zone) (pricing.Zone, error)
	SetZoneRetired(ctx context.Context, id int64, retired bool) (pricing.Zone, error)
	TaxRates(ctx context.Context) ([]pricing.TaxRate, error)
	SetTaxRate(ctx context.Context, r pricing.TaxRate) error
	RemoveTaxRate(ctx context.Context, country string) error
	PricesIncludeTax() bool
}

// maxCount is the largest use cap a form takes.
const maxCount = 1_000_000_000

// formFields reads a form's fields, each sent at most once (twice is a
// request our forms cannot make: 400).
func formFields(c echo.Context, names ...string) (map[string]string, error) {
	form, err := web.PostForm(c)
	if err != nil {
		return nil, err
	}
	v := make(map[string]string, len(names))
	for _, n := range names {
		switch vals := form[n]; len(vals) {
		case 0:
		case 1:
			v[n] = strings.TrimSpace(vals[0])
		default:
			return nil, web.BadRequest("Send each field of the form once.")
		}
	}
	return v, nil
}

// Discounts is GET /admin/discounts: every code with its uses, and the
// form that creates one (or changes the rules of an existing code).
func (h *Handler) Discounts(c echo.Context) error {
	return h.renderDiscounts(c, http.StatusOK, views.DiscountForm{Kind: pricing.KindPercent}, "")
}

// SaveDiscount is POST /admin/discounts (code, kind, value, min_subtotal,
// starts, ends, max_uses, max_per_customer). A bad field is a 422 with its
// message and the form as typed; nothing changes.
func (h *Handler) SaveDiscount(c echo.Context) error {
	v, err := formFields(c, "code", "kind", "value", "min_subtotal", "starts", "ends", "max_uses", "max_per_customer")
	if err != nil {
		return err
	}
	f := views.DiscountForm{Code: v["code"], Kind: v["kind"], Value: v["value"], MinSubtotal: v["min_subtotal"], Starts: v["starts"],
		Ends: v["ends"], MaxUses: v["max_uses"], MaxPerCustomer: v["max_per_customer"]}
	code, errs := parseDiscount(h.web.Currency(), f)
	if len(errs) > 0 {
		f.Errors = errs
		return h.renderDiscounts(c, http.StatusUnprocessableEntity, f, "The code was not saved: correct the marked fields.")
	}
	saved, err := h.pricing.SaveCode(c.Request().Context(), code)
	if errors.Is(err, platform.ErrInvalid) {
		return h.renderDiscounts(c, http.StatusUnprocessableEntity, f, "The code was not saved: check its fields.")
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "save discount code", saved.Code)
	return h.web.Done(c, "Saved the discount code "+saved.Code+".", "/admin/discounts")
}

// parseDiscount reads the form as a code, or a message per bad field.
func parseDiscount(cur merchant.Currency, f views.DiscountForm) (pricing.Code, map[string]string) {
	errs := map[string]string{}
	c := pricing.Code{Code: f.Code, Kind: f.Kind, Starts: f.Starts, Ends: f.Ends}
	if _, err := pricing.CodeKey(f.Code); err != nil {
		errs["code"] = fmt.Sprintf("A code is 1 to %d letters, digits, hyphens or underscores, without spaces.", pricing.MaxCodeLen)
	}
	var ok bool
	switch f.Kind {
	case pricing.KindPercent:
		if c.Value, ok = pricing.ParsePercent(f.Value); !ok || c.Value == 0 {
			errs["value"] = "A percentage is more than 0 and at most 100, such as 10 or 12.5."
		}
	case pricing.KindAmount:
		if c.Value, ok = cur.ParseAmount(f.Value); !ok || c.Value == 0 || c.Value > pricing.MaxRate {
			errs["value"] = fmt.Sprintf("An amount in %s is more than 0 and at most %s, such as %s.", cur.Code, cur.AmountInput(pricing.MaxRate), cur.AmountInput(500))
		}
	case pricing.KindFreeShipping:
		if f.Value != "" && f.Value != "0" {
			errs["value"] = "A free delivery code has no value: leave it empty."
		}
	default:
		errs["kind"] = "Choose percent, amount or free delivery."
	}
	if f.MinSubtotal != "" {
		if c.MinSubtotal, ok = cur.ParseAmount(f.MinSubtotal); !ok || c.MinSubtotal > pricing.MaxRate {
			errs["min_subtotal"] = fmt.Sprintf("The minimum is an amount in %s such as %s (at most %s), or empty for none.", cur.Code, cur.AmountInput(5000), cur.AmountInput(pricing.MaxRate))
		}
	}
	for name, day := range map[string]string{"starts": f.Starts, "ends": f.Ends} {
		if _, err := time.Parse(time.DateOnly, day); day != "" && err != nil {
			errs[name] = "Give a day as YYYY-MM-DD, or leave it empty."
		}
	}
	if errs["starts"] == "" && errs["ends"] == "" && f.Starts != "" && f.Ends != "" && f.Ends < f.Starts {
		errs["ends"] = "The last day is before the first."
	}
	count := func(name, raw string, out *int64) {
		if raw == "" {
			return
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 0 || n > maxCount {
			errs[name] = "A whole number from 0 (no limit) to 1000000000."
		}
		*out = n
	}
	count("max_uses", f.MaxUses, &c.MaxUses)
	count("max_per_customer", f.MaxPerCustomer, &c.MaxPerCustomer)
	return c, errs
}

func (h *Handler) renderDiscounts(c echo.Context, status int, f views.DiscountForm, msg string) error {
	withRetired := c.QueryParam("retired") == "1"
	codes, err := h.pricing.Codes(c.Request().Context(), withRetired)
	if err != nil {
		return err
	}
	d := views.AdminDiscountsData{Form: f, Error: msg, WithRetired: withRetired}
	for _, code := range codes {
		row := views.DiscountRow{Code: code.Code, Kind: code.Kind, Value: discountValue(h.web.Shop().Currency, code), MinSubtotal: code.MinSubtotal,
			Starts: code.Starts, Ends: code.Ends, MaxUses: code.MaxUses, MaxPerCustomer: code.MaxPerCustomer, Used: code.Used, Retired: code.Retired}
		d.Codes = append(d.Codes, row)
	}
	return web.Render(c, status, views.AdminDiscountsPage(h.web.Chrome(c, "Discount codes"), d))
}

// discountValue is what a code gives, as the list shows it.
func discountValue(cur views.Currency, c pricing.Code) string {
	switch c.Kind {
	case pricing.KindPercent:
		return pricing.FormatPercent(c.Value) + "% off"
	case pricing.KindAmount:
		return cur.Format(c.Value) + " off"
	}
	return "Free delivery"
}

// Shipping is GET /admin/shipping: the zones with their countries and
// rates, each an editable form, and a form for a new zone.
func (h *Handler) Shipping(c echo.Context) error {
	return h.renderShipping(c, http.StatusOK, nil, "")
}

// SaveShipping is POST /admin/shipping (id, empty for a new zone; name,
// countries, standard, express, free_over). A bad field, or a country
// another zone has, is a 422 with the message; nothing changes.
func (h *Handler) SaveShipping(c echo.Context) error {
	v, err := formFields(c, "id", "name", "countries", "standard", "express", "free_over")
	if err != nil {
		return err
	}
	f := views.ZoneForm{ID: v["id"], Name: v["name"], Countries: v["countries"], Standard: v["standard"], Express: v["express"], FreeOver: v["free_over"]}
	z, msg := parseZone(h.web.Currency(), f)
	if msg == "" {
		z, err = h.pricing.SaveZone(c.Request().Context(), z)
		var conflict *pricing.ZoneConflict
		switch {
		case errors.As(err, &conflict) && conflict.Country == "":
			msg = "Only one zone may have no countries (it covers every country no other zone names): " + conflict.Other + " already does."
		case errors.As(err, &conflict):
			msg = fmt.Sprintf("%s is already in the zone %s: take it out there first.", conflict.Country, conflict.Other)
		case errors.Is(err, platform.ErrInvalid):
			msg = "Give the zone a name of at most 60 characters and rates from 0 to 100000.00."
		case errors.Is(err, platform.ErrNotFound):
			msg = "That zone no longer exists."
		case err != nil:
			return err
		}
	}
	if msg != "" {
		return h.renderShipping(c, http.StatusUnprocessableEntity, &f, "The zone was not saved. "+msg)
	}
	h.web.Audit(c, "save shipping zone", z.Name)
	return h.web.Done(c, "Saved the shipping zone "+z.Name+".", "/admin/shipping")
}

// parseZone reads the zone form, or says what is wrong with it.
func parseZone(cur merchant.Currency, f views.ZoneForm) (pricing.Zone, string) {
	z := pricing.Zone{Name: f.Name}
	if f.ID != "" {
		id, ok := positiveID(f.ID)
		if !ok {
			return z, "That zone does not exist."
		}
		z.ID = id
	}
	if z.Name == "" || len(z.Name) > 60 {
		return z, "Give the zone a name of 1 to 60 characters."
	}
	var ok bool
	if z.Countries, ok = pricing.ParseCountries(f.Countries); !ok {
		return z, "List countries by their two-letter codes, such as GB, DE, FR."
	}
	for _, c := range z.Countries {
		if orders.CountryName(c) == "" {
			return z, c + " is not a country's code (ISO 3166-1 alpha-2, such as GB, NG, PH)."
		}
	}
	for _, r := range []struct {
		raw, label string
		out        *int64
	}{{f.Standard, "standard rate", &z.Rates.Standard}, {f.Express, "express rate", &z.Rates.Express}, {f.FreeOver, "free delivery threshold", &z.Rates.FreeOver}} {
		n, ok := cur.ParseAmount(r.raw)
		if !ok || n > pricing.MaxRate {
			return z, fmt.Sprintf("The %s is an amount in %s from 0 to %s, such as %s.", r.label, cur.Code, cur.AmountInput(pricing.MaxRate), cur.AmountInput(499))
		}
		*r.out = n
	}
	return z, ""
}

func (h *Handler) renderShipping(c echo.Context, status int, typed *views.ZoneForm, msg string) error {
	withRetired := c.QueryParam("retired") == "1"
	zones, err := h.pricing.Zones(c.Request().Context(), withRetired)
	if err != nil {
		return err
	}
	d := views.AdminShippingData{Error: msg, New: views.ZoneForm{}, WithRetired: withRetired}
	cents := h.web.Currency().AmountInput
	for _, z := range zones {
		f := views.ZoneForm{ID: web.Itoa(z.ID), Name: z.Name, Countries: strings.Join(z.Countries, ", "), Standard: cents(z.Rates.Standard),
			Express: cents(z.Rates.Express), FreeOver: cents(z.Rates.FreeOver), FollowsKnobs: z.FollowsKnobs, Retired: z.Retired}
		if typed != nil && typed.ID == f.ID {
			f = *typed
		}
		d.Zones = append(d.Zones, f)
	}
	if typed != nil && typed.ID == "" {
		d.New = *typed
	}
	return web.Render(c, status, views.AdminShippingPage(h.web.Chrome(c, "Shipping zones"), d))
}

// Tax is GET /admin/tax: the tax rate of each country, and whether prices
// include it.
func (h *Handler) Tax(c echo.Context) error {
	return h.renderTax(c, http.StatusOK, views.TaxForm{}, "")
}

// SaveTax is POST /admin/tax (country, rate as a percentage; remove=1
// removes the country's rate). A bad country or rate is a 422 with the
// message; nothing changes.
func (h *Handler) SaveTax(c echo.Context) error {
	v, err := formFields(c, "country", "rate", "remove")
	if err != nil {
		return err
	}
	f := views.TaxForm{Country: strings.ToUpper(v["country"]), Rate: v["rate"]}
	if cs, ok := pricing.ParseCountries(f.Country); !ok || len(cs) != 1 {
		return h.renderTax(c, http.StatusUnprocessableEntity, f, "Give one country by its two-letter code, such as GB.")
	}
	ctx := c.Request().Context()
	if v["remove"] == "1" {
		if err := h.pricing.RemoveTaxRate(ctx, f.Country); err != nil {
			return err
		}
		h.web.Audit(c, "remove tax rate", f.Country)
		return h.web.Done(c, "Removed the tax rate of "+f.Country+": it pays no tax.", "/admin/tax")
	}
	bp, ok := pricing.ParsePercent(f.Rate)
	if !ok {
		return h.renderTax(c, http.StatusUnprocessableEntity, f, "A tax rate is a percentage from 0 to 100, such as 20 or 7.7.")
	}
	if err := h.pricing.SetTaxRate(ctx, pricing.TaxRate{Country: f.Country, RateBP: bp}); err != nil {
		return err
	}
	h.web.Audit(c, "set tax rate", f.Country, "rate_bp", bp)
	return h.web.Done(c, fmt.Sprintf("The tax rate of %s is now %s%%.", f.Country, pricing.FormatPercent(bp)), "/admin/tax")
}

func (h *Handler) renderTax(c echo.Context, status int, f views.TaxForm, msg string) error {
	rates, err := h.pricing.TaxRates(c.Request().Context())
	if err != nil {
		return err
	}
	d := views.AdminTaxData{Form: f, Error: msg, Included: h.pricing.PricesIncludeTax()}
	for _, r := range rates {
		d.Rates = append(d.Rates, views.TaxRow{Country: r.Country, Rate: pricing.FormatPercent(r.RateBP)})
	}
	return web.Render(c, status, views.AdminTaxPage(h.web.Chrome(c, "Tax rates"), d))
}
