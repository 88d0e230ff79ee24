// Package returns owns the returns of delivered orders: a shopper asks to
// return some of an order's lines within the return window (RETURN_DAYS
// from the order's delivered event), and the admin approves or rejects the
// request, receives the parcel (putting the stock back if asked) and
// refunds it through the order's payment method (orders.RefundOrder).
//
// A return's line is an order line, named by its item id (an order holds
// one line per item). A return moves requested -> approved | rejected,
// approved -> received -> refunded; any other move is a *MoveError and
// changes nothing. A refund holds the return as refunding while the
// payment method gives the money back, then marks it refunded, or puts it
// back to received if the method refused.
//
// The refund is the returned lines' share of what the order charged for
// its goods: the lines' price paid times the quantity returned, less the
// same share of the order's discount, plus the same share of the tax when
// the tax was added on top of the prices (included tax is already in the
// prices). Delivery is not refunded. orders.RefundOrder never gives back
// more than was paid (orders.ErrRefundTooLarge).
//
// Tables: returns, return_lines (migration 120); it reads orders,
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
// steps, restock, refunds, and the races on SQLite and PostgreSQL); the
// pages in handlers/returns_test.go.
package returns
