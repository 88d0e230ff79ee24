package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"

	"storefront/store/sessions"
)

// Cookie names.
const (
	tokenCookie = "sid"
	userCookie  = "user"
	flashCookie = "flash"
)

// userCookieMaxAge bounds how long a signed `user` cookie is accepted. The
// `sid` cookie lives as long, so that a shopper stays signed in (and keeps a
// cart) across browser restarts until the cleanup evicts the session.
const userCookieMaxAge = 30 * 24 * time.Hour

// maxCookieLen is longer than any cookie we issue; longer ones are
// rejected before any decoding work.
const maxCookieLen = 2048

// CookieKey is one signing pair: an HMAC-SHA256 hash key and an optional
// AES block key.
type CookieKey struct {
	Hash, Block []byte
}

// CookieKeys are the keys in force: the first pair signs, all verify.
type CookieKeys []CookieKey

// ParseCookieKeys reads COOKIE_KEYS: comma-separated base64 keys, each hash
// key (33 bytes or more; 64 recommended) optionally followed by its block
// key (16, 24 or 32 bytes).
func ParseCookieKeys(s string) (CookieKeys, error) {
	var keys CookieKeys
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		b, err := decodeKey(part)
		if err != nil {
			return nil, fmt.Errorf("key %d is not base64", i+1)
		}
		switch n := len(b); {
		case n > 32:
			keys = append(keys, CookieKey{Hash: b})
		case (n == 16 || n == 24 || n == 32) && len(keys) > 0 && keys[len(keys)-1].Block == nil:
			keys[len(keys)-1].Block = b
		default:
			return nil, fmt.Errorf("key %d: a hash key needs more than 32 bytes, a block key (after a hash key) 16, 24 or 32", i+1)
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("no keys")
	}
	return keys, nil
}

func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// GenerateCookieKeys makes a fresh COOKIE_KEYS value: a 64-byte hash key
// and a 32-byte block key.
func GenerateCookieKeys() string {
	return base64.StdEncoding.EncodeToString(securecookie.GenerateRandomKey(64)) + "," +
		base64.StdEncoding.EncodeToString(securecookie.GenerateRandomKey(32))
}

func (k CookieKeys) codecs() []securecookie.Codec {
	out := make([]securecookie.Codec, len(k))
	for i, key := range k {
		sc := securecookie.New(key.Hash, key.Block)
		sc.SetSerializer(securecookie.JSONEncoder{})
		sc.MaxAge(int(userCookieMaxAge.Seconds()))
		sc.MaxLength(maxCookieLen)
		out[i] = sc
	}
	return out
}

// Tokens are 32 bytes (random, or for a first visit the time it was
// made, then random; see sessions.TokenBody) followed by a 16-byte MAC of them, both base64url:
// the MAC lets any instance tell a token of the shop's from a forged one
// without asking Redis.
const (
	tokenRandBytes = 32
	tokenMACBytes  = 16
	tokenLen       = 43 + 1 + 22
)

// NewToken is a fresh token for a session created with it.
func (k *Kit) NewToken() string {
	return signToken(k.cfg.CookieKeys[0].Hash, sessions.TokenBody(time.Time{}, false))
}

// NewVisitToken is a fresh token for a first visit, whose session is
// created behind: it carries the time it was made (sessions.Pending).
func (k *Kit) NewVisitToken() string {
	return signToken(k.cfg.CookieKeys[0].Hash, sessions.TokenBody(time.Now(), true))
}

// signToken appends the MAC of the random part r.
func signToken(key []byte, r string) string {
	return r + "." + base64.RawURLEncoding.EncodeToString(tokenMAC(key, r))
}

// validToken reports whether a token carries a MAC made with any key in force.
func (k *Kit) validToken(t string) bool {
	if len(t) != tokenLen {
		return false
	}
	now := time.Now()
	if _, ok := k.tokens.Get(t, now); ok {
		return true
	}
	if !k.checkTokenMAC(t) {
		return false
	}
	k.tokens.Put(t, userClaim{}, now.Add(cookieMemoTTL))
	return true
}

// checkTokenMAC verifies a token's MAC against every key in force.
func (k *Kit) checkTokenMAC(t string) bool {
	r, _, ok := strings.Cut(t, ".")
	if !ok {
		return false
	}
	// Compare whole encoded tokens, not decoded MACs: base64 decoding
	// ignores the last character's spare bits, so several strings would
	// carry one MAC, and a token the server never issued would pass.
	for _, k := range k.cfg.CookieKeys {
		if hmac.Equal([]byte(t), []byte(signToken(k.Hash, r))) {
			return true
		}
	}
	return false
}

func tokenMAC(key []byte, r string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("sid:" + r))
	return m.Sum(nil)[:tokenMACBytes]
}

// userClaim is the signed `user` cookie: who signed in, when, and on which
// token (a hash of it), so it cannot be replayed with another session.
type userClaim struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Admin   bool   `json:"admin,omitempty"`
	LoginAt int64  `json:"at"`
	Token   string `json:"tok"`
}

func tokenBinding(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// decodeUser returns the claim in a `user` cookie if it verifies with any
// key in force and is bound to token; anything else is "anonymous".
func (k *Kit) decodeUser(value, token string) (userClaim, bool) {
	if value == "" || token == "" || len(value) > maxCookieLen {
		return userClaim{}, false
	}
	now := time.Now()
	key := token + "\x00" + value
	if c, ok := k.users.Get(key, now); ok {
		return c, true
	}
	var c userClaim
	if err := securecookie.DecodeMulti(userCookie, value, &c, k.codecs...); err != nil {
		return userClaim{}, false
	}
	if c.ID <= 0 || c.Token != tokenBinding(token) {
		return userClaim{}, false
	}
	k.users.Put(key, c, now.Add(cookieMemoTTL))
	return c, true
}

// SetSignedIn sends the cookies of a sign-in: the new token and the
// signed `user` claim bound to it. The session speaks for the user from
// here on.
func (k *Kit) SetSignedIn(c echo.Context, s *Session, token string, u sessions.User) error {
	claim := userClaim{ID: u.ID, Name: u.Username, Admin: u.IsAdmin, LoginAt: time.Now().Unix(), Token: tokenBinding(token)}
	v, err := securecookie.EncodeMulti(userCookie, claim, k.codecs[0])
	if err != nil {
		return fmt.Errorf("encode user cookie: %w", err)
	}
	k.setCookie(c, tokenCookie, token, 0)
	k.setCookie(c, userCookie, v, userCookieMaxAge)
	s.Token, s.UserID, s.UserName, s.IsAdmin = token, u.ID, u.Username, u.IsAdmin
	return nil
}

func (k *Kit) setCookie(c echo.Context, name, value string, maxAge time.Duration) {
	if name == tokenCookie {
		maxAge = userCookieMaxAge
	}
	ck := &http.Cookie{
		Name: name, Value: value, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: k.secure(c),
	}
	if maxAge > 0 {
		ck.MaxAge = int(maxAge.Seconds())
	}
	c.SetCookie(ck)
}

func (k *Kit) clearCookie(c echo.Context, name string) {
	c.SetCookie(&http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: k.secure(c)})
}

// secure decides the Secure flag: with "auto" it is on for HTTPS requests,
// believing X-Forwarded-Proto only from TRUSTED_PROXIES.
func (k *Kit) secure(c echo.Context) bool {
	switch k.cfg.CookieSecure {
	case SecureAlways:
		return true
	case SecureNever:
		return false
	}
	r := c.Request()
	if r.TLS != nil {
		return true
	}
	return k.fromTrustedProxy(r) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// SetFlash leaves a one-time message for the page after a redirect.
func (k *Kit) SetFlash(c echo.Context, msg string) {
	k.setCookie(c, flashCookie, base64.RawURLEncoding.EncodeToString([]byte(msg)), time.Minute)
}

// takeFlash reads and clears the flash message.
func (k *Kit) takeFlash(c echo.Context) string {
	ck, err := c.Cookie(flashCookie)
	if err != nil || ck.Value == "" || len(ck.Value) > 400 {
		return ""
	}
	k.clearCookie(c, flashCookie)
	b, err := base64.RawURLEncoding.DecodeString(ck.Value)
	if err != nil {
		return ""
	}
	return string(b)
}
