// Package stripepay is the card payment method, through Stripe Checkout:
// the orders' PaymentMethod `card`, offered only when STRIPE_SECRET_KEY is
// set. Placing a card order leaves it awaiting_payment with its stock held
// (the orders package does that for any method that PaysFirst); Begin
// creates a Checkout Session for the order's total in cents, with the
// order's lines and client_reference_id = the order id, and returns the
// session's URL for the shopper. Stripe's webhook (HandleWebhook) is
// checked against STRIPE_WEBHOOK_SECRET and hands checkout.session.completed
// to orders.ConfirmPayment, which handles each event id once and pays the
// order only when the amount equals its total. Refund gives money back
// through a Stripe refund of the order's PaymentIntent, never more than
// Stripe confirmed (the orders' refund ledger takes the amount first).
// STRIPE_API_BASE points the client elsewhere (stripe-mock in tests and CI).
//
// It owns no Redis key; its tables belong to orders (payment_events, the
// refund ledger order_refunds, the order's paid_cents and payment_ref).
//
// Invariants: nothing changes for an event whose signature does not
// verify; a replayed event changes nothing; a payment that arrives after
// the order was cancelled (its hold ran out) is refunded in full, so an
// order is never both cancelled and charged.
//
// Tests: stripepay_test.go here (webhook signatures, replays, amount
// mismatches, the race with the payment hold, refunds, sessions against
// stripe-mock); the checkout through the router in handlers.
package stripepay
