package web

import (
	"storefront/store/orders"
	"storefront/store/pricing"
	"storefront/views"
)

// OrderDiscount is an order's discount line, nil without a code.
func OrderDiscount(o orders.Order) *views.DiscountLine {
	if o.DiscountCode == "" {
		return nil
	}
	return &views.DiscountLine{Code: o.DiscountCode, AmountCents: o.DiscountCents}
}

// OrderTax is an order's tax line, nil for orders placed before tax was
// recorded.
func OrderTax(o orders.Order) *views.TaxLine {
	if o.TaxMode == "" {
		return nil
	}
	return &views.TaxLine{Included: o.TaxMode == pricing.TaxIncluded, AmountCents: o.TaxCents, Country: orders.CountryName(o.Address.Country)}
}
