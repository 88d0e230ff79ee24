// Package sessions owns who a visitor is: cookie tokens' sessions in
// Redis, the accounts in SQL (users), signing in and out, passwords,
// bans, lifting them and the list of the banned, the accounts' email
// addresses and the emailed single-use links (verification and password
// reset, whose emails the OnTokenTx listeners write in the same
// transaction; ReissueToken makes a link's token again as its email is
// sent, so the outbox stores none), the cap of new guest
// sessions per client address, each account's list of sessions, and the
// cleanup that keeps at most SESSION_LIMIT sessions.
//
// Redis keys: `recent:` (every session, last seen; signed-in ones ranked
// after every guest by keys.SignedInScore), `login:` (signed-in session ->
// user), a session's viewed items `seen:{<sid>}` (with its guest cart and
// the `viewed:{<sid>}` list sessions kept them in before, in one slot), `{user:<id>}:sessions` (each
// session an account signed in on, when, and the device it signed in
// from, for the account page; the `{user:<id>}:devices` of older
// accounts is folded into it when first touched), the
// `new-session` rate limit, and the `cleanup` lease and worker report.
// Tables: users, account_tokens (the links: only the SHA-256 of each
// secret, single use), and cookie_keys (the
// keys that sign the cookies and tokens when COOKIE_KEYS is not set, one
// row shared by every instance: SharedCookieKeys), user_totp and
// user_recovery_codes (two-factor sign-in, twofactor.go: the TOTP secret
// sealed by the HTTP layer, the recovery codes as digests; with the
// `2fa:pending:`, `2fa:setup:` and `2fa:used:` keys).
//
// One round trip per page: the session read (AddLoad) carries the cart's
// count (cart.AddCount) and the unread count (notify.AddUnread); the page
// cache adds its own reads to the same pipeline, or reads through the
// client-side cache with ReadCached, and writes a cached hit's touch and
// views behind with AddTouch and AddViews (AddAlive and AddDropIfGone
// learn behind that a guest's session ended).
//
// First visits (firstvisit.go): a first visit's token carries the time it
// was made; its session is created behind by the page cache, counted
// against the address's cap there (AdmitNew), and until then, for
// PendingAge, a token Redis does not know counts as that new session.
//
// Invariants: a token the server never issued creates no server state;
// signing in rotates the token and keeps the cart and viewed items;
// ending a session deletes every key and entry it has; the cleanup evicts
// guests before signed-in shoppers and is safe from several instances and
// on a Cluster; a ban or a password change ends the account's sessions at
// once.
//
// Tests: sessions_test.go, viewed_test.go, cap_test.go, cleanup_test.go, bench_test.go
// (external) and accounts_internal_test.go here; the shared cookie keys
// in the program's startup_test.go and handlers/apptest
// (TestInstancesShareGeneratedCookieKeys).
package sessions
