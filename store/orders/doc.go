// Package orders owns what happens once a shopper buys: the checkout (one
// database transaction that takes the stock, snapshots prices, prices the
// order through store/pricing (discount, the delivery zone's rate, tax),
// takes the discount code's use and writes the order with its money
// breakdown), the order lifecycle (pending, processed, paid, shipped,
// delivered; cancelled until it ships, with the stock and the code's use
// back), fulfilment through a reliable queue, payment methods, delivery
// methods, delivery addresses (every ISO 3166 country, the region where a
// country needs one, an optional phone), the admin's list of orders and the admin's
// notes on an order (never edited, never shown to the shopper).
//
// Payments: the methods sit behind PaymentMethod (invoice and cash on
// delivery here; the card is store/stripepay's, added at wiring). An
// order whose method PaysFirst is placed as awaiting_payment with its
// stock held; ConfirmPayment (a provider's event, each event id once)
// pays it when the amount equals its total, and the payment hold worker
// cancels it after PaymentHold; "pay now" (PayNow) resumes its payment.
// A payment the order cannot keep (late, or another amount) is owed back
// in its event's transaction. Refunds go through the order's method and
// the refund ledger (IssueRefund, refunds.go; the lists in refundlist.go),
// never past what was paid: the amount is taken with the refund's row,
// owed, then the method's SendRefund gives it back; one not given back
// yet stays owed and the refunds worker (refundowed.go) tries it again
// until the provider says done; the admin retries or settles one by hand.
// A cancel of a charged order takes its refund in the cancel's
// transaction (cancelrefund.go). An order is edited before it ships
// (EditOrder, edit.go): its row taken first (edit_version), the stock of
// the changed lines moved, the order priced again through
// pricing.Reprice, and the difference refunded, or asked of the shopper
// (due_cents; a BalanceAsker method's page, paid through ConfirmBalance,
// balance.go), with an order note; an order with a difference due does
// not ship.
//
// Tables: orders, order_lines, order_events, order_notes, order_refunds,
// invoice_counter (the next invoice number, taken in the checkout's
// transaction: invoice.go),
// payment_events (and it reads the users table to refuse a banned buyer
// inside the checkout's transaction, and to read the account's address
// for a code's per-customer cap). Redis keys: `orders:queue` (a Stream
// read by the `fulfilment` group), the checkout locks (keys.CheckoutLock),
// the `fulfilment-sweep`, `payment-hold` and `refunds` leases and the
// `fulfilment`, `payment-hold` and `refunds` worker reports.
//
// Effects on other domains: a checkout takes stock through the catalog's
// transaction helpers and announces the items' change (catalog.Changed)
// once committed; the OnPlaced listeners add their writes to the pipeline
// that empties the cart (the analytics' "also bought"), and the OnStatus
// listeners hear of every status change (the shopper's notification).
// The OnPlacedTx and OnStatusTx listeners write inside the checkout's and
// the move's transaction (the emails' outbox rows), so the change and its
// writes commit or roll back together; the OnRefundDoneTx listeners write
// inside the transaction that records a refund done (the return it was
// for becomes refunded). Shipping keeps the carrier's
// tracking number (orders.tracking, ShipOrder).
//
// Invariants: concurrent checkouts never sell more than the stock (one
// conditional update per line, in item id order so PostgreSQL cannot
// deadlock); a double submit places one order (a lock per cart); an order
// only moves forward, and of two racing moves one applies; fulfilment is
// at least once and idempotent, and nothing is lost if a worker dies (the
// group's pending entries are reclaimed, and a sweep of the database
// covers an order whose id never reached the queue); of a payment and the
// hold's cancel racing for one order exactly one applies (both are
// conditional on awaiting_payment); refunds are taken by one conditional
// update, so concurrent ones never exceed the payment; no order is
// cancelled and charged (a cancel owes back what was paid, a payment
// after a cancel is owed back, once per payment); a refund is tried by
// one claimant at a time (claimed_until), with one idempotency key.
//
// Tests: checkout_test.go, lifecycle_test.go, fulfilment_test.go,
// pricing_test.go and codes_test.go (codes under racing checkouts, also on
// different items, per-customer caps by address, free delivery at the
// threshold, a code's days, give-back, zones, tax) (external) and
// checkout_internal_test.go here; payments, the hold, cancels of paid
// orders, refunds owed and the refunds worker in store/stripepay's tests.
package orders
