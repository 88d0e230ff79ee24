package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"github.com/labstack/echo/v4"
)

// A guest's order page is reachable only through a signed link: the URL
// carries an HMAC-SHA256 of the order id under the cookie hash key, so it
// cannot be guessed from the order number, and keys rotated through
// COOKIE_KEYS keep old links working while the old key is listed.

// orderKeyBytes is how much of the MAC the link carries (128 bits).
const orderKeyBytes = 16

// GuestOrderURL is the signed link to a guest's order.
func (k *Kit) GuestOrderURL(id int64) string {
	return "/guest-orders/" + Itoa(id) + "?key=" + orderKey(k.cfg.CookieKeys[0].Hash, id)
}

// ValidOrderKey reports whether key signs order id under any key in force.
func (k *Kit) ValidOrderKey(id int64, key string) bool {
	if len(key) != base64.RawURLEncoding.EncodedLen(orderKeyBytes) {
		return false
	}
	for _, k := range k.cfg.CookieKeys {
		if hmac.Equal([]byte(key), []byte(orderKey(k.Hash, id))) {
			return true
		}
	}
	return false
}

func orderKey(hashKey []byte, id int64) string {
	m := hmac.New(sha256.New, hashKey)
	m.Write([]byte("guest-order:" + Itoa(id)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:orderKeyBytes])
}

// AbsoluteURL is path on the host the request came to, https when the
// request was (directly, or by X-Forwarded-Proto from TRUSTED_PROXIES):
// the address a payment provider sends the shopper back to.
func (k *Kit) AbsoluteURL(c echo.Context, path string) string {
	r := c.Request()
	scheme := "http"
	if r.TLS != nil || (k.fromTrustedProxy(r) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")) {
		scheme = "https"
	}
	return scheme + "://" + r.Host + path
}
