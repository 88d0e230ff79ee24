package views

import "testing"

func TestMoneyHasThousandsSeparators(t *testing.T) {
	for cents, want := range map[int64]string{
		0: "$0.00", 5: "$0.05", 1299: "$12.99", 107097: "$1,070.97", 100000000: "$1,000,000.00", -123456: "-$1,234.56",
	} {
		if got := Money(cents); got != want {
			t.Errorf("Money(%d) = %q, want %q", cents, got, want)
		}
	}
}
