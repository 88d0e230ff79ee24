package web

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/store/sessions"
)

// The pending cookie holds a random handle naming a sign-in whose
// password passed and whose second step (a TOTP or recovery code) has
// not: it binds that state to the browser that typed the password, and
// it expires with the state.
const (
	pendingCookie = "tfa"
	// PendingSignInTTL is how long the second step may wait.
	PendingSignInTTL = 5 * time.Minute
)

// TwoFactorRequired reports whether role must sign in with two factors
// (STAFF_2FA). Shoppers ("") never must.
func (k *Kit) TwoFactorRequired(role string) bool {
	return role != "" && slices.Contains(k.cfg.StaffTwoFactor, role)
}

// requireTwoFactor leads a staff account whose role needs two-factor
// sign-in, and has not set it up, to its set-up page before any admin
// page.
func (k *Kit) requireTwoFactor(c echo.Context, u sessions.User) error {
	if !k.TwoFactorRequired(string(u.Role)) {
		return nil
	}
	t, err := k.deps.Sessions.TwoFactor(c.Request().Context(), u.ID)
	if err != nil || t.Enabled {
		return err
	}
	k.SetFlash(c, "Your role needs two-factor sign-in: turn it on to reach the shop's admin pages.")
	return Redirect(c, "/account/two-factor")
}

// SetPendingSignIn gives the browser the handle of its pending sign-in.
func (k *Kit) SetPendingSignIn(c echo.Context, handle string) {
	k.setCookie(c, pendingCookie, handle, PendingSignInTTL)
}

// PendingSignIn is the browser's pending sign-in handle, "" for none.
func PendingSignIn(c echo.Context) string {
	ck, err := c.Cookie(pendingCookie)
	if err != nil || len(ck.Value) != 43 {
		return ""
	}
	return ck.Value
}

// ClearPendingSignIn drops the browser's pending sign-in cookie.
func (k *Kit) ClearPendingSignIn(c echo.Context) { k.clearCookie(c, pendingCookie) }

// NewHandle is 256 random bits, base64url (43 characters).
func NewHandle() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Sealing keeps secrets at rest (an authenticator's TOTP secret) readable
// only with the cookie keys: a copy of the database alone mints no codes.
// The AES-256-GCM key is derived (HKDF-SHA256) from a cookie hash key,
// never used as is; the first key seals, every key in force opens, so
// rotating COOKIE_KEYS the way cookies rotate (the new key first, the old
// one kept) keeps the secrets readable. Dropping a key drops what it
// sealed: those accounts need their recovery codes, or an admin, to turn
// two-factor off and set it up again.
const sealInfo = "storefront two-factor secret v1"

var errUnsealed = errors.New("sealed value unreadable with the keys in force")

func sealAEAD(hashKey []byte) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, hashKey, nil, sealInfo, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Seal encrypts plain with the first cookie key.
func (k *Kit) Seal(plain string) (string, error) {
	aead, err := sealAEAD(k.cfg.CookieKeys[0].Hash)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return "v1." + base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(plain), nil)), nil
}

// Open decrypts what Seal made, with any cookie key in force.
func (k *Kit) Open(sealed string) (string, error) {
	body, ok := strings.CutPrefix(sealed, "v1.")
	if !ok {
		return "", errUnsealed
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", errUnsealed
	}
	for _, ck := range k.cfg.CookieKeys {
		aead, err := sealAEAD(ck.Hash)
		if err != nil || len(raw) < aead.NonceSize() {
			continue
		}
		if plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], nil); err == nil {
			return string(plain), nil
		}
	}
	return "", errUnsealed
}
