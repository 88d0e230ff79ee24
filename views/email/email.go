// Package email renders the shop's messages: each one a subject, a plain
// text body and an HTML body (templ components in email.templ), from a
// small view model. The wiring renders them inside the transaction of the
// change that causes them and writes them to the outbox (store/mail).
// The text bodies are written out here in Go rather than in templ, whose
// output is HTML-escaped and whitespace-folded: a text part needs neither.
// Tests: email_test.go.
package email

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/a-h/templ"

	"storefront/views"
)

// Rendered is one message ready for the outbox.
type Rendered struct {
	Subject, Text, HTML string
}

// Line is one order line in a message.
type Line struct {
	Name       string
	Qty        int64
	PriceCents int64
}

// Order is what the order messages show.
type Order struct {
	ID            int64
	Name          string // whom it is addressed to
	Lines         []Line
	SubtotalCents int64
	// DiscountCents is taken off by DiscountCode ("" and 0: none).
	DiscountCents int64
	DiscountCode  string
	ShippingCents int64
	// TaxCents is the order's tax: added to the total when TaxAdded,
	// else included in the prices (0: no tax line).
	TaxCents   int64
	TaxAdded   bool
	TotalCents int64
	Address    []string // the delivery address, line by line
	Tracking   string
	URL        string // the order's page, "" when there is none to link (a guest's)
	ShopURL    string
}

// Link is what the verification and reset messages show.
type Link struct {
	Username string
	Email    string
	URL      string
	Valid    string // how long the link works, in words
	ShopURL  string
}

func render(c templ.Component) string {
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		// Components here only write to a buffer: an error is a bug.
		panic("email: " + err.Error())
	}
	return b.String()
}

func money(c int64) string { return views.Money(c) }

// taxText is the tax line: added to the total, or included in it.
func taxText(o Order) string {
	if o.TaxAdded {
		return "Tax      " + money(o.TaxCents)
	}
	return "Includes " + money(o.TaxCents) + " tax"
}

// orderText is the text body's order summary.
func orderText(o Order) string {
	var b strings.Builder
	for _, l := range o.Lines {
		fmt.Fprintf(&b, "  %d x %s  %s\n", l.Qty, l.Name, money(l.PriceCents*l.Qty))
	}
	fmt.Fprintf(&b, "\n  Items     %s\n", money(o.SubtotalCents))
	if o.DiscountCents != 0 {
		fmt.Fprintf(&b, "  Discount  -%s (%s)\n", money(o.DiscountCents), o.DiscountCode)
	}
	fmt.Fprintf(&b, "  Delivery  %s\n", money(o.ShippingCents))
	if o.TaxCents != 0 {
		fmt.Fprintf(&b, "  %s\n", taxText(o))
	}
	fmt.Fprintf(&b, "  Total     %s\n", money(o.TotalCents))
	if len(o.Address) > 0 {
		b.WriteString("\nDelivery to:\n")
		for _, a := range o.Address {
			b.WriteString("  " + a + "\n")
		}
	}
	return b.String()
}

func footer(o Order) string {
	s := "\n"
	if o.URL != "" {
		s += "Your order: " + o.URL + "\n"
	}
	return s + "\n-- \nStorefront " + o.ShopURL + "\n"
}

// OrderPlaced confirms a new order: its lines, totals and address.
func OrderPlaced(o Order) Rendered {
	return Rendered{
		Subject: fmt.Sprintf("Order %d: thank you", o.ID),
		Text:    fmt.Sprintf("Hello %s,\n\nThank you for your order %d. We will tell you when it ships.\n\n", o.Name, o.ID) + orderText(o) + footer(o),
		HTML:    render(orderPlacedHTML(o)),
	}
}

// OrderShipped says the order is on its way, with the tracking number.
func OrderShipped(o Order) Rendered {
	return Rendered{
		Subject: fmt.Sprintf("Order %d has shipped", o.ID),
		Text:    fmt.Sprintf("Hello %s,\n\nYour order %d is on its way.\nTracking number: %s\n", o.Name, o.ID, o.Tracking) + footer(o),
		HTML:    render(orderShippedHTML(o)),
	}
}

// OrderDelivered says the order arrived.
func OrderDelivered(o Order) Rendered {
	return Rendered{
		Subject: fmt.Sprintf("Order %d was delivered", o.ID),
		Text:    fmt.Sprintf("Hello %s,\n\nYour order %d was delivered. We hope you enjoy it.\n", o.Name, o.ID) + footer(o),
		HTML:    render(orderDeliveredHTML(o)),
	}
}

// OrderCancelled says the order was cancelled.
func OrderCancelled(o Order) Rendered {
	return Rendered{
		Subject: fmt.Sprintf("Order %d was cancelled", o.ID),
		Text:    fmt.Sprintf("Hello %s,\n\nYour order %d was cancelled. Nothing will be sent or charged for it.\n", o.Name, o.ID) + footer(o),
		HTML:    render(orderCancelledHTML(o)),
	}
}

// VerifyEmail asks the account to confirm its address.
func VerifyEmail(l Link) Rendered {
	return Rendered{
		Subject: "Confirm your email address",
		Text: fmt.Sprintf("Hello %s,\n\nPlease confirm that %s is your address by opening this link (it works for %s, once):\n\n%s\n\n"+
			"If you did not ask for this, ignore this message.\n\n-- \nStorefront %s\n", l.Username, l.Email, l.Valid, l.URL, l.ShopURL),
		HTML: render(verifyHTML(l)),
	}
}

// PasswordReset carries the link that sets a new password.
func PasswordReset(l Link) Rendered {
	return Rendered{
		Subject: "Reset your password",
		Text: fmt.Sprintf("Hello %s,\n\nSomeone asked to reset the password of your account %s. To choose a new one, open this link "+
			"(it works for %s, once):\n\n%s\n\nIf it was not you, ignore this message: your password stays as it is.\n\n-- \nStorefront %s\n",
			l.Username, l.Username, l.Valid, l.URL, l.ShopURL),
		HTML: render(resetHTML(l)),
	}
}
