package orders

import (
	"regexp"
	"strconv"
	"strings"
)

// Delivery methods a shopper picks at checkout.
const (
	ShippingStandard = "standard"
	ShippingExpress  = "express"
)

// ShippingRates price the delivery methods, in cents.
type ShippingRates struct {
	Standard int64
	Express  int64
	// FreeOver makes standard delivery free for a subtotal at or above it
	// (0 turns free delivery off).
	FreeOver int64
}

// DefaultShipping is SHIPPING_STANDARD 4.99, SHIPPING_EXPRESS 14.99 and
// FREE_SHIPPING_OVER 50.00.
var DefaultShipping = ShippingRates{Standard: 499, Express: 1499, FreeOver: 5000}

// ValidShipping reports whether method is a delivery method we offer.
func ValidShipping(method string) bool {
	return method == ShippingStandard || method == ShippingExpress
}

// Cost is the delivery price of method for an order of subtotal cents.
// Express never ships free.
func (r ShippingRates) Cost(method string, subtotal int64) int64 {
	if method == ShippingExpress {
		return r.Express
	}
	if r.FreeOver > 0 && subtotal >= r.FreeOver {
		return 0
	}
	return r.Standard
}

// Shipping returns the delivery prices in force, for the checkout review.
func (s *Service) Shipping() ShippingRates { return s.opt.Shipping }

// moneyRE is an amount as forms and knobs write it: "12", "12.3" or "12.34".
var moneyRE = regexp.MustCompile(`^[0-9]{1,9}(\.[0-9]{1,2})?$`)

// ParseMoney reads an amount such as "12.34" as cents.
func ParseMoney(s string) (int64, bool) {
	if !moneyRE.MatchString(s) {
		return 0, false
	}
	whole, frac, _ := strings.Cut(s, ".")
	d, _ := strconv.ParseInt(whole, 10, 64)
	c, _ := strconv.ParseInt((frac + "00")[:2], 10, 64)
	return d*100 + c, true
}
