// Package pricing owns what an order costs beyond its lines: discount
// codes, shipping zones and their rates, and tax rates by country, and the
// one computation (Compute) that turns lines, a code, a zone and a tax
// rate into the order's subtotal, discount, shipping, tax and total, in
// integer cents. The checkout (store/orders) asks it for the breakdown
// inside its transaction and takes a code's use there (TakeUse); a cancel
// gives the use back in its own transaction (GiveBack).
//
// Tables: discount_codes, discount_uses (one row per order that used a
// code), shipping_zones, tax_rates. No Redis key: the code a shopper
// applied is kept with the cart (store/cart).
//
// Rules: codes are case-insensitive (kept upper case in code_key); a code
// is 1 to 32 letters, digits, hyphens or underscores. Its days (starts,
// ends) are UTC calendar days, both included. A percent or amount discount
// comes off the lines, spread over them in proportion (largest remainder,
// so the parts add up to the discount); free_shipping takes the delivery
// price off, and on a delivery free anyway is not applied at all (Quote's
// Idle: no use taken, no code recorded). The free-delivery threshold is compared with the subtotal
// after the discount. Tax is computed per line, and on the delivery as one
// more line, at the delivery country's rate, each rounded half away from
// zero: with prices including tax (the default) the tax in a line of gross
// amount g at rate r is g*r/(100+r), otherwise g*r/100 is added.
//
// Codes and zones are retired, never deleted (archived_at): a retired code
// is refused ("retired") by the quote and by TakeUse's conditional update,
// a retired zone prices no delivery and takes no part in the countries'
// overlap check (bringing it back checks again); orders keep their own
// copy of both.
//
// What a return gives back is one rule too (refund.go,
// GoodsCharge.Refund): the share of what the order charged for its goods
// (never its delivery) of everything returned so far, less what earlier
// returns gave back.
//
// Invariants: a code's uses never exceed max_uses, nor a customer's (an
// account with its address, or a guest's address; addresses compared
// trimmed and in lower case) max_per_customer, however many checkouts
// race: the use is a conditional update of the code's row inside the
// order's transaction, and the per-customer count is read after that
// update has locked the row. used always equals the code's rows in
// discount_uses: a cancel deletes the row and lowers used together.
//
// Tests: pricing_test.go (the computation, rounding and parsing),
// refund_test.go (the refund rule, the free-delivery threshold),
// codes_test.go (a code's days, a free-delivery code idle),
// admin_test.go (codes, zones and tax rates as the admin saves them, on
// the test backends); the uses and their caps under racing checkouts, the
// give-back and the stored breakdown in store/orders/pricing_test.go; the
// pages in handlers/pricing_test.go and the browser in
// handlers/apptest/browser_pricing_test.go.
package pricing
