package pricing

import (
	"math"
	"testing"
)

func TestRoundsHalfAwayFromZero(t *testing.T) {
	for _, tc := range []struct{ a, b, den, want int64 }{
		{5, 1, 10, 1}, {4, 1, 10, 0}, {15, 1, 10, 2}, {25, 1, 10, 3}, {14, 1, 10, 1}, {0, 7, 3, 0},
		{999, 2000, 12000, 167}, // 166.5: half goes up
		{1, 1, 2, 1},            // 0.5
		{math.MaxInt64 / 2, 10000, 10000, math.MaxInt64 / 2},
	} {
		if got := mulDivRound(tc.a, tc.b, tc.den); got != tc.want {
			t.Errorf("%d*%d/%d = %d, want %d", tc.a, tc.b, tc.den, got, tc.want)
		}
	}
}

func TestLineTax(t *testing.T) {
	for _, tc := range []struct {
		amount, bp int64
		included   bool
		want       int64
	}{
		{1200, 2000, true, 200},  // 12.00 with 20% in it: 2.00
		{999, 2000, true, 167},   // 166.5 rounds up
		{999, 2000, false, 200},  // 199.8
		{1000, 1900, true, 160},  // 159.66
		{1000, 1900, false, 190}, // exact
		{1000, 0, true, 0},
		{5, 1000, false, 1}, // 0.5 rounds up
		{4, 1000, false, 0}, // 0.4 rounds down
	} {
		if got := lineTax(tc.amount, tc.bp, tc.included); got != tc.want {
			t.Errorf("lineTax(%d, %d, %v) = %d, want %d", tc.amount, tc.bp, tc.included, got, tc.want)
		}
	}
}

func TestSpreadAddsUpExactly(t *testing.T) {
	for _, tc := range []struct {
		lines []int64
		off   int64
	}{
		{[]int64{1000, 2000, 3001}, 601}, {[]int64{1, 1, 1}, 2}, {[]int64{333, 333, 334}, 100}, {[]int64{500}, 500}, {[]int64{7, 0, 9}, 16},
	} {
		net := spread(tc.lines, tc.off)
		var before, after int64
		for i := range net {
			before, after = before+tc.lines[i], after+net[i]
			if net[i] < 0 || net[i] > tc.lines[i] {
				t.Errorf("spread(%v, %d): line %d is %d", tc.lines, tc.off, i, net[i])
			}
		}
		if before-after != tc.off {
			t.Errorf("spread(%v, %d) = %v: takes %d", tc.lines, tc.off, net, before-after)
		}
	}
}

func TestCompute(t *testing.T) {
	rates := Rates{Standard: 499, Express: 1499, FreeOver: 5000}
	pct := &Code{Kind: KindPercent, Value: 1000}
	amt := &Code{Kind: KindAmount, Value: 10_000}
	free := &Code{Kind: KindFreeShipping}
	for _, tc := range []struct {
		name     string
		lines    []int64
		code     *Code
		method   string
		bp       int64
		included bool
		want     Breakdown
	}{
		{"no tax, no code", []int64{1000, 2000}, nil, MethodStandard, 0, true,
			Breakdown{Subtotal: 3000, Shipping: 499, Total: 3499}},
		{"GB, included", []int64{1200, 2400}, nil, MethodStandard, 2000, true,
			Breakdown{Subtotal: 3600, Shipping: 499, Tax: 200 + 400 + 83, Total: 4099}},
		{"GB, added", []int64{1200, 2400}, nil, MethodStandard, 2000, false,
			Breakdown{Subtotal: 3600, Shipping: 499, Tax: 240 + 480 + 100, Total: 3600 + 499 + 820}},
		{"10% off drops below free delivery", []int64{5000}, pct, MethodStandard, 0, true,
			Breakdown{Subtotal: 5000, Discount: 500, Shipping: 499, Total: 4999}},
		{"free delivery over the threshold", []int64{6000}, pct, MethodStandard, 0, true,
			Breakdown{Subtotal: 6000, Discount: 600, Shipping: 0, Total: 5400}},
		{"amount larger than the lines", []int64{3000}, amt, MethodExpress, 0, true,
			Breakdown{Subtotal: 3000, Discount: 3000, Shipping: 1499, Total: 1499}},
		{"free shipping code, express, taxed", []int64{1200}, free, MethodExpress, 2000, true,
			Breakdown{Subtotal: 1200, Discount: 1499, Shipping: 1499, Tax: 200, Total: 1200}},
		{"percent off, tax on the discounted lines", []int64{1000, 1000}, pct, MethodStandard, 2000, false,
			Breakdown{Subtotal: 2000, Discount: 200, Shipping: 499, Tax: 180 + 180 + 100, Total: 2000 - 200 + 499 + 460}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Compute(tc.lines, tc.code, rates, tc.method, tc.bp, tc.included)
			if got.Subtotal != tc.want.Subtotal || got.Discount != tc.want.Discount || got.Shipping != tc.want.Shipping ||
				got.Tax != tc.want.Tax || got.Total != tc.want.Total {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			var sum int64
			for _, x := range got.LineTax {
				sum += x
			}
			if sum != got.Tax || len(got.LineTax) != len(tc.lines)+1 {
				t.Errorf("line taxes %v do not make the tax %d", got.LineTax, got.Tax)
			}
		})
	}
}

func TestComputeHugeAmountsDoNotOverflow(t *testing.T) {
	big := int64(99_999_999_999) * 99 // the largest price times the largest quantity
	got := Compute([]int64{big, big}, &Code{Kind: KindPercent, Value: 3333}, DefaultRates, MethodStandard, 2500, false)
	if got.Discount <= 0 || got.Tax <= 0 || got.Total <= got.Subtotal-got.Discount {
		t.Errorf("%+v", got)
	}
}

func TestParsing(t *testing.T) {
	for in, want := range map[string]int64{"20": 2000, "7.7": 770, "19.25": 1925, "100": 10000, "0": 0} {
		if got, ok := ParsePercent(in); !ok || got != want {
			t.Errorf("ParsePercent(%q) = %d, %v", in, got, ok)
		}
		if got := FormatPercent(want); got != in {
			t.Errorf("FormatPercent(%d) = %q, want %q", want, got, in)
		}
	}
	for _, bad := range []string{"100.01", "-1", "1e3", "", " 5", "5%"} {
		if _, ok := ParsePercent(bad); ok {
			t.Errorf("ParsePercent(%q) accepted", bad)
		}
	}
	for in, want := range map[string]string{"save10": "SAVE10", " Summer-2026_x ": "SUMMER-2026_X"} {
		if got, err := CodeKey(in); err != nil || got != want {
			t.Errorf("CodeKey(%q) = %q, %v", in, got, err)
		}
	}
	long := make([]byte, 200)
	for i := range long {
		long[i] = 'A'
	}
	for _, bad := range []string{"SAVE 10", "", "   ", string(long), "ÄÖ", "a;b"} {
		if _, err := CodeKey(bad); err == nil {
			t.Errorf("CodeKey(%q) accepted", bad)
		}
	}
	if cs, ok := ParseCountries("gb, de\nFR fr"); !ok || len(cs) != 3 || cs[0] != "GB" || cs[2] != "FR" {
		t.Errorf("ParseCountries: %v %v", cs, ok)
	}
	if _, ok := ParseCountries("GB, Germany"); ok {
		t.Error("ParseCountries accepted a name")
	}
}
