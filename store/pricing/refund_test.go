package pricing

import (
	"fmt"
	"testing"
)

// TestGoodsRefundRule: a return of every line gives back what the order
// charged for its goods, whatever the tax mode, the code and the
// delivery: the lines less the discount off them, plus their own tax when
// it was added; never the delivery, its discount or its tax. Expected
// amounts are worked out by hand (what the shopper paid less what the
// delivery cost them), not by the rule.
func TestGoodsRefundRule(t *testing.T) {
	rates := Rates{Standard: 499, Express: 1499, FreeOver: 5000}
	pct := &Code{Kind: KindPercent, Value: 1000}
	amt := &Code{Kind: KindAmount, Value: 500}
	free := &Code{Kind: KindFreeShipping}
	for _, tc := range []struct {
		name     string
		lines    []int64
		code     *Code
		bp       int64
		included bool
		want     int64
	}{
		// The review's findings: 15.01 and 25.00 refunded.
		{"free-delivery code, below the threshold", []int64{2000}, free, 0, true, 2000},
		{"GB tax added, delivery charged", []int64{2000}, nil, 2000, false, 2400},
		{"GB tax added, free-delivery code", []int64{2000}, free, 2000, false, 2400},
		{"GB tax included, delivery charged", []int64{2000}, nil, 2000, true, 2000},
		{"no code, below the threshold", []int64{2000}, nil, 0, true, 2000},
		{"10% off", []int64{1200, 800}, pct, 0, true, 1800},
		{"10% off, tax added", []int64{1200, 800}, pct, 2000, false, 2160},
		{"5.00 off", []int64{1200, 800}, amt, 2000, true, 1500},
		{"5.00 off, tax added", []int64{1200, 800}, amt, 2000, false, 1800},
		{"above the threshold, tax added", []int64{3000, 2500}, nil, 2000, false, 6600},
		{"free-delivery code above the threshold", []int64{6000}, free, 2000, false, 7200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Compute(tc.lines, tc.code, rates, MethodStandard, tc.bp, tc.included)
			g := b.GoodsCharge()
			// What the shopper paid less what the delivery cost them.
			deliveryPaid := b.Shipping - (b.Discount - b.GoodsDiscount)
			if !tc.included {
				deliveryPaid += b.ShippingTax
			}
			if paid := b.Total - deliveryPaid; paid != tc.want {
				t.Fatalf("the case's own arithmetic: paid %d for the goods, want %d (%+v)", paid, tc.want, b)
			}
			if got := g.Refund(0, 0, b.Subtotal); got != tc.want {
				t.Errorf("a full return gives back %d, want %d (%+v)", got, tc.want, b)
			}
		})
	}
}

// TestGoodsRefundPartsAddUp: the returns of an order's parts, one unit
// at a time or in uneven lots, in any order, add up to the full refund
// to the cent, and no part gives back more than its share plus a cent.
func TestGoodsRefundPartsAddUp(t *testing.T) {
	for _, g := range []GoodsCharge{{3000, 2999}, {1000, 1200}, {999, 333}, {7, 5}, {12345, 11111}, {5000, 6000}} {
		for _, parts := range [][]int64{{1, 1, 1}, {g.Subtotal / 3, g.Subtotal / 3, g.Subtotal - 2*(g.Subtotal/3)}, {g.Subtotal}, {g.Subtotal - 1, 1}} {
			t.Run(fmt.Sprintf("%v of %+v", parts, g), func(t *testing.T) {
				var goods, back int64
				for _, p := range parts {
					if goods+p > g.Subtotal {
						t.Skip("parts larger than the order")
					}
					r := g.Refund(goods, back, p)
					if ideal := p * g.Charged / g.Subtotal; r < 0 || r > ideal+1 {
						t.Errorf("a part of %d gives back %d, its share is %d", p, r, ideal)
					}
					goods, back = goods+p, back+r
				}
				if goods == g.Subtotal && back != g.Charged {
					t.Errorf("the parts give back %d, the whole %d", back, g.Charged)
				}
			})
		}
	}
	// Nothing returned gives nothing; an order from before subtotals gives
	// the goods' price.
	if r := (GoodsCharge{1000, 900}).Refund(0, 0, 0); r != 0 {
		t.Errorf("nothing returned: %d", r)
	}
	if r := (GoodsCharge{}).Refund(0, 0, 700); r != 700 {
		t.Errorf("an order without a subtotal: %d", r)
	}
}

// TestFreeDeliveryAtTheThreshold: standard delivery is free for goods
// worth exactly the threshold, and charged one cent below it.
func TestFreeDeliveryAtTheThreshold(t *testing.T) {
	rates := Rates{Standard: 499, Express: 1499, FreeOver: 5000}
	for _, tc := range []struct {
		lines []int64
		want  int64
	}{{[]int64{5000}, 0}, {[]int64{4999}, 499}, {[]int64{2500, 2500}, 0}, {[]int64{2500, 2499}, 499}} {
		if b := Compute(tc.lines, nil, rates, MethodStandard, 0, true); b.Shipping != tc.want {
			t.Errorf("goods %v: delivery %d, want %d", tc.lines, b.Shipping, tc.want)
		}
	}
	// The threshold compares the goods after a discount: 10% off 55.55 is
	// 5.56 (5.555 rounded half away from zero), leaving 49.99.
	if b := Compute([]int64{5555}, &Code{Kind: KindPercent, Value: 1000}, rates, MethodStandard, 0, true); b.Shipping != 499 {
		t.Errorf("49.99 after the discount: delivery %d, want 499", b.Shipping)
	}
	if b := Compute([]int64{5000}, nil, rates, MethodExpress, 0, true); b.Shipping != 1499 {
		t.Errorf("express at the threshold: %d, want 1499 (never free)", b.Shipping)
	}
}
