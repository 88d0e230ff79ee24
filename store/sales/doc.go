// Package sales owns the admin's business numbers: for a period (today,
// the last 7 or 30 days, in UTC), the revenue, the number of orders, the
// average order value, the conversion (orders per session seen), the
// refunds, the best sellers, the takings by hour or day for the charts,
// and the items running out of stock.
//
// It writes nothing and keeps nothing: every number is one SQL query over
// the orders tables (orders, order_lines) and the items table, read when
// the page is asked for, so the page is always what SQL says as orders
// happen. Sessions come from the sessions domain (Visitors, the `recent:`
// set). An order counts from the moment it is placed unless it was
// cancelled or is still awaiting its card payment (NotSold); its value is
// its total, what the shopper pays.
//
// Refunds: the refunds done in the period (order_refunds, written by
// the orders' refunds through each order's payment method), by when they
// were made, whatever the order's date.
//
// Tests: sales_test.go here (period edges, buckets, sessions, on a fixed
// clock) and, through the real router, handlers/admin_sales_test.go, which
// places orders, cancels and backdates some, and checks every number
// against a direct SQL query and the test's own sum.
package sales
