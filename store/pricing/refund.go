package pricing

// GoodsCharge is what an order charged for its goods: the part of its
// total that returning every line gives back. It is the lines at their
// prices less the discount that came off them (a percent or amount code),
// plus the tax on them when tax was added on top of the prices (included
// tax is in the prices already). The delivery is not part of it: neither
// its price, nor a free-delivery code that took its price off, nor its
// tax.
type GoodsCharge struct {
	Subtotal int64 // the lines at their prices
	Charged  int64 // what the order charged for them
}

// GoodsCharge is what an order priced as b charged for its goods.
func (b Breakdown) GoodsCharge() GoodsCharge {
	return ChargeForGoods(b.Subtotal, b.GoodsDiscount, b.Tax, b.ShippingTax, b.TaxMode)
}

// ChargeForGoods is the GoodsCharge of an order as it stores its
// breakdown: subtotal, the discount off the lines, the tax, the part of
// it on the delivery, and the tax mode (” for an order before tax was
// recorded, which added none).
func ChargeForGoods(subtotal, goodsDiscount, tax, shippingTax int64, taxMode string) GoodsCharge {
	charged := subtotal - goodsDiscount
	if taxMode == TaxAdded {
		charged += tax - shippingTax
	}
	return GoodsCharge{Subtotal: subtotal, Charged: max(charged, 0)}
}

// Refund is the one rule for what returned goods give back. returned is
// the price paid times the quantity of the lines returned now;
// goodsBefore is the same for the lines of the order's returns refunded
// before, and refundedBefore what those refunds gave back. The refund is
// the share of Charged of all the goods returned so far, less what was
// given back for them: share(goodsBefore+returned) - refundedBefore, the
// share rounded down, never below zero. So a return of the whole order
// gives back Charged to the cent, and the returns of its parts, in any
// number and order, add up to exactly the same: never a cent more than
// the order charged for its goods, none lost to rounding. An order
// without a subtotal (from before subtotals were recorded) gives back the
// goods' price.
func (g GoodsCharge) Refund(goodsBefore, refundedBefore, returned int64) int64 {
	if returned <= 0 {
		return 0
	}
	if g.Subtotal <= 0 {
		return returned
	}
	upto := min(max(goodsBefore, 0)+returned, g.Subtotal)
	return max(g.share(upto)-max(refundedBefore, 0), 0)
}

// share is goods' part of Charged, rounded down (goods <= Subtotal).
func (g GoodsCharge) share(goods int64) int64 {
	q, _ := mulDiv(goods, g.Charged, g.Subtotal)
	return q
}
