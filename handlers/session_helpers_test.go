package handlers_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/store/sessions"
	"storefront/store/storetest"
)

// sharing returns another app on the same store with its own HTTP config:
// a second instance, or the same shop restarted with new settings.
func (a *app) sharing(editCfg func(*handlers.Config)) *app {
	a.t.Helper()
	cfg := testConfig(a.t)
	if editCfg != nil {
		editCfg(&cfg)
	}
	h, err := handlers.New(cfg, a.store, storetest.Logger(a.t))
	if err != nil {
		a.t.Fatal(err)
	}
	srv := httptest.NewServer(h.Router())
	a.t.Cleanup(srv.Close)
	return &app{t: a.t, store: a.store, h: h, srv: srv}
}

// on returns the same browser (same cookies) talking to another app. The
// jar ignores ports, so both servers see the same cookies.
func (c *client) on(a *app) *client { return &client{Client: c.At(a.srv.URL), a: a} }

func (a *app) rdb() redis.UniversalClient { return a.store.Redis() }

// view opens item pages, failing on anything but 200.
func (c *client) view(ids ...int) {
	c.a.t.Helper()
	for _, id := range ids {
		if res := c.Get(fmt.Sprint("/items/", id)); res.Status != 200 {
			c.a.t.Fatalf("GET /items/%d: %d", id, res.Status)
		}
	}
}

// login signs in with the password register uses.
func (c *client) login(name string) apptest.Response {
	c.a.t.Helper()
	return c.Post("/login", url.Values{"username": {name}, "password": {"correct horse battery"}})
}

// home fetches / and checks the status.
func (c *client) home() apptest.Response {
	c.a.t.Helper()
	res := c.Get("/")
	if res.Status != 200 {
		c.a.t.Fatalf("GET /: %d", res.Status)
	}
	return res
}

// signedInAs is the header's user name, "" for an anonymous visitor.
func signedInAs(body string) string { return textOf(body, "user-name") }

// cartCount is the header's cart count.
func cartCount(body string) string { return textOf(body, "cart-count") }

// putCart writes a line straight into the cart the client sees.
func (a *app) putCart(c *client, item, qty int) {
	a.t.Helper()
	if err := a.rdb().HSet(a.t.Context(), c.cartKey(), fmt.Sprint(item), qty).Err(); err != nil {
		a.t.Fatal(err)
	}
}

// viewedList is a session's viewed:<token>, newest first.
func (a *app) viewedList(token string) []string {
	a.t.Helper()
	v, err := sessions.ReadViewed(a.t.Context(), a.rdb(), token)
	if err != nil {
		a.t.Fatal(err)
	}
	return v
}

// sessions is the number of live sessions (ZCARD recent:).
// A first visit's session is created behind: these read Redis after the
// writes behind went.
func (a *app) sessions() int64 {
	a.t.Helper()
	a.flushWrites()
	return a.rdb().ZCard(a.t.Context(), keys.Recent).Val()
}

// flushWrites sends the page cache's writes behind now.
func (a *app) flushWrites() {
	a.t.Helper()
	if err := a.store.Pages.FlushWrites(a.t.Context()); err != nil {
		a.t.Fatalf("flush writes behind: %v", err)
	}
}

// known reports whether the token is a live session.
func (a *app) known(token string) bool {
	a.t.Helper()
	a.flushWrites()
	err := a.rdb().ZScore(a.t.Context(), keys.Recent, keys.OfSession(token).ID).Err()
	if err != nil && !errors.Is(err, redis.Nil) {
		a.t.Fatalf("is the session known: %v", err) // an error is not "unknown"
	}
	return err == nil
}

// testHashKey is the hash key in testKeys.
func testHashKey(t testing.TB) []byte {
	b, err := base64.StdEncoding.DecodeString(testKeys)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// forgeUser builds a `user` cookie by hand in securecookie's format
// (base64 of "date|value|mac", the MAC over "name|date|value"), so tests
// can sign with any key and any date.
func forgeUser(hashKey []byte, at time.Time, id int64, name, token string) string {
	sum := sha256.Sum256([]byte(token))
	claim, _ := json.Marshal(map[string]any{"id": id, "name": name, "at": at.Unix(),
		"tok": base64.RawURLEncoding.EncodeToString(sum[:12])})
	value := base64.URLEncoding.EncodeToString(claim)
	date := fmt.Sprint(at.Unix())
	m := hmac.New(sha256.New, hashKey)
	m.Write([]byte("user|" + date + "|" + value))
	return base64.URLEncoding.EncodeToString(append([]byte(date+"|"+value+"|"), m.Sum(nil)...))
}

// forgeToken builds a well-formed `sid` token whose MAC uses hashKey.
func forgeToken(hashKey []byte, random string) string {
	r := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("%-32s", random)[:32]))
	m := hmac.New(sha256.New, hashKey)
	m.Write([]byte("sid:" + r))
	return r + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// flip changes one character in the middle of s.
func flip(s string) string {
	i := len(s) / 2
	c := byte('A')
	if s[i] == 'A' {
		c = 'B'
	}
	return s[:i] + string(c) + s[i+1:]
}

// setCookieFor returns the Set-Cookie header line for name, or "".
func setCookieFor(res apptest.Response, name string) string {
	for _, v := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(v, name+"=") {
			return v
		}
	}
	return ""
}
