// Package keys is the one place where the shop's Redis keys, key
// prefixes, Pub/Sub channels, lease names and worker names are spelt.
// Every other package, tests and Lua scripts included, names a key
// through this package (scripts get the names or prefixes as KEYS or
// ARGV, never in their text).
//
// Layout rules:
//   - The original schema's names are kept (`login:`, `recent:`, `viewed:`,
//     `cart:`, `cache:`, `schedule:`, `delay:`, `inv:`, the board's
//     `article:`, `score:`, `time:`, `voted:`, `group:`), so checks and
//     operators that know them keep working.
//   - A session's keys are named by a short session id derived from its
//     cookie token (SessionID), in braces so that the session's viewed
//     list and guest cart share one Cluster slot.
//   - Keys that one multi-key command, transaction or script touches share
//     a hash tag: everything about one item carries {item:<id>}, about one
//     user {user:<id>}, the whole article board {a}, a cached page and its
//     render lock {cache:<hash>}. What spans two items or two users (the
//     leaderboards, a follow's two sides, a feed fan-out) is never one
//     atomic step; the domains that write them say how they stay right.
//   - Other keys (statistics, queues, leases, rate limits) are used by
//     single-key commands and need no tag.
//
// This package imports nothing of the shop. Its tests are keys_test.go.
package keys
