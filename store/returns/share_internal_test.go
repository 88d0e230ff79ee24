package returns

import "testing"

// TestRefundShare: the returned goods' share of what the order charged for
// its goods: a discount is shared out, added tax too, included tax is in
// the prices already; rounded down so the shares never exceed the whole.
func TestRefundShare(t *testing.T) {
	for _, c := range []struct {
		goods, subtotal, discount, tax int64
		added                          bool
		want                           int64
	}{
		{1000, 3000, 0, 0, false, 1000},   // no discount, no tax
		{1000, 3000, 0, 500, false, 1000}, // tax included in the prices
		{1000, 4000, 1000, 0, false, 750}, // a quarter off
		{1000, 4000, 0, 800, true, 1200},  // 20% added on top
		{1000, 4000, 1000, 600, true, 900},
		{1, 3, 1, 0, false, 0}, // rounded down
		{500, 0, 0, 0, false, 500},
	} {
		if got := refundShare(c.goods, c.subtotal, c.discount, c.tax, c.added); got != c.want {
			t.Errorf("%+v: %d", c, got)
		}
	}
	// Three returns of a third each never exceed the order's goods charge.
	if s := 3 * refundShare(1000, 3000, 1, 0, false); s > 2999 {
		t.Errorf("shares sum to %d", s)
	}
}
