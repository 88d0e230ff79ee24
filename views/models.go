package views

import (
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
	// Canonical is the page's absolute canonical URL ("" writes none);
	// NoIndex asks search engines not to index it.
	Canonical string
	NoIndex   bool
	// Social is the page's Open Graph and Twitter card tags, LD its
	// structured data, Feed the path of an Atom feed it links to.
	Social Social
	LD     []LD
	Feed   string
	// Refresh reloads the page after this many seconds (0: never), for
	// a page that follows work in progress without JavaScript.
	Refresh int
}

// description is the page's meta description: its own, or one made from
// its title, so that no page goes without.
func (c Chrome) description(shop string) string {
	if c.Description != "" {
		return c.Description
	}
	return c.Title + " at " + shop + "."
}

// ItemCard is an item as shown in grids and lists.
type ItemCard struct {
	ID         int64
	Name       string
	Category   string
	PriceCents int64
	Stock      int64
	// RatingCount and RatingAverage are the item's reviews (0 for none).
	RatingCount   int
	RatingAverage float64
	// Picture is the item's main picture; the zero value shows a
	// placeholder.
	Picture Picture
}

// Picture is one item picture as an <img>: every stored size for srcset,
// the smallest as src, and the largest size's dimensions so the browser
// reserves the right box before it loads.
type Picture struct {
	Src    string
	Srcset string
	Width  int
	Height int
	// Position is the picture's place among the item's (1 is the main one).
	Position int
	// Largest is the widest stored size's path (link previews show it).
	Largest string
}

// WidthAt is the picture's width shown h pixels high, for the width
// attribute that keeps the page from shifting while it loads.
func (p Picture) WidthAt(h int) int {
	if p.Height <= 0 {
		return h
	}
	return max(1, p.Width*h/p.Height)
}

// Pager links to the previous and next pages of a listing.
type Pager struct {
	Page    int
	Pages   int // how many pages the listing has; 1 shows no pager
	PrevURL string
	NextURL string
	Summary string
	// PastEnd explains an empty page past the last one ("" otherwise).
	PastEnd string
}

// NumberedPager links the pages of a listing by number.
type NumberedPager struct {
	Page, Pages      int
	PrevURL, NextURL string
	Links            []PageLink
}

// PageLink is one numbered page link, or a gap (…) between numbers.
type PageLink struct {
	Page    int
	URL     string
	Current bool
	Gap     bool
}

// thousands writes a non-negative whole number with commas: 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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

// VariantURL is the page of an item with its variant chosen (the item's
// page for variant 0): the URL the variant picker leads to.
func VariantURL(itemID int64, name string, variantID int64) string {
	if variantID == 0 {
		return ItemURL(itemID, name)
	}
	return ItemURL(itemID, name) + "?variant=" + i64(variantID)
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }
