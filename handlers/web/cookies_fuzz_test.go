package web

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"

	"storefront/store/platform"
)

// fuzzKeys are two signing pairs: the first with an AES block key (it
// signs), the second without (it only verifies).
const fuzzKeys = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWYwMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZg==," +
	"QkxPQ0stS0VZLTAxMjM0NTY3ODlhYmNkZWZnaGlqa3g=," +
	"S0VZMktFWTJLRVkyS0VZMktFWTJLRVkyS0VZMktFWTJLRVkyS0VZMktFWTJLRVkyS0VZMktFWTJLRVkyS0VZMg=="

func fuzzKit(t testing.TB) *Kit {
	keys, err := ParseCookieKeys(fuzzKeys)
	if err != nil {
		t.Fatal(err)
	}
	return &Kit{cfg: Config{CookieKeys: keys}, codecs: keys.codecs(),
		tokens: platform.NewMemo[string, userClaim](cookieMemoMax), users: platform.NewMemo[string, userClaim](cookieMemoMax)}
}

// readFrom runs the cookie reader on a raw Cookie header.
func (k *Kit) readFrom(header string) *Session {
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Cookie", header)
	return k.readCookies(echo.New().NewContext(req, httptest.NewRecorder()))
}

// FuzzReadCookies feeds arbitrary `sid`, `user` and `flash` cookies to the
// reader. It must never panic, and only the token and the claim the server
// issued may come out of it: anything else is an anonymous visitor.
func FuzzReadCookies(f *testing.F) {
	k := fuzzKit(f)
	// A fixed token: every fuzzing worker must agree on what was issued.
	tok := signToken(k.cfg.CookieKeys[0].Hash, strings.Repeat("T", 43))
	claim := userClaim{ID: 7, Name: "alice", LoginAt: 1_700_000_000, Token: tokenBinding(tok)}
	user, err := securecookie.EncodeMulti(userCookie, claim, k.codecs[0])
	if err != nil {
		f.Fatal(err)
	}
	old, _ := securecookie.EncodeMulti(userCookie, claim, k.codecs[1]) // the verifying-only key
	f.Add(tok, user, "")
	f.Add(tok, old, "")
	f.Add(tok, user, "SGVsbG8")
	f.Add("", "", "")
	f.Add("garbage", "%%%not|base64", "\x00")
	f.Add(tok[:len(tok)-1]+"B", user, "")
	f.Add(tok, user[:len(user)/2]+"A"+user[len(user)/2+1:], "")
	f.Add(strings.Repeat("a", 43)+"."+strings.Repeat("b", 22), user, "")
	f.Add(tok+"; sid=other", user+"; user=x", "")
	f.Add(strings.Repeat("x", 5000), strings.Repeat("y", 5000), strings.Repeat("z", 5000))
	f.Fuzz(func(t *testing.T, sid, userValue, flash string) {
		s := k.readFrom("sid=" + sid + "; user=" + userValue + "; flash=" + flash)
		if s.Token != "" && s.Token != tok {
			t.Fatalf("token %q accepted; only %q was issued", s.Token, tok)
		}
		if s.hasClaim && (s.Token != tok || s.claim != claim) {
			t.Fatalf("claim %+v accepted for token %q", s.claim, s.Token)
		}
		if s.UserID != 0 {
			t.Fatal("signed in without the server's word")
		}
	})
}

// FuzzUserClaimRoundTrip checks that any claim we sign reads back as
// itself, bound to its token and to no other.
func FuzzUserClaimRoundTrip(f *testing.F) {
	k := fuzzKit(f)
	f.Add(int64(1), "admin", true, int64(1_700_000_000))
	f.Add(int64(1<<62), "ünïcödé_✓", false, int64(-1))
	f.Add(int64(5), strings.Repeat("n", 3000), false, int64(0))
	f.Fuzz(func(t *testing.T, id int64, name string, admin bool, at int64) {
		// JSON carries only valid UTF-8 (usernames are ASCII anyway).
		name = strings.ToValidUTF8(name, "?")
		tok, other := k.NewToken(), k.NewToken()
		c := userClaim{ID: id, Name: name, Admin: admin, LoginAt: at, Token: tokenBinding(tok)}
		v, err := securecookie.EncodeMulti(userCookie, c, k.codecs[0])
		if err != nil {
			return // too long for a cookie: we never issue it
		}
		got, ok := k.decodeUser(v, tok)
		if id <= 0 {
			if ok {
				t.Fatalf("claim with id %d accepted", id)
			}
			return
		}
		if !ok || got != c {
			t.Fatalf("round trip: %+v, %v; want %+v", got, ok, c)
		}
		if _, ok := k.decodeUser(v, other); ok {
			t.Fatal("a claim was accepted with another token")
		}
	})
}

func TestTokensAreUniqueAndVerify(t *testing.T) {
	k := fuzzKit(t)
	seen := map[string]bool{}
	for range 1000 {
		tok := k.NewToken()
		if len(tok) != tokenLen || !k.validToken(tok) || seen[tok] {
			t.Fatalf("bad or repeated token %q", tok)
		}
		seen[tok] = true
	}
}
