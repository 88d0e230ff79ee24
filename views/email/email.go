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

// Line is one order line in a message: the item, its options ("Size: M",
// "" for none) and SKU as sold, so that the shopper sees exactly what was
// bought or comes back.
type Line struct {
	Name       string
	Variant    string
	SKU        string
	Qty        int64
	PriceCents int64
}

// title is the line's item with its options.
func (l Line) title() string {
	if l.Variant == "" {
		return l.Name
	}
	return l.Name + " (" + l.Variant + ")"
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
	Address    []string // the delivery address, line by line, its country named
	Country    string   // the delivery country's name
	Shipping   string   // the delivery method ("Standard delivery")
	Tracking   string
	// TrackingURL follows the parcel at the carrier ("" when the shop has
	// no carrier link, TRACKING_URL).
	TrackingURL string
	// Payment is the payment method's code (card, invoice, cod); PaidCents
	// what a provider confirmed was paid, and Paid whether the order had
	// been paid when it was cancelled.
	Payment   string
	PaidCents int64
	Paid      bool
	URL       string // the order's page, "" when there is none to link (a guest's)
	ShopURL   string
	// BackCents is what a change of the order gives back and DueCents
	// what it asks the shopper to pay on the order's page (0: none).
	BackCents int64
	DueCents  int64
	// Shop is the shop's name and address, with the order's own currency.
	Shop views.Shop
}

// money writes an amount in the order's currency.
func (o Order) money(minor int64) string { return orDefault(o.Shop).Currency.Format(minor) }

// orDefault is the shop a message shows: views.DefaultShop when the
// message was given none.
func orDefault(s views.Shop) views.Shop {
	if s.Name == "" {
		return views.DefaultShop
	}
	return s
}

// RefundWay says how money goes back for a payment method, as the
// shopper's messages put it.
func RefundWay(payment string) string {
	switch payment {
	case "card":
		return "to the card you paid with (banks take up to 10 days to show it)"
	case "invoice":
		return "by bank transfer, to the account you paid the invoice from"
	case "cod":
		return "by bank transfer: as you paid the courier in cash, reply to this message with the account to pay it into"
	}
	return "the way you paid"
}

// deliveryText is the delivery line's label: the method and the country.
func deliveryText(o Order) string {
	s := "Delivery"
	if o.Shipping != "" {
		s = o.Shipping
	}
	if o.Country != "" {
		s += " to " + o.Country
	}
	return s
}

// cancelNews is what the cancelled message says about the money.
func cancelNews(o Order) string {
	switch {
	case o.PaidCents > 0:
		return fmt.Sprintf("The %s you paid goes back %s.", o.money(o.PaidCents), RefundWay(o.Payment))
	case o.Paid:
		return "What you paid goes back " + RefundWay(o.Payment) + "."
	}
	return "Nothing will be sent or charged for it."
}

// Link is what the verification and reset messages show.
type Link struct {
	Username string
	Email    string
	URL      string
	Valid    string // how long the link works, in words
	// Role is a staff invitation's role.
	Role    string
	ShopURL string
	Shop    views.Shop
}

// render writes an HTML body; its frame and amounts read the shop from
// the context, as the pages do.
func render(shop views.Shop, c templ.Component) string {
	var b bytes.Buffer
	if err := c.Render(views.WithShop(context.Background(), orDefault(shop)), &b); err != nil {
		// Components here only write to a buffer: an error is a bug.
		panic("email: " + err.Error())
	}
	return b.String()
}

// taxText is the tax line: added to the total, or included in it.
func taxText(o Order) string {
	if o.TaxAdded {
		return "Tax      " + o.money(o.TaxCents)
	}
	return "Includes " + o.money(o.TaxCents) + " tax"
}

// orderText is the text body's order summary.
func orderText(o Order) string {
	var b strings.Builder
	linesText(&b, orDefault(o.Shop).Currency, o.Lines)
	fmt.Fprintf(&b, "\n  Items     %s\n", o.money(o.SubtotalCents))
	if o.DiscountCents != 0 {
		fmt.Fprintf(&b, "  Discount  -%s (%s)\n", o.money(o.DiscountCents), o.DiscountCode)
	}
	fmt.Fprintf(&b, "  Delivery  %s (%s)\n", o.money(o.ShippingCents), deliveryText(o))
	if o.TaxCents != 0 {
		fmt.Fprintf(&b, "  %s\n", taxText(o))
	}
	fmt.Fprintf(&b, "  Total     %s\n", o.money(o.TotalCents))
	if len(o.Address) > 0 {
		b.WriteString("\nDelivery to:\n")
		for _, a := range o.Address {
			b.WriteString("  " + a + "\n")
		}
	}
	return b.String()
}

// linesText writes order lines, each with its options and SKU.
func linesText(b *strings.Builder, cur views.Currency, lines []Line) {
	for _, l := range lines {
		fmt.Fprintf(b, "  %d x %s  %s\n", l.Qty, l.title(), cur.Format(l.PriceCents*l.Qty))
		if l.SKU != "" {
			fmt.Fprintf(b, "      SKU %s\n", l.SKU)
		}
	}
}

func footer(o Order) string {
	s := "\n"
	if o.URL != "" {
		s += "Your order: " + o.URL + "\n"
	}
	return s + "\n-- \n" + orDefault(o.Shop).Name + " " + o.ShopURL + "\n" + contactText(o.Shop)
}

// OrderPlaced confirms a new order: its lines, totals and address.
func OrderPlaced(o Order) Rendered {
	return Rendered{
		Subject: fmt.Sprintf("Order %d: thank you", o.ID),
		Text:    fmt.Sprintf("Hello %s,\n\nThank you for your order %d. We will tell you when it ships.\n\n", o.Name, o.ID) + orderText(o) + footer(o),
		HTML:    render(o.Shop, orderPlacedHTML(o)),
	}
}

// OrderShipped says the order is on its way, where to and how, with the
// tracking number and the carrier's link to follow it.
func OrderShipped(o Order) Rendered {
	text := fmt.Sprintf("Hello %s,\n\nYour order %d is on its way (%s).\nTracking number: %s\n", o.Name, o.ID, deliveryText(o), o.Tracking)
	if o.TrackingURL != "" {
		text += "Follow your parcel: " + o.TrackingURL + "\n"
	}
	return Rendered{
		Subject: fmt.Sprintf("Order %d has shipped", o.ID),
		Text:    text + footer(o),
		HTML:    render(o.Shop, orderShippedHTML(o)),
	}
}

// OrderDelivered says the order arrived.
func OrderDelivered(o Order) Rendered {
	return Rendered{
		Subject: fmt.Sprintf("Order %d was delivered", o.ID),
		Text:    fmt.Sprintf("Hello %s,\n\nYour order %d was delivered. We hope you enjoy it.\n", o.Name, o.ID) + footer(o),
		HTML:    render(o.Shop, orderDeliveredHTML(o)),
	}
}

// OrderCancelled says the order was cancelled.
func OrderCancelled(o Order) Rendered {
	return Rendered{
		Subject: fmt.Sprintf("Order %d was cancelled", o.ID),
		Text:    fmt.Sprintf("Hello %s,\n\nYour order %d was cancelled. %s\n", o.Name, o.ID, cancelNews(o)) + footer(o),
		HTML:    render(o.Shop, orderCancelledHTML(o)),
	}
}

// OrderChanged tells the shopper that the shop changed their order before
// it shipped: its lines and total now, and the money: what goes back, or
// the difference to pay on the order's page.
func OrderChanged(o Order) Rendered {
	var b strings.Builder
	fmt.Fprintf(&b, "Hello %s,\n\nWe changed your order %d as agreed. It now holds:\n\n", o.Name, o.ID)
	for _, l := range o.Lines {
		fmt.Fprintf(&b, "  %d × %s  %s\n", l.Qty, l.title(), o.money(l.PriceCents*l.Qty))
	}
	fmt.Fprintf(&b, "\nTotal: %s\n\n%s\n", o.money(o.TotalCents), changeNews(o))
	return Rendered{
		Subject: fmt.Sprintf("Order %d was changed", o.ID),
		Text:    b.String() + footer(o),
		HTML:    render(o.Shop, orderChangedHTML(o)),
	}
}

// changeNews is what the changed message says about the money.
func changeNews(o Order) string {
	switch {
	case o.DueCents > 0 && o.URL != "":
		return fmt.Sprintf("The new total is %s more than you paid: please pay the difference on your order's page (%s); we send the order once it is paid.",
			o.money(o.DueCents), o.URL)
	case o.DueCents > 0:
		return fmt.Sprintf("The new total is %s more than you paid: please pay the difference on your order's page; we send the order once it is paid.", o.money(o.DueCents))
	case o.BackCents > 0:
		return fmt.Sprintf("The %s difference goes back %s.", o.money(o.BackCents), RefundWay(o.Payment))
	}
	return "Nothing else changes: we will tell you when it ships."
}

// VerifyEmail asks the account to confirm its address.
func VerifyEmail(l Link) Rendered {
	return Rendered{
		Subject: "Confirm your email address",
		Text: fmt.Sprintf("Hello %s,\n\nPlease confirm that %s is your address by opening this link (it works for %s, once):\n\n%s\n\n"+
			"If you did not ask for this, ignore this message.\n\n-- \n%s %s\n", l.Username, l.Email, l.Valid, l.URL, orDefault(l.Shop).Name, l.ShopURL),
		HTML: render(l.Shop, verifyHTML(l)),
	}
}

// PasswordReset carries the link that sets a new password.
func PasswordReset(l Link) Rendered {
	return Rendered{
		Subject: "Reset your password",
		Text: fmt.Sprintf("Hello %s,\n\nSomeone asked to reset the password of your account %s. To choose a new one, open this link "+
			"(it works for %s, once):\n\n%s\n\nIf it was not you, ignore this message: your password stays as it is.\n\n-- \n%s %s\n",
			l.Username, l.Username, l.Valid, l.URL, orDefault(l.Shop).Name, l.ShopURL),
		HTML: render(l.Shop, resetHTML(l)),
	}
}

// StaffInvite is the email of an invitation to join the staff.
func StaffInvite(l Link) Rendered {
	name := orDefault(l.Shop).Name
	return Rendered{
		Subject: "Join the team at " + name,
		Text: fmt.Sprintf("Hello,\n\nYou are invited to help run %s as %s. To make your staff account, open this link "+
			"(it works for %s, once):\n\n%s\n\nIf you did not expect this, ignore this message: nothing is made without the link.\n\n-- \n%s %s\n",
			name, l.Role, l.Valid, l.URL, name, l.ShopURL),
		HTML: render(l.Shop, staffInviteHTML(l)),
	}
}

// contactText is the shop's postal address and contact address under a
// message's signature, a line each ("" for neither).
func contactText(s views.Shop) string {
	out := ""
	if a := s.AddressText(); a != "" {
		out += a + "\n"
	}
	if s.ContactEmail != "" {
		out += s.ContactEmail + "\n"
	}
	return out
}
