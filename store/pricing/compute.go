package pricing

// Delivery methods a shopper picks at checkout.
const (
	MethodStandard = "standard"
	MethodExpress  = "express"
)

// Rates price a zone's delivery methods, in cents.
type Rates struct {
	Standard int64
	Express  int64
	// FreeOver makes standard delivery free for a subtotal (after the
	// discount) at or above it; 0 turns free delivery off.
	FreeOver int64
}

// DefaultRates are SHIPPING_STANDARD 4.99, SHIPPING_EXPRESS 14.99 and
// FREE_SHIPPING_OVER 50.00.
var DefaultRates = Rates{Standard: 499, Express: 1499, FreeOver: 5000}

// Cost is the delivery price of method for goods worth subtotal cents.
// Express never ships free.
func (r Rates) Cost(method string, subtotal int64) int64 {
	if method == MethodExpress {
		return r.Express
	}
	if r.FreeOver > 0 && subtotal >= r.FreeOver {
		return 0
	}
	return r.Standard
}

// Tax modes an order records.
const (
	TaxIncluded = "included" // prices include the tax, which the order shows
	TaxAdded    = "added"    // tax was added to the prices at checkout
)

// Breakdown is what an order costs, in cents: Total = Subtotal -
// Discount + Shipping, plus Tax when it is added (TaxMode TaxAdded).
type Breakdown struct {
	Subtotal int64 // the lines at their prices
	// Discount is what the code takes off: from the lines, or the
	// delivery price for a free_shipping code.
	Discount int64
	// GoodsDiscount is the part of Discount that came off the lines (all
	// of it for a percent or amount code, none for free_shipping).
	GoodsDiscount int64
	Shipping      int64 // the zone's price for the method, before the discount
	Tax           int64
	// ShippingTax is the part of Tax on the delivery (the last LineTax).
	ShippingTax int64
	Total       int64
	TaxMode     string
	RateBP      int64 // the tax rate, hundredths of a percent
	// LineTax is the tax of each line, then of the delivery (the last).
	LineTax []int64
}

// Compute prices an order: lines are each line's price times its
// quantity; code may be nil. See the package comment for the rules.
func Compute(lines []int64, code *Code, rates Rates, method string, rateBP int64, includeTax bool) Breakdown {
	b := Breakdown{RateBP: rateBP, TaxMode: TaxAdded}
	if includeTax {
		b.TaxMode = TaxIncluded
	}
	for _, a := range lines {
		b.Subtotal += a
	}
	goodsOff := int64(0)
	if code != nil {
		switch code.Kind {
		case KindPercent:
			goodsOff = mulDivRound(b.Subtotal, code.Value, 10000)
		case KindAmount:
			goodsOff = min(code.Value, b.Subtotal)
		}
	}
	net := spread(lines, goodsOff)
	b.Shipping = rates.Cost(method, b.Subtotal-goodsOff)
	shipNet := b.Shipping
	b.Discount, b.GoodsDiscount = goodsOff, goodsOff
	if code != nil && code.Kind == KindFreeShipping {
		b.Discount, shipNet = b.Shipping, 0
	}
	b.LineTax = make([]int64, 0, len(lines)+1)
	for _, n := range append(net, shipNet) {
		t := lineTax(n, rateBP, includeTax)
		b.LineTax = append(b.LineTax, t)
		b.Tax += t
	}
	b.ShippingTax = b.LineTax[len(b.LineTax)-1]
	b.Total = b.Subtotal - b.Discount + b.Shipping
	if !includeTax {
		b.Total += b.Tax
	}
	return b
}

// lineTax is the tax in (included) or on (added) a line of amount cents.
func lineTax(amount, rateBP int64, included bool) int64 {
	if included {
		return mulDivRound(amount, rateBP, 10000+rateBP)
	}
	return mulDivRound(amount, rateBP, 10000)
}

// spread takes off cents from the lines in proportion to their amounts
// and returns what each line is worth after it. The floors of the shares
// leave a few cents, which go one each to the lines with the largest
// remainders (the first on ties), so the parts add up to off exactly.
func spread(lines []int64, off int64) []int64 {
	net := append([]int64(nil), lines...)
	var total int64
	for _, a := range lines {
		total += a
	}
	if off <= 0 || total <= 0 {
		return net
	}
	rem := make([]int64, len(lines))
	left := off
	for i, a := range lines {
		share, r := mulDiv(a, off, total)
		rem[i] = r
		net[i] -= share
		left -= share
	}
	for ; left > 0; left-- {
		best := -1
		for i := range lines {
			if net[i] > 0 && (best < 0 || rem[i] > rem[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		net[best]--
		rem[best] = -1
	}
	return net
}
