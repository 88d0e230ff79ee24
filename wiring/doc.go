// Package wiring builds the shop's data layer the one way main builds it:
// every domain service of store/, the event hooks between them, the
// background workers and the Prometheus collectors, and the order in which
// they stop. main.go calls it; so do the tests that need the whole shop
// (through wiring/wiringtest), which is why it is a package and not a file
// of package main.
//
// The hooks registered here are every effect one domain has on another:
//   - an item change (catalog) purges the item's pages (pagecache) and
//     moves the search version (search); a purge of every page tells
//     search too;
//   - a placed order (orders) grows the "also bought" statistics
//     (analytics) on the checkout's own pipeline; a status change notifies
//     the shopper (notify);
//   - the board's posts, votes, comments and hides reach feeds, counters
//     and notifications (social);
//   - the reviews' memo follows the page cache's purge epochs;
//   - a placed order, an order's move, a registration, an address change
//     and a password reset request write their email to the outbox (mail)
//     inside their own transaction (mail.go renders them from views/email).
//
// Services holds each domain service in a field of its own (no embedding:
// nobody gets a facade with every domain's methods); main hands them to
// handlers.New, which gives each HTTP area only the services it uses. Its
// own methods are the few that span the shop (migrations, seeding,
// workers, collectors, clock, shutdown).
//
// Tests: the whole suite runs on it; wiring_test.go checks that the hooks
// are registered, mail_test.go that the emails live and die with their
// transaction and reach a real SMTP server, importgraph_test.go that the packages of store/ import
// only what their layer allows (the layering as a table: platform and
// keys at the bottom, then workers and the rate limiter, then the domains
// from those that need no other domain up to the page cache, the
// statistics and the seeding; never the HTTP layer, the views or this
// package), and importgraph_http_test.go the same of the HTTP layer (the
// areas under handlers/ share only handlers/web and never import each
// other).
package wiring
