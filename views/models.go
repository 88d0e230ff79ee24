// Package views holds the templ components: pure functions of the typed
// view models below. They never read cookies or call the store.
package views

import (
	"fmt"
	"strconv"
)

// Viewer is the per-request, per-visitor part of every page: the header's
// account area. It is the only user-specific data in the layout, kept in
// one component so the page cache can fill it in per request.
type Viewer struct {
	SignedIn  bool
	Name      string
	IsAdmin   bool
	CartCount int64
	Unread    int64
}

// Chrome is what the layout needs besides the page body.
type Chrome struct {
	Title   string
	Query   string
	Flash   string
	FlashOK bool // false renders the flash as an error
	Viewer  Viewer
	// Description is the page's meta description.
	Description string
}

// ItemCard is an item as shown in grids and lists.
type ItemCard struct {
	ID         int64
	Name       string
	Category   string
	PriceCents int64
	Stock      int64
}

// Pager links to the previous and next pages of a listing.
type Pager struct {
	Page    int
	PrevURL string
	NextURL string
	Summary string
}

// Money formats cents as dollars, such as $12.99.
func Money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s$%d.%02d", sign, cents/100, cents%100)
}

// StockText describes stock for shoppers.
func StockText(n int64) string {
	switch {
	case n <= 0:
		return "Out of stock"
	case n < 10:
		return "Only " + strconv.FormatInt(n, 10) + " left"
	}
	return strconv.FormatInt(n, 10) + " in stock"
}

// Initials gives an item's placeholder picture its letters.
func Initials(name string) string {
	out := []rune{}
	prev := ' '
	for _, r := range name {
		if prev == ' ' && r != ' ' && len(out) < 2 {
			out = append(out, r)
		}
		prev = r
	}
	return string(out)
}

// CategoryClass picks a stable colour for a category.
func CategoryClass(cat string) string {
	h := 0
	for _, r := range cat {
		h = (h*31 + int(r)) % 1000
	}
	return "cat-" + strconv.Itoa(h%10)
}

// ItemURL is an item page's path.
func ItemURL(id int64) string { return "/items/" + strconv.FormatInt(id, 10) }

func i64(n int64) string { return strconv.FormatInt(n, 10) }
