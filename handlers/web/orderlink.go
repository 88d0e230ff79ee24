package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
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
