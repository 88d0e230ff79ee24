package stripepay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/stripe/stripe-go/v82"

	"storefront/store/orders"
)

// Config is the card method's knobs.
type Config struct {
	SecretKey     string // STRIPE_SECRET_KEY: the method is offered only when set
	WebhookSecret string // STRIPE_WEBHOOK_SECRET: signs the webhook's events
	// APIBase (STRIPE_API_BASE) replaces https://api.stripe.com, for
	// stripe-mock; "" is Stripe itself.
	APIBase string
	// Currency of the shop's prices, lower case (default "usd").
	Currency string
	// Hold is PAYMENT_HOLD: the Checkout Session expires about when the
	// order's hold does (Stripe allows 30 minutes to 24 hours).
	Hold time.Duration
}

// Method is the card payment method.
type Method struct {
	cfg    Config
	client *stripe.Client
	orders *orders.Service
	log    *slog.Logger
}

// New returns the card method over the orders it pays for.
func New(cfg Config, ords *orders.Service, log *slog.Logger) *Method {
	if cfg.Currency == "" {
		cfg.Currency = "usd"
	}
	if cfg.Hold <= 0 {
		cfg.Hold = orders.DefaultPaymentHold
	}
	var opts []stripe.ClientOption
	if cfg.APIBase != "" {
		retries := int64(2)
		backend := stripe.GetBackendWithConfig(stripe.APIBackend, &stripe.BackendConfig{
			URL: stripe.String(cfg.APIBase), MaxNetworkRetries: &retries,
			HTTPClient: &http.Client{Timeout: 30 * time.Second}, LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelError},
		})
		opts = append(opts, stripe.WithBackends(&stripe.Backends{API: backend, Connect: backend, Uploads: backend, MeterEvents: backend}))
	}
	return &Method{cfg: cfg, client: stripe.NewClient(cfg.SecretKey, opts...), orders: ords, log: log}
}

// Code is the form value and what the order stores.
func (m *Method) Code() string { return orders.PayCard }

// Label names the method for shoppers.
func (m *Method) Label() string { return "Card" }

// Instructions tell the shopper what happens next.
func (m *Method) Instructions() string {
	return "You pay by card on Stripe's secure page; we hold your items for you until the payment is confirmed."
}

// PaysFirst: a card order waits for its payment.
func (m *Method) PaysFirst() bool { return true }

// Begin creates the order's Checkout Session and returns its URL.
func (m *Method) Begin(ctx context.Context, o orders.Order, back orders.ReturnURLs) (string, error) {
	p := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		ClientReferenceID: stripe.String(strconv.FormatInt(o.ID, 10)),
		SuccessURL:        stripe.String(back.Done),
		CancelURL:         stripe.String(back.Cancel),
		LineItems:         m.lineItems(o),
		ExpiresAt:         stripe.Int64(time.Now().Add(sessionLife(m.cfg.Hold)).Unix()),
		Metadata:          map[string]string{"order_id": strconv.FormatInt(o.ID, 10)},
	}
	if o.Email != "" {
		p.CustomerEmail = stripe.String(o.Email)
	}
	// One session per order, even if the request is sent twice.
	p.SetIdempotencyKey("checkout-order-" + strconv.FormatInt(o.ID, 10))
	sess, err := m.client.V1CheckoutSessions.Create(ctx, p)
	if err != nil {
		return "", fmt.Errorf("stripe checkout session for order %d: %w", o.ID, err)
	}
	if sess.URL == "" {
		return "", fmt.Errorf("stripe checkout session for order %d: no URL", o.ID)
	}
	return sess.URL, nil
}

// sessionLife is how long a Checkout Session stays payable: the hold,
// within the 31 minutes to 24 hours Stripe accepts. A payment after the
// hold ran out is refunded (HandleWebhook).
func sessionLife(hold time.Duration) time.Duration {
	return min(max(hold, 31*time.Minute), 24*time.Hour)
}

// lineItems are the order's lines and its delivery, each in cents. When
// they do not add up to the order's total (a discount or tax the lines do
// not carry), the session has one line, the order, for its total: Stripe
// charges the total the order stores, whatever it is made of.
func (m *Method) lineItems(o orders.Order) []*stripe.CheckoutSessionCreateLineItemParams {
	line := func(name string, cents, qty int64) *stripe.CheckoutSessionCreateLineItemParams {
		return &stripe.CheckoutSessionCreateLineItemParams{Quantity: stripe.Int64(qty),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{Currency: stripe.String(m.cfg.Currency), UnitAmount: stripe.Int64(cents),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(name)}}}
	}
	var items []*stripe.CheckoutSessionCreateLineItemParams
	var sum int64
	for _, l := range o.Lines {
		items = append(items, line(l.Name, l.PriceCents, l.Qty))
		sum += l.PriceCents * l.Qty
	}
	if o.ShippingCents > 0 {
		items = append(items, line("Delivery", o.ShippingCents, 1))
		sum += o.ShippingCents
	}
	if sum != o.TotalCents || len(items) == 0 {
		return []*stripe.CheckoutSessionCreateLineItemParams{line("Order #"+strconv.FormatInt(o.ID, 10), o.TotalCents, 1)}
	}
	return items
}

// ErrNotPaid means a card order has no confirmed payment to refund.
var ErrNotPaid = errors.New("the card payment was never confirmed")

// Refund gives cents back through a Stripe refund of the order's payment,
// never more than Stripe confirmed in all (orders.ErrRefundTooLarge).
func (m *Method) Refund(ctx context.Context, o orders.Order, cents int64, actor string) (orders.Refund, error) {
	if o.PaymentRef == "" {
		return orders.Refund{}, fmt.Errorf("%w: %w", orders.ErrRefundTooLarge, ErrNotPaid)
	}
	return m.orders.RecordRefund(ctx, o.ID, cents, o.PaidCents, actor, func(ctx context.Context, refundID int64) (string, error) {
		return m.refund(ctx, o.PaymentRef, cents, "refund-"+strconv.FormatInt(refundID, 10))
	})
}

// refund asks Stripe to give cents of a PaymentIntent back.
func (m *Method) refund(ctx context.Context, paymentIntent string, cents int64, idempotencyKey string) (string, error) {
	p := &stripe.RefundCreateParams{PaymentIntent: stripe.String(paymentIntent), Amount: stripe.Int64(cents)}
	p.SetIdempotencyKey(idempotencyKey)
	r, err := m.client.V1Refunds.Create(ctx, p)
	if err != nil {
		return "", fmt.Errorf("stripe refund: %w", err)
	}
	return r.ID, nil
}
