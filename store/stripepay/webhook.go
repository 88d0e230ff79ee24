package stripepay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"

	"storefront/store/orders"
)

// ErrBadSignature means a webhook's Stripe-Signature is missing, wrong,
// too old or not from STRIPE_WEBHOOK_SECRET: the event is ignored.
var ErrBadSignature = errors.New("stripe webhook: bad signature")

// provider names Stripe in orders.PaymentConfirmation.
const provider = "stripe"

// HandleWebhook checks an event's signature and handles it:
// checkout.session.completed with payment_status paid goes to
// orders.ConfirmPayment (once per event id; the order is paid only when
// amount_total equals its total). Other events change nothing. It
// returns the outcome (for logs and tests; "" for events it ignores) and
// an error only for a bad signature (ErrBadSignature) or a failure Stripe
// should retry.
func (m *Method) HandleWebhook(ctx context.Context, payload []byte, signature string) (string, error) {
	if m.cfg.WebhookSecret == "" {
		return "", fmt.Errorf("%w: STRIPE_WEBHOOK_SECRET is not set", ErrBadSignature)
	}
	ev, err := webhook.ConstructEventWithOptions(payload, signature, m.cfg.WebhookSecret,
		webhook.ConstructEventOptions{IgnoreAPIVersionMismatch: true})
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadSignature, err)
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
	outcome, err := m.orders.ConfirmPayment(ctx, orders.PaymentConfirmation{Provider: provider, EventID: ev.ID,
		OrderID: orderID, AmountCents: sess.AmountTotal, Ref: ref})
	if err != nil {
		return "", err
	}
	if outcome == orders.PaymentTooLate {
		m.refundLate(ctx, ev.ID, orderID, ref, sess.AmountTotal)
	}
	return outcome, nil
}

// refundLate gives back a payment for an order that no longer awaits it
// (its hold ran out and it was cancelled, its stock released): the
// shopper must not pay for an order they will not get. An order paid by
// an earlier event keeps that payment; a second, different payment for
// it is given back too.
func (m *Method) refundLate(ctx context.Context, eventID string, orderID int64, ref string, cents int64) {
	ctx = context.WithoutCancel(ctx)
	o, err := m.orders.OrderAny(ctx, orderID)
	if err != nil {
		m.log.Error("stripe webhook: late payment: reading the order", "order", orderID, "err", err)
		return
	}
	if ref == "" || cents <= 0 || o.PaymentRef == ref { // the same payment, confirmed by an earlier event
		return
	}
	id, err := m.refund(ctx, ref, cents, "late-"+eventID)
	if err != nil {
		m.log.Error("stripe webhook: late payment: refund failed, refund it by hand", "order", orderID, "payment_intent", ref, "err", err)
		return
	}
	m.log.Warn("stripe webhook: payment for an order no longer awaiting it: refunded in full", "order", orderID,
		"status", o.Status, "payment_intent", ref, "refund", id)
}
