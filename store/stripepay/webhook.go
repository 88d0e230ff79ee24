package stripepay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"storefront/store/orders"
)

// ErrBadSignature means a webhook's Stripe-Signature is missing, wrong,
// too old or not from STRIPE_WEBHOOK_SECRET: the event is ignored.
var ErrBadSignature = errors.New("stripe webhook: bad signature")

// provider names Stripe in orders.PaymentConfirmation.
const provider = "stripe"

// Tolerance is how far an event's signed time may be from now, before or
// after, for it to be believed (Stripe's own default).
const Tolerance = webhook.DefaultTolerance

// HandleWebhook checks an event's signature and handles it:
// checkout.session.completed with payment_status paid goes to
// orders.ConfirmPayment (once per event id; the order is paid only when
// amount_total, in the order's currency, equals its total; a payment the
// order cannot keep is owed back in full). An event signed more than
// Tolerance before or after now is refused like a bad signature: an old
// one may be a replay, one from the future a forged clock. Other events
// change nothing. It returns the outcome (for logs and tests; "" for
// events it ignores) and an error only for a bad signature
// (ErrBadSignature) or a failure Stripe should retry. Every call to
// Stripe it makes is bounded by ctx's deadline.
func (m *Method) HandleWebhook(ctx context.Context, payload []byte, signature string) (string, error) {
	if m.cfg.WebhookSecret == "" {
		return "", fmt.Errorf("%w: STRIPE_WEBHOOK_SECRET is not set", ErrBadSignature)
	}
	ev, err := webhook.ConstructEventWithOptions(payload, signature, m.cfg.WebhookSecret,
		webhook.ConstructEventOptions{IgnoreAPIVersionMismatch: true, Tolerance: Tolerance})
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadSignature, err)
	}
	if at, ok := signedAt(signature); !ok || time.Until(at) > Tolerance {
		return "", fmt.Errorf("%w: signed in the future (%v)", ErrBadSignature, at)
	}
	if ev.Type != stripe.EventTypeCheckoutSessionCompleted || ev.Data == nil {
		return "", nil
	}
	var sess stripe.CheckoutSession
	if err := json.Unmarshal(ev.Data.Raw, &sess); err != nil {
		m.log.Warn("stripe webhook: unreadable checkout session", "event", ev.ID, "err", err)
		return "", nil
	}
	if sess.PaymentStatus != stripe.CheckoutSessionPaymentStatusPaid {
		return "", nil // paid later, by a delayed method: checkout.session.async_payment_succeeded is not used here
	}
	orderID, err := strconv.ParseInt(sess.ClientReferenceID, 10, 64)
	if err != nil || orderID <= 0 {
		m.log.Warn("stripe webhook: session without an order id", "event", ev.ID, "client_reference_id", sess.ClientReferenceID)
		return "", nil
	}
	ref := ""
	if sess.PaymentIntent != nil {
		ref = sess.PaymentIntent.ID
	}
	c := orders.PaymentConfirmation{Provider: provider, EventID: ev.ID, OrderID: orderID,
		AmountCents: sess.AmountTotal, Currency: string(sess.Currency), Ref: ref, Method: orders.PayCard, Session: sess.ID}
	if sess.Metadata["purpose"] == purposeBalance {
		return m.orders.ConfirmBalance(ctx, c) // the difference an edit asked for
	}
	return m.orders.ConfirmPayment(ctx, c)
}

// signedAt is the time in a Stripe-Signature header ("t=<unix>,v1=...").
func signedAt(header string) (time.Time, bool) {
	for part := range strings.SplitSeq(header, ",") {
		if v, ok := strings.CutPrefix(part, "t="); ok {
			t, err := strconv.ParseInt(v, 10, 64)
			return time.Unix(t, 0), err == nil
		}
	}
	return time.Time{}, false
}
