package admin

import (
	"strconv"

	"storefront/store/merchant"
)

// maxPrice is the highest price or compare-at price an admin may give, in
// minor units of any currency (9,999,999.99 dollars, 999,999,999 yen).
const maxPrice = 999_999_999

// parsePrice reads a price as the admin typed it, in the shop's currency.
func parsePrice(cur merchant.Currency, s string) (int64, bool) {
	n, ok := cur.ParseAmount(s)
	return n, ok && n <= maxPrice
}

// amountHint is how a form's message shows an amount to type, in the
// shop's currency: "12.34" for the dollar, "1234" for the yen.
func amountHint(cur merchant.Currency, minor int64) string { return cur.AmountInput(minor) }

// priceRule says how to write a price (what names which) in the shop's
// currency.
func priceRule(cur merchant.Currency, what string) string {
	decimals := "with at most " + strconv.Itoa(cur.Digits) + " " + plural(cur.Digits, "decimal", "decimals") + ", "
	if cur.Digits == 0 {
		decimals = "in whole " + cur.Code + " without decimals, "
	}
	return what + " is an amount in " + cur.Code + " " + decimals + "such as " + amountHint(cur, 1234) +
		", from 0 to " + amountHint(cur, maxPrice) + "."
}
