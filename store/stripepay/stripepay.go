package stripepay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
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
	// Hold is PAYMENT_HOLD: the Checkout Session expires about when the
	// order's hold does (Stripe allows 30 minutes to 24 hours).
	Hold time.Duration
	// CallTimeout bounds one call to Stripe, retries included (default
	// DefaultCallTimeout); a call made in a request is bounded by the
	// request's deadline too (see callContext).
	CallTimeout time.Duration
}

// DefaultCallTimeout is the longest one call to Stripe may take.
const DefaultCallTimeout = 20 * time.Second

// Method is the card payment method.
type Method struct {
	cfg    Config
	client *stripe.Client
	orders *orders.Service
	log    *slog.Logger
}

// New returns the card method over the orders it pays for.
func New(cfg Config, ords *orders.Service, log *slog.Logger) *Method {
	if cfg.Hold <= 0 {
		cfg.Hold = orders.DefaultPaymentHold
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	// Each HTTP request gives up with the call (the context), at the
	// latest at CallTimeout: Stripe's own default of 80 s per try made a
	// webhook wait far past the request's budget. One quick retry (after
	// half a second; the client's pause ignores the context, so no more)
	// keeps a call within its budget plus that pause: what still fails is
	// tried again later (the refunds worker, "pay now").
	retries := int64(1)
	bc := &stripe.BackendConfig{MaxNetworkRetries: &retries, HTTPClient: &http.Client{Timeout: cfg.CallTimeout},
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelError}}
	if cfg.APIBase != "" {
		bc.URL = stripe.String(cfg.APIBase)
	}
	backend := stripe.GetBackendWithConfig(stripe.APIBackend, bc)
	client := stripe.NewClient(cfg.SecretKey, stripe.WithBackends(&stripe.Backends{API: backend, Connect: backend, Uploads: backend, MeterEvents: backend}))
	return &Method{cfg: cfg, client: client, orders: ords, log: log}
}

// callContext bounds one call to Stripe: at most CallTimeout, and, when
// ctx has a deadline (a request's REQUEST_TIMEOUT), three quarters of
// what is left of it, so that the request still has time to record the
// outcome and answer: a Stripe that accepts the connection and never
// answers cannot hold a request past its budget.
func (m *Method) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	budget := m.cfg.CallTimeout
	if d, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(d)*3/4)
	}
	return context.WithTimeout(ctx, budget)
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

// Begin creates the order's Checkout Session and returns its URL; the
// order keeps the session's id, for "pay now".
func (m *Method) Begin(ctx context.Context, o orders.Order, back orders.ReturnURLs) (string, error) {
	// One session per order, even if the request is sent twice.
	return m.newSession(ctx, o, back, "checkout-order-"+strconv.FormatInt(o.ID, 10))
}

// Resume is "pay now" for a card order still awaiting its payment: the
// order's Checkout Session while it is open, else (expired, or none) a new
// one for the order's total. A session paid already means the payment is
// on its way to the webhook: orders.ErrPaymentUnderway, so nobody pays
// twice.
func (m *Method) Resume(ctx context.Context, o orders.Order, back orders.ReturnURLs) (string, error) {
	if o.PaymentSession != "" {
		cctx, cancel := m.callContext(ctx)
		sess, err := m.client.V1CheckoutSessions.Retrieve(cctx, o.PaymentSession, nil)
		cancel()
		switch {
		case err != nil && !refused(err):
			return "", fmt.Errorf("stripe checkout session for order %d: %w", o.ID, err)
		case err == nil && sess.Status == stripe.CheckoutSessionStatusOpen && sess.URL != "":
			return sess.URL, nil
		case err == nil && sess.Status == stripe.CheckoutSessionStatusComplete:
			return "", orders.ErrPaymentUnderway
		}
	}
	// A new session, named by the one it replaces: a double click makes
	// one, and the expired one's idempotent answer is not given again.
	return m.newSession(ctx, o, back, "checkout-order-"+strconv.FormatInt(o.ID, 10)+"-after-"+o.PaymentSession)
}

// newSession creates a Checkout Session for order o (idempotencyKey makes
// a repeated request the same session), records it on the order and
// returns its URL.
func (m *Method) newSession(ctx context.Context, o orders.Order, back orders.ReturnURLs, idempotencyKey string) (string, error) {
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
	p.SetIdempotencyKey(idempotencyKey)
	cctx, cancel := m.callContext(ctx)
	defer cancel()
	sess, err := m.client.V1CheckoutSessions.Create(cctx, p)
	if err != nil {
		return "", fmt.Errorf("stripe checkout session for order %d: %w", o.ID, err)
	}
	if sess.URL == "" {
		return "", fmt.Errorf("stripe checkout session for order %d: no URL", o.ID)
	}
	if err := m.orders.SetPaymentSession(context.WithoutCancel(ctx), o.ID, sess.ID); err != nil {
		m.log.Error("stripe checkout session: recording it on the order", "order", o.ID, "session", sess.ID, "err", err)
	}
	return sess.URL, nil
}

// AskBalance sends the shopper to pay the difference an edit added to
// their card order (o.DueCents): the open Checkout Session that asks for
// it, else a new one, marked as a balance (metadata purpose=balance) so
// the webhook applies it to the difference and not to the order's
// total. A session paid already means the payment is on its way:
// orders.ErrPaymentUnderway.
func (m *Method) AskBalance(ctx context.Context, o orders.Order, back orders.ReturnURLs) (string, error) {
	if o.DueSession != "" {
		cctx, cancel := m.callContext(ctx)
		sess, err := m.client.V1CheckoutSessions.Retrieve(cctx, o.DueSession, nil)
		cancel()
		switch {
		case err != nil && !refused(err):
			return "", fmt.Errorf("stripe balance session for order %d: %w", o.ID, err)
		case err == nil && sess.Status == stripe.CheckoutSessionStatusOpen && sess.URL != "":
			return sess.URL, nil
		case err == nil && sess.Status == stripe.CheckoutSessionStatusComplete:
			return "", orders.ErrPaymentUnderway
		}
	}
	id := strconv.FormatInt(o.ID, 10)
	p := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		ClientReferenceID: stripe.String(id),
		SuccessURL:        stripe.String(back.Done),
		CancelURL:         stripe.String(back.Cancel),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{Currency: stripe.String(strings.ToLower(o.Currency)),
				UnitAmount:  stripe.Int64(o.DueCents),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String("Order #" + id + ": the difference after its change")}}}},
		ExpiresAt: stripe.Int64(time.Now().Add(24 * time.Hour).Unix()),
		Metadata:  map[string]string{"order_id": id, "purpose": purposeBalance},
	}
	if o.Email != "" {
		p.CustomerEmail = stripe.String(o.Email)
	}
	// One session per edit's amount, even if the request is sent twice.
	p.SetIdempotencyKey("balance-order-" + id + "-v" + strconv.FormatInt(o.EditVersion, 10) + "-after-" + o.DueSession)
	cctx, cancel := m.callContext(ctx)
	defer cancel()
	sess, err := m.client.V1CheckoutSessions.Create(cctx, p)
	if err != nil {
		return "", fmt.Errorf("stripe balance session for order %d: %w", o.ID, err)
	}
	if sess.URL == "" {
		return "", fmt.Errorf("stripe balance session for order %d: no URL", o.ID)
	}
	if err := m.orders.SetDueSession(context.WithoutCancel(ctx), o.ID, o.DueCents, sess.ID); err != nil {
		m.log.Error("stripe balance session: recording it on the order", "order", o.ID, "session", sess.ID, "err", err)
	}
	return sess.URL, nil
}

// purposeBalance marks the Checkout Sessions that ask for the difference
// an edit added to an order.
const purposeBalance = "balance"

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
	// The order's own currency, recorded when it was placed: Stripe takes
	// amounts in its minor unit, as the order keeps them.
	currency := strings.ToLower(o.Currency)
	line := func(name string, cents, qty int64) *stripe.CheckoutSessionCreateLineItemParams {
		return &stripe.CheckoutSessionCreateLineItemParams{Quantity: stripe.Int64(qty),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{Currency: stripe.String(currency), UnitAmount: stripe.Int64(cents),
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

// Refund gives cents of a card order's payment back (orders.RefundOrder
// through this method): never more than Stripe confirmed in all
// (orders.ErrRefundTooLarge), nothing for an order never paid.
func (m *Method) Refund(ctx context.Context, o orders.Order, cents int64, actor string) (orders.Refund, error) {
	if o.PaymentRef == "" {
		return orders.Refund{}, fmt.Errorf("%w: %w", orders.ErrRefundTooLarge, ErrNotPaid)
	}
	return m.orders.RefundOrder(ctx, o.ID, cents, actor)
}

// SendRefund asks Stripe to give refund r back: a refund of the payment
// r names (a payment the order could not keep), else of the order's, for
// r's amount, with "refund-<id>" as the idempotency key, so that asking
// again for the same refund (the refunds worker after a timeout) never
// refunds twice. Stripe's refusal of the request (a 4xx other than a
// conflict or a rate limit) wraps orders.ErrRefundRefused; anything else
// (no answer, a 5xx) may be tried again.
func (m *Method) SendRefund(ctx context.Context, o orders.Order, r orders.Refund) (string, error) {
	pi := r.PaymentRef
	if pi == "" {
		pi = o.PaymentRef
	}
	if pi == "" {
		return "", fmt.Errorf("%w: %w", orders.ErrRefundRefused, ErrNotPaid)
	}
	p := &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi), Amount: stripe.Int64(r.Cents)}
	p.SetIdempotencyKey("refund-" + strconv.FormatInt(r.ID, 10))
	p.AddMetadata("order_id", strconv.FormatInt(o.ID, 10))
	p.AddMetadata("refund_id", strconv.FormatInt(r.ID, 10))
	ctx, cancel := m.callContext(ctx)
	defer cancel()
	ref, err := m.client.V1Refunds.Create(ctx, p)
	if err != nil {
		if refused(err) {
			return "", fmt.Errorf("stripe refund: %w: %w", orders.ErrRefundRefused, err)
		}
		return "", fmt.Errorf("stripe refund: %w", err)
	}
	return ref.ID, nil
}

// refused reports whether Stripe answered a request with a refusal that
// asking again will not change.
func refused(err error) bool {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.HTTPStatusCode
	return c >= 400 && c < 500 && c != http.StatusConflict && c != http.StatusTooManyRequests
}
