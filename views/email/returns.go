package email

import (
	"fmt"
	"storefront/views"
	"strings"
)

// Return is what a return's messages show.
type Return struct {
	ID          int64
	OrderID     int64
	Status      string // the step just taken: requested, approved, rejected, received, refunded
	Lines       []Line
	RefundCents int64 // once refunded
	// Payment is the order's payment method's code: the refund goes back
	// that way.
	Payment string
	// ReturnAddress is where to send the items (SHOP_ADDRESS); "" asks the
	// shopper to reply for it.
	ReturnAddress string
	URL           string
	ShopURL       string
	// Shop is the shop's name and address, with the order's currency.
	Shop views.Shop
}

// returnNext is what the shopper does or gets next, after the step's news:
// where to send the items once approved, how the refund comes back.
func returnNext(r Return) string {
	switch r.Status {
	case "approved":
		if r.ReturnAddress == "" {
			return "Reply to this message and we will tell you where to send them. Write the return number, " + fmt.Sprint(r.ID) + ", on the parcel."
		}
		return "Send them to: " + r.ReturnAddress + ". Write the return number, " + fmt.Sprint(r.ID) + ", on the parcel."
	case "refunded":
		return fmt.Sprintf("We refunded %s %s.", orDefault(r.Shop).Currency.Format(r.RefundCents), RefundWay(r.Payment))
	}
	return ""
}

// returnNews is what each step of a return tells the shopper.
var returnNews = map[string]string{
	"requested": "We have your request to return these items and will answer soon.",
	"approved":  "Your return is approved: please send the items back to us.",
	"rejected":  "We are sorry: we cannot accept this return.",
	"received":  "The returned items arrived. Your refund follows.",
	"refunded":  "Your refund is on its way.",
}

// ReturnSubject is the subject of a return's message at its status.
func ReturnSubject(r Return) string {
	return fmt.Sprintf("Return %d of order %d: %s", r.ID, r.OrderID, r.Status)
}

// ReturnStep tells the shopper where a return stands.
func ReturnStep(r Return) Rendered {
	var b strings.Builder
	fmt.Fprintf(&b, "Hello,\n\n%s\n", returnNews[r.Status])
	if next := returnNext(r); next != "" {
		fmt.Fprintf(&b, "%s\n", next)
	}
	b.WriteString("\n")
	linesText(&b, orDefault(r.Shop).Currency, r.Lines)
	if r.RefundCents > 0 {
		fmt.Fprintf(&b, "\n  Refunded  %s\n", orDefault(r.Shop).Currency.Format(r.RefundCents))
	}
	return Rendered{
		Subject: ReturnSubject(r),
		Text:    b.String() + footer(Order{ID: r.OrderID, URL: r.URL, ShopURL: r.ShopURL, Shop: r.Shop}),
		HTML:    render(r.Shop, returnHTML(r)),
	}
}
