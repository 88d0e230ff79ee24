package orders

import (
	"context"
	"errors"
)

// PaymentMethod is one way to pay for an order. Checkout stores the
// method's code on the order and, once the order is placed, calls Begin.
// Invoice and cash on delivery need nothing more at checkout; a card
// provider creates the payment with the provider in Begin and returns the
// provider's page to send the shopper to.
type PaymentMethod interface {
	// Code is the form value and what the order stores.
	Code() string
	// Label names the method for shoppers.
	Label() string
	// Instructions tell the shopper what happens next (order page).
	Instructions() string
	// PaysFirst says the order waits as awaiting_payment, its stock held,
	// until the provider confirms the payment (ConfirmPayment); otherwise
	// it is placed as pending and paid outside the shop.
	PaysFirst() bool
	// Begin starts paying for a placed order. An empty URL means nothing
	// is left to do at checkout; back is where the provider sends the
	// shopper afterwards.
	Begin(ctx context.Context, o Order, back ReturnURLs) (redirectURL string, err error)
	// SendRefund gives refund r of order o back through the provider (the
	// payment r.PaymentRef names, else the order's), r's id making the
	// request idempotent, and returns the provider's id of the refund; a
	// method paid outside the shop only records it ("", nil). The orders
	// took the amount and keep the ledger (IssueRefund); an error wrapping
	// ErrRefundRefused is a refusal for good, any other is tried again. A
	// call honours ctx's deadline.
	SendRefund(ctx context.Context, o Order, r Refund) (ref string, err error)
}

// ReturnURLs are the absolute addresses a payment provider sends the
// shopper back to: Done after paying, Cancel when they give up.
type ReturnURLs struct{ Done, Cancel string }

// Payment method codes.
const (
	PayInvoice = "invoice"
	PayCOD     = "cod"
	PayCard    = "card"
)

// ErrUnknownPayment means the order names no payment method offered here.
var ErrUnknownPayment = errors.New("unknown payment method")

// offlinePayment is a method settled outside the shop (an invoice, cash
// to the courier): nothing happens at checkout, and a refund is money the
// shop gives back by hand, recorded against the order's total.
type offlinePayment struct {
	code, label, instructions string
}

func (p offlinePayment) Code() string         { return p.code }
func (p offlinePayment) Label() string        { return p.label }
func (p offlinePayment) Instructions() string { return p.instructions }
func (p offlinePayment) PaysFirst() bool      { return false }
func (p offlinePayment) Begin(context.Context, Order, ReturnURLs) (string, error) {
	return "", nil
}

// SendRefund has nothing to ask: the shop gives the money back by hand,
// and the ledger records it.
func (p offlinePayment) SendRefund(context.Context, Order, Refund) (string, error) { return "", nil }

// offlineMethods are the methods every shop offers, in the order the
// checkout lists them; the first is the default.
func offlineMethods() []PaymentMethod {
	return []PaymentMethod{
		offlinePayment{PayInvoice, "Invoice", "We send an invoice with your parcel; pay it within 14 days."},
		offlinePayment{PayCOD, "Cash on delivery", "Pay the courier in cash when your parcel arrives."},
	}
}

// AddPaymentMethod offers one more payment method after the offline ones
// (the wiring adds the card when Stripe is configured). It is called
// before the service is used.
func (s *Service) AddPaymentMethod(p PaymentMethod) { s.payments = append(s.payments, p) }

// PaymentMethods lists the payment methods offered, the default first.
func (s *Service) PaymentMethods() []PaymentMethod { return s.payments }

// PaymentByCode finds an offered payment method.
func (s *Service) PaymentByCode(code string) (PaymentMethod, bool) {
	for _, p := range s.payments {
		if p.Code() == code {
			return p, true
		}
	}
	return nil, false
}
