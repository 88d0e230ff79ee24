// Package returns owns the returns of delivered orders: a shopper asks to
// return some of an order's lines within the return window (RETURN_DAYS
// from the order's delivered event), and the admin approves or rejects the
// request, receives the parcel (putting the stock back if asked) and
// refunds it through the order's payment method (orders.RefundOrder).
//
// A return's line is an order line, named by its item id (an order holds
// one line per item). A return moves requested -> approved | rejected,
// approved -> received -> refunding -> refunded; any other move is a
// *MoveError and changes nothing. A refund holds the return as refunding,
// with its amount, while the payment method gives the money back; the
// refund's own transaction marks it refunded when it is done (RefundDone,
// the orders' OnRefundDoneTx listener: at once, by the refunds worker, or
// settled by hand), and a refusal of the shop's ledger puts it back to
// received. A return stuck in refunding is settled by the admin: its
// refund tried again (RetryRefund) or recorded as given back by hand with
// a note (SettleByHand).
//
// The refund follows one rule, pricing.GoodsCharge.Refund: the share of
// what the order charged for its goods (the lines less the discount off
// them, plus their own tax when it was added; never the delivery, its
// free-delivery discount or its tax) of everything returned so far, less
// what the order's earlier returns gave back. A full return gives back
// the goods' charge to the cent, and returns of the parts add up to it.
// The orders' ledger never gives back more than was paid
// (orders.ErrRefundTooLarge).
//
// Tables: returns, return_lines (migrations 120, 133); it reads orders,
// order_lines and order_events, and puts stock back through the catalog's
// transaction helper. No Redis keys. The OnStepTx listeners write inside
// each step's transaction (the wiring queues the shopper's email there),
// so the step and its email commit or roll back together; a received
// return that restocked announces the items' change once committed.
//
// Invariants: a request locks its order row (FOR UPDATE on PostgreSQL;
// SQLite's transactions take the write lock at BEGIN), so two concurrent
// requests never return more than was bought: what was bought less what
// every return not rejected already holds. Every step is one conditional
// update on the status it read, so of two concurrent steps exactly one
// applies, and two refunds of one return give back the money once.
//
// Tests: returns_test.go (requests, refusals with nothing changed, the
// steps, restock, refunds, and the races on SQLite and PostgreSQL),
// rule_test.go (the refund rule across tax modes, code kinds, thresholds,
// partial and full returns and payment methods), settle_test.go (returns
// stuck in refunding, retried and settled by hand); the pages in
// handlers/returns_test.go and handlers/money_test.go.
package returns
