// Package cart owns the shoppers' carts: a guest session's cart
// (`cart:{<session id>}`, keys.GuestCart, ending with its session) and a
// signed-in account's cart (`{user:<id>}:cart`, keys.AccountCart, shared
// by the account's devices, kept across sign-out and session eviction for
// ACCOUNT_CART_TTL without use). Each is a HASH of lines -> quantity,
// a line's field being the item id for an item without options (its
// implicit variant) and "<item id>:<variant id>" for a variant.
// Beside each cart, a STRING holds the discount code the shopper applied
// (keys.GuestCartCode, expiring GuestCodeTTL after the cart was last read;
// keys.AccountCartCode, kept as long as the account's cart); Cart reads it
// with the lines, and a checkout clears it with the ordered lines.
//
// Other domains reach the carts through its helpers: the session read of
// every page counts the header's items on its own pipeline (AddCount, or
// CountOf through the client-side cache), sign-in merges a guest cart
// into the account's (AddGuestRead, AddMerge), and a checkout takes the
// ordered lines out (AddRemoveOrdered).
//
// Invariants: a line is set, never added to, atomically with the cap of
// MaxLines lines; merging at sign-in lets the guest's quantity win and is
// safe to replay; a checkout removes only lines still as ordered.
// Validating items and quantities against the catalog is the caller's.
//
// Tests: cart_test.go here; the cart pages in handlers.
package cart
