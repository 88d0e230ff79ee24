package orders

import "storefront/store/pricing"

// Delivery methods a shopper picks at checkout.
const (
	ShippingStandard = pricing.MethodStandard
	ShippingExpress  = pricing.MethodExpress
)

// ShippingName names a delivery method for shoppers ("" for none
// recorded: orders placed before methods existed).
func ShippingName(method string) string {
	switch method {
	case ShippingStandard:
		return "Standard delivery"
	case ShippingExpress:
		return "Express delivery"
	}
	return ""
}

// ShippingRates price the delivery methods of a zone, in cents.
type ShippingRates = pricing.Rates

// DefaultShipping is SHIPPING_STANDARD 4.99, SHIPPING_EXPRESS 14.99 and
// FREE_SHIPPING_OVER 50.00, the first zones' rates unless set.
var DefaultShipping = pricing.DefaultRates

// ValidShipping reports whether method is a delivery method we offer.
func ValidShipping(method string) bool {
	return method == ShippingStandard || method == ShippingExpress
}

// Shipping returns the SHIPPING_* knobs' rates, which the zones that
// follow them use (the checkout prices delivery by the zone of the
// address's country, through pricing).
func (s *Service) Shipping() ShippingRates { return s.opt.Shipping }

// ParseMoney reads an amount such as "12.34" as cents.
func ParseMoney(s string) (int64, bool) { return pricing.ParseMoney(s) }
