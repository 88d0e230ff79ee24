package web

import "time"

// The cookie memos (Kit.tokens, Kit.users) remember cookies this process
// verified lately, so that a returning visitor's cached page costs no
// HMAC, AES or JSON work: a hit is a few microseconds, and verifying the
// two cookies was a fifth of it. Only cookies that passed are kept, each
// for at most cookieMemoTTL (so a cookie is never accepted more than that
// past its own expiry), and a memo starts over past cookieMemoMax entries
// (platform.Memo): a flood of forged cookies is verified in full and never
// stored.
const (
	cookieMemoTTL = time.Minute
	cookieMemoMax = 50_000
)
