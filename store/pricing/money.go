package pricing

import (
	"math/bits"
	"regexp"
	"strconv"
	"strings"
)

// moneyRE is an amount as forms and knobs write it: "12", "12.3" or "12.34".
var moneyRE = regexp.MustCompile(`^[0-9]{1,9}(\.[0-9]{1,2})?$`)

// ParseMoney reads an amount such as "12.34" as cents.
func ParseMoney(s string) (int64, bool) {
	if !moneyRE.MatchString(s) {
		return 0, false
	}
	whole, frac, _ := strings.Cut(s, ".")
	d, _ := strconv.ParseInt(whole, 10, 64)
	c, _ := strconv.ParseInt((frac + "00")[:2], 10, 64)
	return d*100 + c, true
}

// ParsePercent reads a percentage such as "20" or "7.7" as hundredths of
// a percent (basis points), at most 100%.
func ParsePercent(s string) (int64, bool) {
	bp, ok := ParseMoney(s)
	return bp, ok && bp <= 10000
}

// FormatPercent writes basis points as a percentage: 2000 "20", 770 "7.7".
func FormatPercent(bp int64) string {
	s := strconv.FormatInt(bp/100, 10)
	if frac := bp % 100; frac != 0 {
		s += strings.TrimRight("."+strconv.FormatInt(100+frac, 10)[1:], "0")
	}
	return s
}

// mulDiv is a*b/den and its remainder for a, b >= 0 and den > 0, through
// a 128-bit product so that large amounts times rates cannot overflow.
// Callers only ask for quotients no larger than a or b.
func mulDiv(a, b, den int64) (q, r int64) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	uq, ur := bits.Div64(hi, lo, uint64(den))
	return int64(uq), int64(ur)
}

// mulDivRound is a*b/den rounded half away from zero (a, b >= 0, den > 0).
func mulDivRound(a, b, den int64) int64 {
	q, r := mulDiv(a, b, den)
	if uint64(r)*2 >= uint64(den) {
		q++
	}
	return q
}
