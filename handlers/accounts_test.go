package handlers_test

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/handlers/web"
	"storefront/store/keys"
	"storefront/store/ratelimit"
	"storefront/store/storetest"
)

// claimReadable reports whether a `user` cookie's claim shows text when
// decoded without keys (it does unless a block key encrypts it).
func claimReadable(cookie, text string) bool {
	outer, err := base64.URLEncoding.DecodeString(cookie)
	if err != nil {
		return false
	}
	parts := strings.SplitN(string(outer), "|", 3)
	if len(parts) != 3 {
		return false
	}
	inner, err := base64.URLEncoding.DecodeString(parts[1])
	return err == nil && strings.Contains(string(inner), text)
}

func cidrs(t *testing.T, ss ...string) []*net.IPNet {
	t.Helper()
	var out []*net.IPNet
	for _, s := range ss {
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func TestRegister(t *testing.T) {
	a := newApp(t, nil, nil)
	a.client().Register("Taken_Name")
	tests := []struct {
		name, user, pass string
		status           int
		errText          string
	}{
		{"ok", "new_user_1", "correct horse battery", 303, ""},
		{"longest password", "long_pw", strings.Repeat("p", 128), 303, ""},
		{"longest name", strings.Repeat("n", 32), "correct horse battery", 303, ""},
		{"short name", "ab", "correct horse battery", 422, "3 to 32"},
		{"long name", strings.Repeat("n", 33), "correct horse battery", 422, "3 to 32"},
		{"bad characters", "bob smith", "correct horse battery", 422, "3 to 32"},
		{"markup in name", "<b>x</b>", "correct horse battery", 422, "3 to 32"},
		{"short password", "shorty", "seven77", 422, "8 to 128"},
		{"long password", "longer", strings.Repeat("p", 129), 422, "8 to 128"},
		{"taken ignoring case", "taken_name", "correct horse battery", 422, "taken"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := a.client()
			res := c.Post("/register", url.Values{"username": {tc.user}, "password": {tc.pass}, "email": {"x@example.com"}})
			if res.Status != tc.status {
				t.Fatalf("status %d, want %d", res.Status, tc.status)
			}
			if tc.status != 303 {
				mustContain(t, res.Body, tc.errText)
				if c.Cookie("sid") != "" || c.Cookie("user") != "" {
					t.Error("a failed registration set cookies")
				}
				if strings.Contains(res.Body, "<b>x</b>") {
					t.Error("the name is echoed unescaped")
				}
				return
			}
			if got := signedInAs(c.home().Body); got != tc.user {
				t.Errorf("signed in as %q, want %q", got, tc.user)
			}
		})
	}
	// The 128-character password signs in again.
	c := a.client()
	res := c.Post("/login", url.Values{"username": {"LONG_PW"}, "password": {strings.Repeat("p", 128)}})
	if res.Status != 303 || signedInAs(c.home().Body) != "long_pw" {
		t.Errorf("sign in with a 128-character password: %d", res.Status)
	}
}

func TestLoginMistakesLookAlike(t *testing.T) {
	a := newApp(t, nil, nil)
	a.client().Register("frank")
	wrongPass := a.client().Post("/login", url.Values{"username": {"frank"}, "password": {"not the password"}})
	wrongUser := a.client().Post("/login", url.Values{"username": {"frankie"}, "password": {"correct horse battery"}})
	if wrongPass.Status != 422 || wrongUser.Status != 422 {
		t.Fatalf("statuses %d and %d, want 422", wrongPass.Status, wrongUser.Status)
	}
	p, u := textOf(wrongPass.Body, "field-error"), textOf(wrongUser.Body, "field-error")
	if p == "" || p != u {
		t.Errorf("messages differ: %q vs %q", p, u)
	}
	// Both paths run bcrypt at the same cost (see store TestPasswords).
	res := a.client().Post("/login", url.Values{"username": {"frank"}, "password": {""}})
	if res.Status != 422 {
		t.Errorf("empty password: %d", res.Status)
	}
	c := a.client()
	res = c.Post("/login", url.Values{"username": {"frank"}, "password": {"correct horse battery"}, "next": {"/items/4"}})
	if res.Status != 303 || res.Header.Get("Location") != "/items/4" {
		t.Errorf("login with next: %d %q", res.Status, res.Header.Get("Location"))
	}
	res = c.Post("/login", url.Values{"username": {"frank"}, "password": {"correct horse battery"}, "next": {"//evil.example/"}})
	if res.Header.Get("Location") != "/" {
		t.Errorf("open redirect: %q", res.Header.Get("Location"))
	}
}

func TestLoginRateLimits(t *testing.T) {
	rate := func(c *handlers.Config) {
		c.Rates.Login = ratelimit.Rate{{N: 2, Per: time.Second}}
		c.Rates.LoginAddr = ratelimit.Rate{{N: 3, Per: time.Second}}
		c.TrustedProxies = cidrs(t, "127.0.0.0/8")
	}
	a := newApp(t, nil, rate)
	a.client().Register("grace")
	try := func(ip, user string) apptest.Response {
		t.Helper()
		return a.client().Post("/login", url.Values{"username": {user}, "password": {"wrong password"}}, "X-Forwarded-For", ip)
	}
	// Per address: the fourth failure from one address, whatever the name.
	try("203.0.113.1", "a1")
	try("203.0.113.1", "a2")
	try("203.0.113.1", "a3")
	res := try("203.0.113.1", "a4")
	if res.Status != 429 || res.Header.Get("Retry-After") == "" || !strings.Contains(res.Body, "Too many failed sign-ins from your address") {
		t.Fatalf("fourth failure from one address: %d %q", res.Status, res.Header.Get("Retry-After"))
	}
	if res := try("203.0.113.2", "a3"); res.Status != 422 {
		t.Errorf("another address: %d, want 422", res.Status)
	}
	// Per account and address: the third failure on one name from one address.
	try("198.51.100.1", "Grace")
	try("198.51.100.1", "grace")
	res = try("198.51.100.1", "GRACE")
	if res.Status != 429 || !strings.Contains(res.Body, "for this account") {
		t.Fatalf("third failure on one account from one address: %d", res.Status)
	}
	storetest.Wait(t, 1100*time.Millisecond)
	if res := try("203.0.113.1", "a5"); res.Status != 422 {
		t.Errorf("address after the window: %d, want 422", res.Status)
	}
}

// TestLoginLockoutIsNotADenialOfService: failures from other addresses
// never keep the owner out, and successes never count.
func TestLoginLockoutIsNotADenialOfService(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) {
		c.Rates.Login = ratelimit.Rate{{N: 5, Per: time.Minute}}
		c.Rates.LoginAddr = ratelimit.Rate{{N: 20, Per: time.Minute}}
		c.TrustedProxies = cidrs(t, "127.0.0.0/8")
	})
	a.client().Register("heidi")
	// An attacker fails 5 times from each of 5 addresses.
	for i := 1; i <= 5; i++ {
		ip := fmt.Sprintf("203.0.113.%d", i)
		for range 5 {
			a.client().Post("/login", url.Values{"username": {"heidi"}, "password": {"wrong password"}}, "X-Forwarded-For", ip)
		}
		res := a.client().Post("/login", url.Values{"username": {"heidi"}, "password": {"wrong password"}}, "X-Forwarded-For", ip)
		if res.Status != 429 {
			t.Fatalf("sixth failure from %s: %d, want 429", ip, res.Status)
		}
	}
	// The admin account too: failures from elsewhere do not lock it.
	for i := 1; i <= 5; i++ {
		for range 6 {
			a.client().Post("/login", url.Values{"username": {"admin"}, "password": {"wrong password"}}, "X-Forwarded-For", fmt.Sprintf("203.0.113.%d", 100+i))
		}
	}
	if res := a.client().Post("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}, "X-Forwarded-For", "198.51.100.10"); res.Status != 303 {
		t.Fatalf("admin sign-in while attacked: %d, want 303", res.Status)
	}
	// The owner, from a sixth address, signs in ten times in a row.
	for i := range 10 {
		c := a.client()
		res := c.Post("/login", url.Values{"username": {"heidi"}, "password": {"correct horse battery"}}, "X-Forwarded-For", "198.51.100.9")
		if res.Status != 303 || c.Cookie("sid") == "" {
			t.Fatalf("owner sign-in %d: %d, want 303", i, res.Status)
		}
	}
	// Even from an attacked address, successes leave the count alone: the
	// owner at 203.0.113.1's neighbour fails 4 times, succeeds, and still
	// has one failure left.
	ip := "203.0.113.77"
	for range 4 {
		a.client().Post("/login", url.Values{"username": {"heidi"}, "password": {"wrong password"}}, "X-Forwarded-For", ip)
	}
	for range 3 {
		if res := a.client().Post("/login", url.Values{"username": {"heidi"}, "password": {"correct horse battery"}}, "X-Forwarded-For", ip); res.Status != 303 {
			t.Fatalf("right password after 4 failures: %d", res.Status)
		}
	}
	if res := a.client().Post("/login", url.Values{"username": {"heidi"}, "password": {"wrong password"}}, "X-Forwarded-For", ip); res.Status != 422 {
		t.Fatalf("fifth failure: %d, want 422", res.Status)
	}
	if res := a.client().Post("/login", url.Values{"username": {"heidi"}, "password": {"wrong password"}}, "X-Forwarded-For", ip); res.Status != 429 {
		t.Fatalf("sixth failure: %d, want 429", res.Status)
	}
}

func TestRegisterRateLimitAndClientAddress(t *testing.T) {
	one := func(c *handlers.Config) { c.Rates.Register = ratelimit.Rate{{N: 1, Per: time.Second}} }
	reg := func(a *app, name string, headers ...string) int {
		return a.client().Post("/register", url.Values{"username": {name}, "password": {"correct horse battery"}, "email": {"x@example.com"}}, headers...).Status
	}
	n := 0
	name := func() string { n++; return fmt.Sprint("user_", n) }
	tests := []struct {
		name    string
		trusted []string
		// The second registration comes from another address in
		// X-Forwarded-For; it counts as another client only via a trusted proxy.
		xff1, xff2 string
		second     int
		key        string // the rate-limit key of the first client
	}{
		{"no trusted proxies", nil, "203.0.113.1", "203.0.113.2", 429, keys.Rate(keys.RateRegister, "127.0.0.1")},
		{"untrusted peer", []string{"10.0.0.0/8"}, "203.0.113.1", "203.0.113.2", 429, keys.Rate(keys.RateRegister, "127.0.0.1")},
		{"trusted peer", []string{"127.0.0.0/8"}, "203.0.113.1", "203.0.113.2", 303, keys.Rate(keys.RateRegister, "203.0.113.1")},
		{"spoofed hop before a trusted proxy", []string{"127.0.0.0/8"}, "6.6.6.6, 203.0.113.1", "6.6.6.6, 203.0.113.2", 303, keys.Rate(keys.RateRegister, "203.0.113.1")},
		{"same client behind a trusted proxy", []string{"127.0.0.0/8"}, "203.0.113.1", "6.6.6.6, 203.0.113.1", 429, keys.Rate(keys.RateRegister, "203.0.113.1")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := newApp(t, nil, func(c *handlers.Config) {
				one(c)
				if tc.trusted != nil {
					c.TrustedProxies = cidrs(t, tc.trusted...)
				}
			})
			if s := reg(a, name(), "X-Forwarded-For", tc.xff1); s != 303 {
				t.Fatalf("first: %d", s)
			}
			if s := reg(a, name(), "X-Forwarded-For", tc.xff2); s != tc.second {
				t.Fatalf("second: %d, want %d", s, tc.second)
			}
			if a.rdb().Exists(t.Context(), tc.key).Val() != 1 {
				t.Errorf("no rate-limit key %s", tc.key)
			}
			if tc.second == 429 {
				storetest.Wait(t, 1100*time.Millisecond)
				if s := reg(a, name(), "X-Forwarded-For", tc.xff2); s != 303 {
					t.Errorf("after the window: %d, want 303", s)
				}
			}
		})
	}
}

func TestCookieAttacksEndAnonymous(t *testing.T) {
	a := newApp(t, nil, nil)
	alice, bob := a.client(), a.client()
	alice.Register("alice")
	bob.Register("bob")
	alice.view(2)
	a.putCart(alice, 2, 1)
	aliceSid, aliceUser := alice.Cookie("sid"), alice.Cookie("user")
	bobUser := bob.Cookie("user")
	key := testHashKey(t)
	otherKey := []byte(strings.Repeat("k", 64))
	u := storetest.Must(a.store.Sessions.UserByName(t.Context(), "alice"))(t)
	admin := storetest.Must(a.store.Sessions.UserByName(t.Context(), "admin"))(t)
	stray := forgeToken(key, "never issued")

	// Sanity: cookies forged with the right key and date are accepted, so
	// the failures below are the checks at work, not a bad forgery.
	ok := a.client()
	ok.SetCookie("sid", aliceSid)
	ok.SetCookie("user", forgeUser(key, time.Now(), u.ID, "alice", aliceSid))
	if got := signedInAs(ok.home().Body); got != "alice" {
		t.Fatalf("a correctly forged cookie was refused (%q): the forgery helper is wrong", got)
	}

	tests := []struct {
		name      string
		sid, user string
		cart      string // the header's cart count: an account's cart only shows to a verified sign-in
	}{
		{"tampered user", aliceSid, flip(aliceUser), "0"},
		{"tampered sid", flip(aliceSid), aliceUser, "0"},
		{"user cookie of another account", aliceSid, bobUser, "0"},
		{"user cookie without its session", stray, forgeUser(key, time.Now(), u.ID, "alice", stray), "0"},
		{"user cookie claiming admin on alice's session", aliceSid, forgeUser(key, time.Now(), admin.ID, "admin", aliceSid), "0"},
		{"expired", aliceSid, forgeUser(key, time.Now().Add(-31*24*time.Hour), u.ID, "alice", aliceSid), "0"},
		{"old key", forgeToken(otherKey, "x"), forgeUser(otherKey, time.Now(), u.ID, "alice", forgeToken(otherKey, "x")), "0"},
		{"old key on a live sid", aliceSid, forgeUser(otherKey, time.Now(), u.ID, "alice", aliceSid), "0"},
		{"garbage", "garbage", "%%%not|base64", "0"},
		{"empty", "", "", "0"},
		{"oversized", strings.Repeat("a", 4000), strings.Repeat("b", 4000), "0"},
		{"sid with a valid MAC but never issued", stray, "", "0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := a.sessions()
			c := a.client()
			c.SetCookie("sid", tc.sid)
			c.SetCookie("user", tc.user)
			for _, p := range []string{"/", "/items", "/login"} {
				res := c.Get(p)
				if res.Status != 200 {
					t.Fatalf("GET %s: %d", p, res.Status)
				}
				if got := signedInAs(res.Body); got != "" {
					t.Fatalf("GET %s: signed in as %q", p, got)
				}
				if got := cartCount(res.Body); got != tc.cart {
					t.Errorf("GET %s: cart count %q, want %q", p, got, tc.cart)
				}
			}
			if a.sessions() != before || a.known(tc.sid) && tc.sid != aliceSid {
				t.Error("a bad cookie created server state")
			}
		})
	}
	// Alice's own session survived every bad `user` cookie, cart included.
	if res := alice.home(); signedInAs(res.Body) != "alice" || cartCount(res.Body) != "1" {
		t.Errorf("alice afterwards: %q with %q in the cart", signedInAs(res.Body), cartCount(res.Body))
	}
}

func TestCookieKeyRotation(t *testing.T) {
	k1 := testKeys
	k2 := "S0VZMktFWTJLRVkyS0VZMktFWTJLRVkyS0VZMktFWTJLRVkyS0VZMktFWTJLRVkyS0VZMktFWTJLRVkyS0VZMg=="
	withKeys := func(s string) func(*handlers.Config) {
		return func(c *handlers.Config) {
			keys, err := web.ParseCookieKeys(s)
			if err != nil {
				t.Fatal(err)
			}
			c.CookieKeys = keys
		}
	}
	old := newApp(t, nil, nil)
	c := old.client()
	c.Register("heidi")
	c.view(3)

	// K2 signs now, K1 still verifies: heidi stays signed in.
	rotated := old.sharing(withKeys(k2 + "," + k1))
	cr := c.on(rotated)
	if got := signedInAs(cr.home().Body); got != "heidi" {
		t.Fatalf("after adding a key: signed in as %q", got)
	}
	// A new sign-in is signed with K2 and survives K1's removal.
	fresh := rotated.client()
	fresh.login("heidi")
	k2only := old.sharing(withKeys(k2))
	if got := signedInAs(fresh.on(k2only).home().Body); got != "heidi" {
		t.Errorf("a cookie signed with the new key: %q", got)
	}
	// K1 removed: cookies signed with it mean an anonymous visitor.
	res := c.on(k2only).home()
	if got := signedInAs(res.Body); got != "" || cartCount(res.Body) != "0" {
		t.Errorf("a cookie signed with a removed key: %q", got)
	}
	// Keys with an AES block key encrypt the claim; rotation works the same.
	block := "QkxPQ0stS0VZLTAxMjM0NTY3ODlhYmNkZWZnaGlqa3g="
	enc := old.sharing(withKeys(k2 + "," + block + "," + k1))
	e := enc.client()
	e.login("heidi")
	if claimReadable(e.Cookie("user"), "heidi") {
		t.Error("the claim is readable despite a block key")
	}
	if !claimReadable(c.Cookie("user"), "heidi") {
		t.Error("claimReadable cannot read a plain claim")
	}
	if got := signedInAs(e.home().Body); got != "heidi" {
		t.Errorf("encrypted cookie: %q", got)
	}
	if _, err := web.ParseCookieKeys("c2hvcnQ="); err == nil {
		t.Error("a short key was accepted")
	}
	if _, err := web.ParseCookieKeys("not base64!"); err == nil {
		t.Error("a non-base64 key was accepted")
	}
}

// TestSignInGivesItsSlotsBack: every sign-in takes a slot per address and
// per (account, address) before the password is checked; a success gives
// both back, and a refusal by the per-account limit gives back the
// address's. So ten successes from one address leave all its failures
// available, and an attacker hammering one account does not use up the
// address's allowance for the others.
func TestSignInGivesItsSlotsBack(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) {
		c.Rates.Login = ratelimit.Rate{{N: 2, Per: time.Hour}}
		c.Rates.LoginAddr = ratelimit.Rate{{N: 3, Per: time.Hour}}
		c.TrustedProxies = cidrs(t, "127.0.0.0/8")
	})
	a.client().Register("ivy")
	login := func(ip, user, password string) int {
		t.Helper()
		return a.client().Post("/login", url.Values{"username": {user}, "password": {password}}, "X-Forwarded-For", ip).Status
	}
	const owner = "198.51.100.20"
	for i := range 10 {
		if got := login(owner, "ivy", "correct horse battery"); got != 303 {
			t.Fatalf("success %d from one address: %d, want 303 (a success keeps a slot)", i+1, got)
		}
	}
	for i, user := range []string{"x1", "x2", "x3"} {
		if got := login(owner, user, "wrong password"); got != 422 {
			t.Fatalf("failure %d after ten successes: %d, want 422", i+1, got)
		}
	}
	if got := login(owner, "x4", "wrong password"); got != 429 {
		t.Fatalf("fourth failure from the address: %d, want 429", got)
	}

	const attacker = "203.0.113.40"
	for i := range 2 {
		if got := login(attacker, "ivy", "wrong password"); got != 422 {
			t.Fatalf("failure %d on ivy: %d, want 422", i+1, got)
		}
	}
	for i := range 5 {
		if got := login(attacker, "ivy", "wrong password"); got != 429 {
			t.Fatalf("refused attempt %d on ivy: %d, want 429", i+1, got)
		}
	}
	// Two failures counted for the address, none for the refusals.
	if got := login(attacker, "other", "wrong password"); got != 422 {
		t.Fatalf("third failure from the address, on another account: %d, want 422 (a refusal keeps the address's slot)", got)
	}
	if got := login(attacker, "another", "wrong password"); got != 429 {
		t.Fatalf("fourth failure from the address: %d, want 429", got)
	}
}
