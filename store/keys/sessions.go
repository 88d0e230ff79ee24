package keys

import (
	"crypto/sha256"
	"encoding/base64"
	"strconv"
)

// Sessions and accounts.
const (
	// Login is the HASH session id -> user id of signed-in sessions.
	Login = "login:"
	// Recent is the ZSET session id -> last seen (Unix seconds, plus
	// SignedInScore when signed in) of every session.
	Recent = "recent:"
)

// Sessions are named in Redis by a short session id derived from the
// cookie token, not by the 66-character token itself: the id is in
// `recent:`, `login:` and in the name of each of the session's keys, so its
// length is paid four times per session, and a key listing (SCAN, MONITOR,
// a dump) no longer shows the bearer secret a cookie holds. 72 bits keep
// ids apart (with 10 million live sessions the chance that any two share an
// id is about n^2/2^73, one in a hundred million) and 12 characters fit the
// allocator's 16-byte size class where 16 would take 24 (measured with
// BenchmarkSessionMemory).
const sessionIDBytes = 9 // 72 bits: 12 base64url characters

// SessionID is the Redis name of the session whose cookie token is token:
// the first sessionIDBytes of its SHA-256. The token is 256 random bits
// the server issued and MACed, so the hash needs no key of its own to be
// unguessable and irreversible, and every instance derives the same id.
func SessionID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:sessionIDBytes])
}

// SignedInScore is added to a signed-in session's last-seen time in
// `recent:`, so that one ordered set keeps every session with all guests
// before all signed-in shoppers, each group least recently seen first:
// the cleanup evicts from the front and so evicts guests first. Unix
// seconds stay below it until the year 2286, and a double still resolves
// microseconds at its size.
const SignedInScore = 1e10

// The pieces SessionViewedOf, OldSessionViewedOf and GuestCartOf put
// around a session id (the cleanup script names a session's keys from
// them too).
const (
	SessionViewedPrefix    = "seen:{"
	OldSessionViewedPrefix = "viewed:{"
	GuestCartPrefix        = "cart:{"
	SessionKeyEnd          = "}"
)

// SessionViewed is the session's recently viewed items, newest first, as
// one STRING of unsigned varints (encoding/binary's, one per item id): 25
// ids take 25-75 bytes in one allocation, where a LIST of them took a
// quicklist, its node and a listpack (about 110 bytes more per session,
// measured with BenchmarkSessionMemory). It is rewritten whole by a small
// script (sessions.viewedScript). The braces make it share a Cluster slot
// with the session's guest cart, so the cleanup drops both with one
// UNLINK.
func SessionViewed(token string) string { return SessionViewedOf(SessionID(token)) }

// SessionViewedOf is SessionViewed for a session id.
func SessionViewedOf(sid string) string { return SessionViewedPrefix + sid + SessionKeyEnd }

// OldSessionViewedOf is where a session kept its viewed items before
// SessionViewed: a LIST of decimal ids, newest first. Sessions from before
// the change still have one; it is read while SessionViewed is missing,
// folded into SessionViewed at the session's next view, and deleted with
// the session like its other keys.
func OldSessionViewedOf(sid string) string { return OldSessionViewedPrefix + sid + SessionKeyEnd }

// GuestCart is a guest session's cart: item id -> quantity. A signed-in
// shopper's cart is the account's (AccountCart).
func GuestCart(token string) string { return GuestCartOf(SessionID(token)) }

// GuestCartOf is GuestCart for a session id.
func GuestCartOf(sid string) string { return GuestCartPrefix + sid + SessionKeyEnd }

// AccountCart is a signed-in account's cart: item id -> quantity, shared
// by the account's sessions and kept after they end. It carries the
// user's hash tag like the account's other keys.
func AccountCart(userID int64) string { return userTag(userID) + ":cart" }

// UserSessions is the HASH of the sessions the user signed in on:
// session id -> "<unix time signed in> <device>" (the device as the
// account page names it, from the User-Agent). Banning the user or
// changing the password ends them. It may name sessions that ended since
// (signed out, evicted); it is pruned at each sign-in.
func UserSessions(userID int64) string { return userTag(userID) + ":sessions" }

// UserDevices is the HASH session id -> device that accounts kept beside
// a ZSET UserSessions before the two became one; the sessions domain
// folds it into UserSessions the first time it touches the account, and
// deletes it.
func UserDevices(userID int64) string { return userTag(userID) + ":devices" }

// CheckoutLock guards one cart's checkout against a double submit: a
// guest session's (userID 0), or an account's (whose cart two devices
// share).
func CheckoutLock(userID int64, token string) string {
	if userID <= 0 {
		return "lock:checkout:" + SessionID(token)
	}
	return userTag(userID) + ":checkout-lock"
}

// Rate is one sliding-window rate limit log: every window of a rate is
// counted on this one set, so one script call checks them all.
func Rate(name, subject string) string { return "rate:" + name + ":{" + subject + "}" }

// The names of the rate limits (the <name> of `rate:<name>:{<subject>}`),
// each with the subject it counts per.
const (
	RateNewSession = "new-session" // new guest sessions, per client address
	RateLogin      = "login-user"  // failed sign-ins, per typed username and client address
	RateLoginAddr  = "login-ip"    // failed sign-ins, per client address
	RateRegister   = "register"    // new accounts, per client address
	RatePassword   = "password"    // password changes, per account
	RatePost       = "post"        // articles posted, per account
	RateVote       = "vote"        // votes, per account
	RateComment    = "comment"     // comments, per account
	RateFollow     = "follow"      // follows and unfollows, per account
	RateLike       = "like"        // likes and unlikes, per account
	RateReview     = "review"      // reviews posted or edited, per account
)

// SessionKeys are the Redis names of one session.
type SessionKeys struct {
	ID     string // the member of `recent:` and the field of `login:`
	Viewed string // the recently viewed items, packed (SessionViewed)
	Cart   string // the guest cart HASH
}

// OfSession names the Redis keys of the session whose cookie token is
// token, for tools and tests that look at a session in Redis.
func OfSession(token string) SessionKeys {
	sid := SessionID(token)
	return SessionKeys{ID: sid, Viewed: SessionViewedOf(sid), Cart: GuestCartOf(sid)}
}

// userTag is the hash tag of everything about one user.
func userTag(id int64) string { return "{user:" + strconv.FormatInt(id, 10) + "}" }

// itemTag is the hash tag of everything about one item.
func itemTag(id int64) string { return "{item:" + strconv.FormatInt(id, 10) + "}" }

// GuestCartCode is the discount code a guest applied to the session's
// cart, a STRING beside GuestCart (same hash tag); it expires on its own
// (cart.GuestCodeTTL) since the session cleanup does not name it.
func GuestCartCode(token string) string { return "discount:{" + SessionID(token) + SessionKeyEnd }

// AccountCartCode is the discount code applied to an account's cart, a
// STRING kept as long as the cart (ACCOUNT_CART_TTL without use).
func AccountCartCode(userID int64) string { return userTag(userID) + ":discount" }

// Two-factor sign-in.

// TwoFactorPending is the STRING "<user id> <next path>" of a sign-in
// whose password passed and whose second step has not yet: handle is the
// random value of the browser's pending cookie, named here by its digest
// so a key listing shows no cookie. It expires after a few minutes.
func TwoFactorPending(handle string) string {
	sum := sha256.Sum256([]byte(handle))
	return "2fa:pending:" + base64.RawURLEncoding.EncodeToString(sum[:18])
}

// TwoFactorSetup is the STRING holding an account's two-factor set-up in
// progress (its secret and recovery codes, sealed), until a code confirms
// it or it expires.
func TwoFactorSetup(userID int64) string {
	return "2fa:setup:" + strconv.FormatInt(userID, 10)
}

// TOTPUsed marks time step step of the user's authenticator as used
// (SET NX, expiring once the step can no longer be accepted), so each
// code signs in once.
func TOTPUsed(userID, step int64) string {
	return "2fa:used:{" + strconv.FormatInt(userID, 10) + "}:" + strconv.FormatInt(step, 10)
}
