package views

import "testing"

func TestMoneyHasThousandsSeparators(t *testing.T) {
	for cents, want := range map[int64]string{
		0: "$0.00", 5: "$0.05", 1299: "$12.99", 107097: "$1,070.97", 100000000: "$1,000,000.00", -123456: "-$1,234.56",
	} {
		if got := DefaultShop.Currency.Format(cents); got != want {
			t.Errorf("Money(%d) = %q, want %q", cents, got, want)
		}
	}
}

func TestCountedAgreesWithItsNoun(t *testing.T) {
	for n, want := range map[int64]string{0: "0 items", 1: "1 item", 2: "2 items", 1200: "1,200 items", -1: "-1 items"} {
		if got := Counted(n, "item", "items"); got != want {
			t.Errorf("Counted(%d) = %q, want %q", n, got, want)
		}
	}
	if got := pointsText(-1) + "|" + pointsText(1) + "|" + pointsText(0); got != " point| point| points" {
		t.Errorf("points %q", got)
	}
}
