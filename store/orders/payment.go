package orders

import "context"

// PaymentMethod is one way to pay for an order. Checkout stores the
// method's code on the order and, once the order is placed, calls Begin.
// Invoice and cash on delivery need nothing more at checkout; a card
// provider would implement Begin to create the payment with the provider
// and return the provider's page to send the shopper to.
type PaymentMethod interface {
	// Code is the form value and what the order stores.
	Code() string
	// Label names the method for shoppers.
	Label() string
	// Instructions tell the shopper what happens next (order page).
	Instructions() string
	// Begin starts paying for a placed order. An empty URL means nothing
	// is left to do at checkout.
	Begin(ctx context.Context, o Order) (redirectURL string, err error)
}

// Payment method codes.
const (
	PayInvoice = "invoice"
	PayCOD     = "cod"
)

// offlinePayment is a method settled outside the shop (an invoice, cash
// to the courier): nothing happens at checkout.
type offlinePayment struct{ code, label, instructions string }

func (p offlinePayment) Code() string                                 { return p.code }
func (p offlinePayment) Label() string                                { return p.label }
func (p offlinePayment) Instructions() string                         { return p.instructions }
func (p offlinePayment) Begin(context.Context, Order) (string, error) { return "", nil }

// paymentMethods are the methods offered, in the order the checkout
// lists them; the first is the default.
var paymentMethods = []PaymentMethod{
	offlinePayment{PayInvoice, "Invoice", "We send an invoice with your parcel; pay it within 14 days."},
	offlinePayment{PayCOD, "Cash on delivery", "Pay the courier in cash when your parcel arrives."},
}

// PaymentMethods lists the payment methods offered, the default first.
func PaymentMethods() []PaymentMethod { return paymentMethods }

// PaymentByCode finds an offered payment method.
func PaymentByCode(code string) (PaymentMethod, bool) {
	for _, p := range paymentMethods {
		if p.Code() == code {
			return p, true
		}
	}
	return nil, false
}
