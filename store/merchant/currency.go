package merchant

import (
	"slices"
	"strconv"
	"strings"
)

// Currency is an ISO 4217 currency as the shop uses it: amounts are
// integers in its minor unit (Digits decimals: 2 for the euro, 0 for the
// yen, 3 for the Kuwaiti dinar), and Symbol is what prices start with
// ("$", "€"; the code and a space for currencies without a symbol of
// their own here).
type Currency struct {
	Code   string
	Digits int
	Symbol string
}

// currencies are the ISO 4217 currencies in circulation (not the funds,
// metals or testing codes), each with its minor unit's decimals; those
// with no entry in symbols show their code.
var currencies = map[string]int{
	"AED": 2, "AFN": 2, "ALL": 2, "AMD": 2, "ANG": 2, "AOA": 2, "ARS": 2, "AUD": 2, "AWG": 2, "AZN": 2,
	"BAM": 2, "BBD": 2, "BDT": 2, "BGN": 2, "BHD": 3, "BIF": 0, "BMD": 2, "BND": 2, "BOB": 2, "BRL": 2,
	"BSD": 2, "BTN": 2, "BWP": 2, "BYN": 2, "BZD": 2, "CAD": 2, "CDF": 2, "CHF": 2, "CLP": 0, "CNY": 2,
	"COP": 2, "CRC": 2, "CUP": 2, "CVE": 2, "CZK": 2, "DJF": 0, "DKK": 2, "DOP": 2, "DZD": 2, "EGP": 2,
	"ERN": 2, "ETB": 2, "EUR": 2, "FJD": 2, "FKP": 2, "GBP": 2, "GEL": 2, "GHS": 2, "GIP": 2, "GMD": 2,
	"GNF": 0, "GTQ": 2, "GYD": 2, "HKD": 2, "HNL": 2, "HTG": 2, "HUF": 2, "IDR": 2, "ILS": 2, "INR": 2,
	"IQD": 3, "IRR": 2, "ISK": 0, "JMD": 2, "JOD": 3, "JPY": 0, "KES": 2, "KGS": 2, "KHR": 2, "KMF": 0,
	"KPW": 2, "KRW": 0, "KWD": 3, "KYD": 2, "KZT": 2, "LAK": 2, "LBP": 2, "LKR": 2, "LRD": 2, "LSL": 2,
	"LYD": 3, "MAD": 2, "MDL": 2, "MGA": 2, "MKD": 2, "MMK": 2, "MNT": 2, "MOP": 2, "MRU": 2, "MUR": 2,
	"MVR": 2, "MWK": 2, "MXN": 2, "MYR": 2, "MZN": 2, "NAD": 2, "NGN": 2, "NIO": 2, "NOK": 2, "NPR": 2,
	"NZD": 2, "OMR": 3, "PAB": 2, "PEN": 2, "PGK": 2, "PHP": 2, "PKR": 2, "PLN": 2, "PYG": 0, "QAR": 2,
	"RON": 2, "RSD": 2, "RUB": 2, "RWF": 0, "SAR": 2, "SBD": 2, "SCR": 2, "SDG": 2, "SEK": 2, "SGD": 2,
	"SHP": 2, "SLE": 2, "SOS": 2, "SRD": 2, "SSP": 2, "STN": 2, "SVC": 2, "SYP": 2, "SZL": 2, "THB": 2,
	"TJS": 2, "TMT": 2, "TND": 3, "TOP": 2, "TRY": 2, "TTD": 2, "TWD": 2, "TZS": 2, "UAH": 2, "UGX": 0,
	"USD": 2, "UYU": 2, "UZS": 2, "VES": 2, "VND": 0, "VUV": 0, "WST": 2, "XAF": 0, "XCD": 2, "XCG": 2,
	"XOF": 0, "XPF": 0, "YER": 2, "ZAR": 2, "ZMW": 2, "ZWG": 2,
}

// symbols are the signs buyers know a price by, for the currencies that
// have one nobody mistakes for another's.
var symbols = map[string]string{
	"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "CN¥", "CAD": "CA$", "AUD": "A$", "NZD": "NZ$",
	"HKD": "HK$", "SGD": "S$", "MXN": "MX$", "BRL": "R$", "TWD": "NT$", "INR": "₹", "KRW": "₩", "ILS": "₪",
	"NGN": "₦", "PHP": "₱", "VND": "₫", "THB": "฿", "UAH": "₴", "TRY": "₺", "PLN": "zł ", "ZAR": "R ",
}

// DefaultCurrency is the shop's currency until the admin chooses one.
const DefaultCurrency = "USD"

// CurrencyOf returns the currency of an ISO 4217 code (upper or lower
// case); ok is false for a code that is not one in circulation.
func CurrencyOf(code string) (Currency, bool) {
	code = strings.ToUpper(strings.TrimSpace(code))
	digits, ok := currencies[code]
	if !ok {
		return Currency{}, false
	}
	sym, ok := symbols[code]
	if !ok {
		sym = code + " "
	}
	return Currency{Code: code, Digits: digits, Symbol: sym}, true
}

// MustCurrency is CurrencyOf for a code recorded by the shop itself (an
// order's): a code it no longer knows shows as its code, with two
// decimals.
func MustCurrency(code string) Currency {
	if c, ok := CurrencyOf(code); ok {
		return c
	}
	if code == "" {
		c, _ := CurrencyOf(DefaultCurrency)
		return c
	}
	return Currency{Code: code, Digits: 2, Symbol: code + " "}
}

// CurrencyCodes lists every code the settings accept, sorted.
func CurrencyCodes() []string {
	out := make([]string, 0, len(currencies))
	for c := range currencies {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// maxWhole is how many digits of whole units an admin may type: more than
// any price, rate or threshold the shop needs, in any currency, and far
// from int64's limits.
const maxWhole = 9

// ParseAmount reads an amount as an admin types it in the currency, as
// minor units: whole units and at most Digits decimals, so "1500" is
// ¥1,500 and "15.5" is refused for the yen, while "12.5" and "12.50" are
// both $12.50. Signs, separators and symbols are refused.
func (c Currency) ParseAmount(s string) (int64, bool) {
	whole, frac, dot := strings.Cut(s, ".")
	if len(whole) < 1 || len(whole) > maxWhole || !digitsOnly(whole) {
		return 0, false
	}
	if dot && (c.Digits == 0 || len(frac) < 1 || len(frac) > c.Digits || !digitsOnly(frac)) {
		return 0, false
	}
	var n int64
	for _, r := range whole + frac + strings.Repeat("0", c.Digits-len(frac)) {
		n = n*10 + int64(r-'0')
	}
	return n, true
}

// AmountInput writes minor units the way ParseAmount reads them back:
// "12.50" for the dollar, "1500" for the yen.
func (c Currency) AmountInput(minor int64) string {
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	s := strconv.FormatInt(minor, 10)
	if c.Digits <= 0 {
		return sign + s
	}
	if len(s) <= c.Digits {
		s = strings.Repeat("0", c.Digits-len(s)+1) + s
	}
	return sign + s[:len(s)-c.Digits] + "." + s[len(s)-c.Digits:]
}

func digitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
