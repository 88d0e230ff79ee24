package merchant

import "testing"

func TestParseAmountPerCurrency(t *testing.T) {
	jpy, usd, kwd := MustCurrency("JPY"), MustCurrency("USD"), MustCurrency("KWD")
	for _, tc := range []struct {
		cur  Currency
		in   string
		want int64
		ok   bool
	}{
		{jpy, "1500", 1500, true}, {jpy, "0", 0, true}, {jpy, "15.5", 0, false}, {jpy, "15.", 0, false},
		{usd, "12", 1200, true}, {usd, "12.5", 1250, true}, {usd, "12.34", 1234, true}, {usd, "0.05", 5, true},
		{usd, "12.345", 0, false}, {usd, ".5", 0, false}, {usd, "12.", 0, false}, {usd, "-1", 0, false},
		{usd, "1,000", 0, false}, {usd, "$5", 0, false}, {usd, "", 0, false}, {usd, " 5", 0, false},
		{usd, "1234567890", 0, false}, {usd, "123456789.99", 12345678999, true},
		{kwd, "1.5", 1500, true}, {kwd, "1.234", 1234, true}, {kwd, "1.2345", 0, false},
	} {
		got, ok := tc.cur.ParseAmount(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s ParseAmount(%q) = %d, %v; want %d, %v", tc.cur.Code, tc.in, got, ok, tc.want, tc.ok)
		}
		if ok {
			if back, _ := tc.cur.ParseAmount(tc.cur.AmountInput(got)); back != got {
				t.Errorf("%s AmountInput(%d) = %q reads back as %d", tc.cur.Code, got, tc.cur.AmountInput(got), back)
			}
		}
	}
	for cur, want := range map[Currency]string{usd: "0.05", jpy: "5", kwd: "0.005"} {
		if got := cur.AmountInput(5); got != want {
			t.Errorf("%s AmountInput(5) = %q, want %q", cur.Code, got, want)
		}
	}
}
