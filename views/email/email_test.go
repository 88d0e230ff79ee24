package email_test

import (
	"strings"
	"testing"

	"storefront/views/email"
)

// TestMessages: every message has a subject, a text part and an HTML part
// that carry its facts, and the HTML part escapes what shoppers typed.
func TestMessages(t *testing.T) {
	o := email.Order{ID: 42, Name: "Ada <script>", Lines: []email.Line{{Name: "Tent & pegs", Qty: 2, PriceCents: 1250}},
		SubtotalCents: 2500, ShippingCents: 499, TotalCents: 2999, Address: []string{"Ada", "1 Main St", "London N1"},
		Tracking: "1Z 999", URL: "http://shop.test/orders/42", ShopURL: "http://shop.test"}
	l := email.Link{Username: "ada", Email: "ada@example.com", URL: "http://shop.test/password/reset?token=1.abc", Valid: "one hour", ShopURL: "http://shop.test"}
	for _, c := range []struct {
		name    string
		r       email.Rendered
		subject string
		facts   []string
	}{
		{"placed", email.OrderPlaced(o), "Order 42: thank you", []string{"Tent & pegs", "25.00", "29.99", "4.99", "1 Main St", "http://shop.test/orders/42"}},
		{"shipped", email.OrderShipped(o), "Order 42 has shipped", []string{"1Z 999"}},
		{"delivered", email.OrderDelivered(o), "Order 42 was delivered", []string{"delivered"}},
		{"cancelled", email.OrderCancelled(o), "Order 42 was cancelled", []string{"cancelled"}},
		{"verify", email.VerifyEmail(l), "Confirm your email address", []string{"ada@example.com", l.URL, "one hour"}},
		{"reset", email.PasswordReset(l), "Reset your password", []string{l.URL, "one hour", "ada"}},
	} {
		if c.r.Subject != c.subject {
			t.Errorf("%s: subject %q", c.name, c.r.Subject)
		}
		for _, f := range c.facts {
			if !strings.Contains(c.r.Text, f) {
				t.Errorf("%s: text lacks %q", c.name, f)
			}
			if !strings.Contains(c.r.HTML, strings.ReplaceAll(f, "&", "&amp;")) {
				t.Errorf("%s: HTML lacks %q", c.name, f)
			}
		}
		if strings.Contains(c.r.HTML, "<script>") {
			t.Errorf("%s: HTML not escaped", c.name)
		}
	}
}

// TestOrderMoneyLines: an order with a code and tax shows the discount and
// the tax, added to the total or included in it, in both parts.
func TestOrderMoneyLines(t *testing.T) {
	o := email.Order{ID: 7, SubtotalCents: 10000, DiscountCents: 1000, DiscountCode: "SPRING10", ShippingCents: 499,
		TaxCents: 1583, TotalCents: 9499}
	inc := email.OrderPlaced(o)
	for _, part := range []string{inc.Text, inc.HTML} {
		for _, f := range []string{"SPRING10", "-$10.00", "$15.83", "includes", "$94.99"} {
			if !strings.Contains(strings.ToLower(part), strings.ToLower(f)) {
				t.Errorf("tax included: lacks %q in\n%s", f, part)
			}
		}
	}
	o.TaxAdded, o.TotalCents = true, 11082
	added := email.OrderPlaced(o)
	for _, part := range []string{added.Text, added.HTML} {
		if !strings.Contains(part, "Tax") || !strings.Contains(part, "$15.83") || strings.Contains(strings.ToLower(part), "includes") {
			t.Errorf("tax added: no added tax line in\n%s", part)
		}
	}
	plain := email.OrderPlaced(email.Order{ID: 8, SubtotalCents: 100, TotalCents: 100})
	if strings.Contains(plain.Text, "Discount") || strings.Contains(plain.Text, "tax") {
		t.Errorf("an order without code or tax shows their lines:\n%s", plain.Text)
	}
}

// TestMessagesSayWhatWhereAndHowBack: lines carry their options and SKU,
// the delivery its method and country, the shipped message the carrier's
// link, a cancelled paid order and a refunded return how the money comes
// back (by the way it was paid), an approved return where to send it.
func TestMessagesSayWhatWhereAndHowBack(t *testing.T) {
	o := email.Order{ID: 9, Lines: []email.Line{{Name: "Scarf", Variant: "Size: M, Colour: Black", SKU: "SF-28-M-BLACK", Qty: 1, PriceCents: 2000}},
		SubtotalCents: 2000, ShippingCents: 499, TotalCents: 2499, Country: "United Kingdom", Shipping: "Express delivery",
		Tracking: "1Z", TrackingURL: "https://track.example.com/1Z", Payment: "card", PaidCents: 2499, Paid: true}
	r := email.Return{ID: 3, OrderID: 9, Lines: o.Lines, RefundCents: 2000, Payment: "card", ReturnAddress: "1 Dock Road, London"}
	for _, c := range []struct {
		name  string
		r     email.Rendered
		facts []string
	}{
		{"placed", email.OrderPlaced(o), []string{"Size: M, Colour: Black", "SKU SF-28-M-BLACK", "Express delivery to United Kingdom"}},
		{"shipped", email.OrderShipped(o), []string{"Express delivery to United Kingdom", "https://track.example.com/1Z"}},
		{"cancelled, card", email.OrderCancelled(o), []string{"The $24.99 you paid goes back to the card you paid with"}},
		{"cancelled, unpaid", email.OrderCancelled(email.Order{ID: 9, Payment: "invoice"}), []string{"Nothing will be sent or charged"}},
		{"approved", email.ReturnStep(withStatus(r, "approved")), []string{"Send them to: 1 Dock Road, London", "return number, 3"}},
		{"approved, no address", email.ReturnStep(withStatus(email.Return{ID: 3, Status: "approved"}, "approved")), []string{"Reply to this message"}},
		{"refunded, card", email.ReturnStep(withStatus(r, "refunded")), []string{"We refunded $20.00 to the card you paid with", "SKU SF-28-M-BLACK"}},
		{"refunded, cod", email.ReturnStep(withStatus(email.Return{ID: 3, RefundCents: 500, Payment: "cod"}, "refunded")), []string{"We refunded $5.00 by bank transfer"}},
	} {
		for _, f := range c.facts {
			if !strings.Contains(c.r.Text, f) {
				t.Errorf("%s: the text lacks %q:\n%s", c.name, f, c.r.Text)
			}
			if !strings.Contains(c.r.HTML, f) {
				t.Errorf("%s: the HTML lacks %q:\n%s", c.name, f, c.r.HTML)
			}
		}
	}
}

func withStatus(r email.Return, status string) email.Return {
	r.Status = status
	return r
}
