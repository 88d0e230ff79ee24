// Package stripepay is the card payment method, through Stripe Checkout:
// the orders' PaymentMethod `card`, offered only when STRIPE_SECRET_KEY is
// set. Placing a card order leaves it awaiting_payment with its stock held
// (the orders package does that for any method that PaysFirst); Begin
// creates a Checkout Session for the order's total in cents, with the
// order's lines and client_reference_id = the order id, its return pages
// on SHOP_URL (the caller's), records it on the order and returns the
// session's URL for the shopper; Resume ("pay now") returns the order's
// open session, or a new one. Stripe's webhook (HandleWebhook) is checked
// against STRIPE_WEBHOOK_SECRET, signed within Tolerance of now either
// way, and hands checkout.session.completed to orders.ConfirmPayment,
// which handles each event id once and pays the order only when the
// amount, in the order's currency (the shop's when it was placed), equals its total. SendRefund gives a
// refund of the orders' ledger back through a Stripe refund of the
// PaymentIntent (the refund's id as idempotency key), telling a refusal
// for good (orders.ErrRefundRefused) from a failure to reach Stripe.
// STRIPE_API_BASE points the client elsewhere (stripe-mock in tests and
// CI). Every call is bounded (callContext): at most CallTimeout, and
// within a request's deadline, so a Stripe that never answers cannot hold
// a request past REQUEST_TIMEOUT.
//
// It owns no Redis key; its tables belong to orders (payment_events, the
// refund ledger order_refunds, the order's paid_cents, payment_ref and
// payment_session).
//
// Invariants: nothing changes for an event whose signature does not
// verify; a replayed event changes nothing; a payment the order cannot
// keep (after the order was cancelled, or another amount or currency) is
// owed back in full by the orders, so an order is never both cancelled
// and charged.
//
// Tests (against stripe-mock, through storetest.StripeGate where Stripe
// must fail or hang): webhook_test.go (signatures, timestamps, replays,
// amounts, currency), hold_test.go (the race with the payment hold, the
// hold worker on two instances), refund_test.go (refunds never past the
// payment), cancel_test.go (cancels of paid orders refund, with Stripe
// down too, and the race of payments, cancels and the hold), owed_test.go
// (a late payment's refund owed and given back by the refunds worker on
// two instances), session_test.go; the checkout, "pay now" and the
// timeouts through the router in handlers.
package stripepay
