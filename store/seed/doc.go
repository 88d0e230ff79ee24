// Package seed fills an empty shop with deterministic demo data: the
// catalog (DemoItems, the same ids and names on every machine), generated
// pictures per product type and colour (drawn once and kept in the user's
// cache directory between starts), the admin account, and a board of demo
// articles with votes and comments.
//
// It owns no keys or tables: it writes through the domains that do.
// Invariants: every step is idempotent and safe with several instances
// seeding one database at once.
//
// Tests: pictures_test.go, pictures_cache_test.go and drawings_test.go
// (every product type drawn, distinct and deterministic; a contact sheet
// to look at) here.
package seed
