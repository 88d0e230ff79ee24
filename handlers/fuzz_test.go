package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"storefront/handlers"
	"storefront/store/board"
	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// Fuzz targets through the real router: hostile cookies, cart and vote
// forms and item page URLs never yield a 5xx, and bad input changes
// nothing. Their seeds run with every `go test`; to search further:
//
//	go test -run XXX -fuzz FuzzCookies -fuzztime 1m ./handlers/
//	go test -run XXX -fuzz FuzzCartForm -fuzztime 1m ./handlers/
//	go test -run XXX -fuzz FuzzVoteForm -fuzztime 1m ./handlers/
//	go test -run XXX -fuzz FuzzItemURL -fuzztime 1m ./handlers/

// fuzzOrigin is the site the fuzz requests claim to come from.
const fuzzOrigin = "http://shop.test"

// fuzzApp is the real router over a clean store, called in-process, with
// a signed-in shopper's cookies to mutate from.
type fuzzApp struct {
	st         *wiring.Services
	router     http.Handler
	sid, user  string
	hasArticle string // an article id that exists
}

func newFuzzApp(f *testing.F) *fuzzApp {
	f.Helper()
	st := wiringtest.New(f, func(o *wiring.Options) { o.SeedArticles = true })
	cfg := testConfig(f)
	cfg.Rates = handlers.Rates{} // no limits: the fuzzer sends thousands
	h, err := handlers.New(cfg, st, storetest.Logger(f))
	if err != nil {
		f.Fatal(err)
	}
	a := &fuzzApp{st: st, router: h.Router()}
	rec := a.Post("/register", "username=fuzzer&password=correct+horse+battery&email=fuzzer%40example.com", "")
	if rec.Code != http.StatusSeeOther {
		f.Fatalf("register: %d", rec.Code)
	}
	for _, c := range rec.Result().Cookies() {
		switch c.Name {
		case "sid":
			a.sid = c.Value
		case "user":
			a.user = c.Value
		}
	}
	page, err := st.Board.Articles(context.Background(), board.ArticleQuery{Sort: board.SortNew, Page: 1, PerPage: 1})
	if err != nil || len(page.Articles) == 0 {
		f.Fatalf("no articles: %v", err)
	}
	a.hasArticle = itoa(page.Articles[0].ID)
	return a
}

// post sends a same-origin form with a raw body and cookie header.
func (a *fuzzApp) Post(path, body, cookie string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", fuzzOrigin+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", fuzzOrigin)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	a.router.ServeHTTP(rec, req)
	return rec
}

func (a *fuzzApp) Get(target, cookie string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", fuzzOrigin+"/", nil)
	req.URL, req.RequestURI = mustParseURL(target), target
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	rec := httptest.NewRecorder()
	a.router.ServeHTTP(rec, req)
	return rec
}

func (a *fuzzApp) cookies() string { return "sid=" + a.sid + "; user=" + a.user }

func mustParseURL(s string) *url.URL {
	u, err := url.ParseRequestURI(s)
	if err != nil {
		panic(err)
	}
	return u
}

// headerSafe reports whether s could be sent in a header at all: servers
// refuse control characters before any handler runs.
func headerSafe(s string) bool {
	return !strings.ContainsAny(s, "\r\n\x00") && len(s) < 8<<10
}

// setsSession reports whether the response gives the visitor a session.
func setsSession(rec *httptest.ResponseRecorder) bool {
	for _, c := range rec.Result().Cookies() {
		if c.Name == "sid" && c.Value != "" {
			return true
		}
	}
	return false
}

func FuzzCookies(f *testing.F) {
	a := newFuzzApp(f)
	f.Add(a.sid, a.user, "")
	f.Add(a.sid, "", "SGVsbG8")
	f.Add(a.sid[:len(a.sid)-1]+"A", a.user, "")
	f.Add("", a.user, "")
	f.Add("x.y", "garbage|||", "%%%")
	f.Add(strings.Repeat("A", 43)+"."+strings.Repeat("A", 22), a.user[:len(a.user)/2], "PHNjcmlwdD4")
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, sid, user, flash string) {
		if !headerSafe(sid) || !headerSafe(user) || !headerSafe(flash) {
			return
		}
		cookie := "sid=" + sid + "; user=" + user + "; flash=" + flash
		for _, path := range []string{"/", "/cart", "/items/1", "/orders"} {
			rec := a.Get(path, cookie)
			if rec.Code >= 500 {
				t.Fatalf("GET %s with cookies %q: %d", path, cookie, rec.Code)
			}
			if strings.Contains(rec.Body.String(), "securecookie") {
				t.Fatalf("GET %s: an internal error reached the page", path)
			}
		}
		// A token the server never issued creates no server state.
		if sid != "" && sid != a.sid { // keys.ViewRanking alone is the item ranking
			if n := storetest.Must(a.st.Redis().Exists(ctx, keys.OfSession(sid).Viewed, keys.OfSession(sid).Cart).Result())(t); n > 0 {
				t.Fatalf("a forged token %q got server state", sid)
			}
			if err := a.st.Redis().ZScore(ctx, keys.Recent, keys.OfSession(sid).ID).Err(); err == nil {
				t.Fatalf("a forged token %q became a session", sid)
			}
		}
	})
}

func FuzzCartForm(f *testing.F) {
	a := newFuzzApp(f)
	for _, s := range []string{"item=1&qty=2", "item=1&qty=0", "item=1&qty=-3", "item=3&qty=99", "item=3&qty=100",
		"item=99999&qty=1", "item=abc&qty=1", "item=1&qty=1.5", "item=1&qty=", "item=1", "qty=1", "item=1&item=2&qty=1",
		"item=1&qty=1e3", "item=%ZZ&qty=1", "item=1&qty=+00000000000000000000000000001", "item=0&qty=1",
		"item=1&qty=-0", "item=1&qty=%E2%91%A0", strings.Repeat("item=1&", 500) + "qty=1"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, body string, json bool) {
		var headers []string
		if json {
			headers = []string{"Accept", "application/json"}
		}
		// A guest without a session: bad input must not give it one.
		rec := a.Post("/cart", body, "", headers...)
		switch {
		case rec.Code >= 500:
			t.Fatalf("POST /cart %q: %d", body, rec.Code)
		case rec.Code >= 400 && setsSession(rec):
			t.Fatalf("POST /cart %q: %d and a new session", body, rec.Code)
		case rec.Code != http.StatusSeeOther && rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest &&
			rec.Code != http.StatusUnprocessableEntity && rec.Code != http.StatusRequestEntityTooLarge:
			t.Fatalf("POST /cart %q: unexpected status %d", body, rec.Code)
		}
		// The signed-in shopper's cart changes only on success.
		before := a.Get("/cart", a.cookies()).Body.String()
		rec = a.Post("/cart", body, a.cookies(), headers...)
		if rec.Code >= 500 {
			t.Fatalf("POST /cart %q signed in: %d", body, rec.Code)
		}
		if rec.Code >= 400 && a.Get("/cart", a.cookies()).Body.String() != before {
			t.Fatalf("POST /cart %q: %d, yet the cart changed", body, rec.Code)
		}
	})
}

func FuzzVoteForm(f *testing.F) {
	a := newFuzzApp(f)
	for _, s := range []struct{ id, body string }{
		{a.hasArticle, "dir=up"}, {a.hasArticle, "dir=down"}, {a.hasArticle, "dir=none"}, {a.hasArticle, "dir=sideways"},
		{a.hasArticle, ""}, {a.hasArticle, "dir=up&dir=down"}, {a.hasArticle, "dir=up&next=//evil.example"},
		{"0", "dir=up"}, {"-1", "dir=up"}, {"99999999", "dir=up"}, {"abc", "dir=up"}, {"1e3", "dir=up"},
		{"9223372036854775808", "dir=up"}, {a.hasArticle, "dir=%FF"},
	} {
		f.Add(s.id, s.body, false)
		f.Add(s.id, s.body, true)
	}
	f.Fuzz(func(t *testing.T, id, body string, json bool) {
		var headers []string
		if json {
			headers = []string{"Accept", "application/json"}
		}
		path := "/articles/" + url.PathEscape(id) + "/vote"
		if _, err := url.ParseRequestURI(path); err != nil {
			return
		}
		rec := a.Post(path, body, a.cookies(), headers...)
		switch rec.Code {
		case http.StatusSeeOther, http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge,
			http.StatusUnprocessableEntity: // text that is not UTF-8
		default:
			t.Fatalf("POST %s %q: %d", path, body, rec.Code)
		}
		if loc := rec.Header().Get("Location"); loc != "" && (!strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") ||
			strings.ContainsFunc(loc, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' })) {
			t.Fatalf("POST %s %q: redirect off the site to %q", path, body, loc)
		}
	})
}

func FuzzItemURL(f *testing.F) {
	a := newFuzzApp(f)
	for _, s := range []struct{ id, query string }{
		{"1", ""}, {"1", "utm_source=x&b=2&a=1"}, {"1", "_=1"}, {"1", "fbclid=1&gclid=2"}, {"2", "a=%ZZ"},
		{"0", ""}, {"99999", ""}, {"abc", "x=1"}, {"1", strings.Repeat("a=1&", 300)}, {"1", "q=%00"},
	} {
		f.Add(s.id, s.query)
	}
	f.Fuzz(func(t *testing.T, id, query string) {
		target := "/items/" + url.PathEscape(id)
		if query != "" {
			target += "?" + query
		}
		if !headerSafe(target) || strings.ContainsAny(target, " #") {
			return
		}
		if _, err := url.ParseRequestURI(target); err != nil {
			return
		}
		for _, cookie := range []string{"", a.cookies()} {
			rec := a.Get(target, cookie)
			switch rec.Code {
			case http.StatusOK, http.StatusNotFound, http.StatusBadRequest:
			case http.StatusMovedPermanently: // to the readable URL, on this shop
				if loc := rec.Header().Get("Location"); !strings.HasPrefix(loc, "/items/") || strings.HasPrefix(loc, "//") {
					t.Fatalf("GET %s: moved to %q", target, loc)
				}
			default:
				t.Fatalf("GET %s: %d", target, rec.Code)
			}
		}
	})
}
