package email

import (
	"fmt"
	"strings"
)

// Return is what a return's messages show.
type Return struct {
	ID          int64
	OrderID     int64
	Status      string // the step just taken: requested, approved, rejected, received, refunded
	Lines       []Line
	RefundCents int64 // once refunded
	URL         string
	ShopURL     string
}

// returnNews is what each step of a return tells the shopper.
var returnNews = map[string]string{
	"requested": "We have your request to return these items and will answer soon.",
	"approved":  "Your return is approved: please send the items back to us.",
	"rejected":  "We are sorry: we cannot accept this return.",
	"received":  "The returned items arrived. Your refund follows.",
	"refunded":  "Your refund is on its way, through the way you paid.",
}

// ReturnSubject is the subject of a return's message at its status.
func ReturnSubject(r Return) string {
	return fmt.Sprintf("Return %d of order %d: %s", r.ID, r.OrderID, r.Status)
}

// ReturnStep tells the shopper where a return stands.
func ReturnStep(r Return) Rendered {
	var b strings.Builder
	fmt.Fprintf(&b, "Hello,\n\n%s\n\n", returnNews[r.Status])
	for _, l := range r.Lines {
		fmt.Fprintf(&b, "  %d x %s  %s\n", l.Qty, l.Name, money(l.PriceCents*l.Qty))
	}
	if r.RefundCents > 0 {
		fmt.Fprintf(&b, "\n  Refunded  %s\n", money(r.RefundCents))
	}
	return Rendered{
		Subject: ReturnSubject(r),
		Text:    b.String() + footer(Order{ID: r.OrderID, URL: r.URL, ShopURL: r.ShopURL}),
		HTML:    render(returnHTML(r)),
	}
}
