package views

import (
	"context"
	"strings"
)

// Shop is the merchant's side of every page: the shop's name, the
// currency prices are shown in, and how to reach the shop. Handlers put it
// in the rendering context (WithShop); the layout and every price read it
// from there, so that no view model has to carry it.
type Shop struct {
	Name         string
	Currency     Currency
	ContactEmail string
	Address      []string // the postal address, line by line
	// Pages are the shop's information pages, linked from the footer.
	Pages []InfoLink
	// Logo is the shop's logo beside its name in the header (Src "" for none).
	Logo Picture
}

// InfoLink is an information page as the footer links it.
type InfoLink struct{ Title, Slug string }

// Currency is how amounts in a currency's minor unit are written: Symbol
// before the number, Digits decimals.
type Currency struct {
	Code   string
	Symbol string
	Digits int
}

// DefaultShop is what a page shows when its context carries no shop.
var DefaultShop = Shop{Name: "Storefront", Currency: Currency{Code: "USD", Symbol: "$", Digits: 2}}

type shopKey struct{}

// WithShop returns ctx carrying the shop pages rendered in it show.
func WithShop(ctx context.Context, s Shop) context.Context {
	return context.WithValue(ctx, shopKey{}, s)
}

// WithCurrency returns ctx whose prices are in cur (an order's own
// currency), the rest of the shop unchanged.
func WithCurrency(ctx context.Context, cur Currency) context.Context {
	s := ShopOf(ctx)
	s.Currency = cur
	return WithShop(ctx, s)
}

// ShopOf is the shop in ctx, or DefaultShop.
func ShopOf(ctx context.Context) Shop {
	if s, ok := ctx.Value(shopKey{}).(Shop); ok {
		return s
	}
	return DefaultShop
}

// Money writes an amount in the minor unit of ctx's currency with
// thousands separators: $1,234.50, €12.99, ¥1,235.
func Money(ctx context.Context, minor int64) string { return ShopOf(ctx).Currency.Format(minor) }

// Format writes an amount in the currency's minor unit.
func (c Currency) Format(minor int64) string {
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	if c.Digits <= 0 {
		return sign + c.Symbol + thousands(minor)
	}
	unit := int64(1)
	for range c.Digits {
		unit *= 10
	}
	frac := strings.Repeat("0", c.Digits) + i64(minor%unit)
	return sign + c.Symbol + thousands(minor/unit) + "." + frac[len(frac)-c.Digits:]
}

// AddressText is the shop's postal address on one line.
func (s Shop) AddressText() string { return strings.Join(s.Address, ", ") }

// Paragraphs splits plain text into paragraphs, a line each (blank lines
// dropped), each trimmed; the views write each as text (escaped), never
// as markup.
func Paragraphs(text string) []string {
	var out []string
	for p := range strings.SplitSeq(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// AmountInput writes an amount in the minor unit the way admin forms take
// it in ctx's currency ("12.34" for the dollar, "1234" for the yen), for
// the hints beside those forms' fields.
func AmountInput(ctx context.Context, minor int64) string {
	c := ShopOf(ctx).Currency
	s := i64(minor)
	if c.Digits <= 0 {
		return s
	}
	if len(s) <= c.Digits {
		s = strings.Repeat("0", c.Digits-len(s)+1) + s
	}
	return s[:len(s)-c.Digits] + "." + s[len(s)-c.Digits:]
}

// amountPattern is the pattern attribute of a field taking an amount in
// ctx's currency: whole units, and its decimals if it has any.
func amountPattern(ctx context.Context) string {
	if d := ShopOf(ctx).Currency.Digits; d > 0 {
		return "[0-9]{1,9}([.][0-9]{1," + i64(int64(d)) + "})?"
	}
	return "[0-9]{1,9}"
}
