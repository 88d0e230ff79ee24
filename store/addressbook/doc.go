// Package addressbook owns members' saved delivery addresses (table
// addresses): add, edit, delete, choose the default; checkout offers them
// and fills in the default.
//
// No Redis keys: addresses are read on the account page and at checkout,
// never on a cached page.
//
// Invariants: an account holds at most MaxAddresses; at most one of them
// is the default, and once it has any, exactly one (the first saved
// becomes the default, deleting the default promotes the oldest left);
// every read and write names the account, so one member never reads or
// changes another's address (a foreign id is platform.ErrNotFound).
//
// Tests: addressbook_test.go here (SQLite, or PostgreSQL with
// DATABASE_URL); the account page and checkout over HTTP in handlers.
package addressbook
