package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"storefront/handlers"
	"storefront/store/orders"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// benchApp calls the real router in-process (no sockets), so that the
// numbers are the handlers' own cost plus Redis and the database.
type benchApp struct {
	b  *testing.B
	h  http.Handler
	st *wiring.Services
}

func newCartBenchApp(b *testing.B) *benchApp {
	st := wiringtest.New(b)
	if _, err := st.DB().Exec(`UPDATE items SET stock = 1000000000 WHERE id IN (1, 2, 7)`); err != nil {
		b.Fatal(err)
	}
	h, err := handlers.New(testConfig(b), st, storetest.Logger(b))
	if err != nil {
		b.Fatal(err)
	}
	return &benchApp{b: b, h: h.Router(), st: st}
}

func (a *benchApp) Post(path string, form url.Values, cookies []*http.Cookie, accept string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	a.h.ServeHTTP(rec, req)
	return rec
}

// shopper registers an account and returns its session cookies.
func (a *benchApp) shopper(name string) []*http.Cookie {
	rec := a.Post("/register", url.Values{"username": {name}, "password": {"correct horse battery"}, "email": {name + "@example.com"}}, nil, "")
	if rec.Code != http.StatusSeeOther {
		a.b.Fatalf("register: %d", rec.Code)
	}
	var out []*http.Cookie
	for _, c := range rec.Result().Cookies() {
		if c.Name == "sid" || c.Name == "user" {
			out = append(out, c)
		}
	}
	return out
}

// BenchmarkPostCart sets one line of a three-line cart: with JavaScript
// off (303) and on (JSON with the cart's count and total).
func BenchmarkPostCart(b *testing.B) {
	for _, mode := range []struct{ name, accept string }{{"form", ""}, {"json", "application/json"}} {
		b.Run(mode.name, func(b *testing.B) {
			a := newCartBenchApp(b)
			cookies := a.shopper("bench")
			for _, id := range []string{"1", "2"} { // a cart of three lines
				if rec := a.Post("/cart", url.Values{"item": {id}, "qty": {"1"}}, cookies, ""); rec.Code != http.StatusSeeOther {
					b.Fatalf("cart: %d", rec.Code)
				}
			}
			want := http.StatusSeeOther
			if mode.accept != "" {
				want = http.StatusOK
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				rec := a.Post("/cart", url.Values{"item": {"7"}, "qty": {strconv.Itoa(i%5 + 1)}}, cookies, mode.accept)
				if rec.Code != want {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// BenchmarkCheckout places one-line orders; filling the cart before each
// is not timed.
func BenchmarkCheckout(b *testing.B) {
	a := newCartBenchApp(b)
	cookies := a.shopper("bench")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if rec := a.Post("/cart", url.Values{"item": {"7"}, "qty": {"1"}}, cookies, ""); rec.Code != http.StatusSeeOther {
			b.Fatalf("cart: %d", rec.Code)
		}
		var price int64
		if err := a.st.DB().QueryRow(`SELECT price_cents FROM items WHERE id = 7`).Scan(&price); err != nil {
			b.Fatal(err)
		}
		total := price + orders.DefaultShipping.Cost(orders.ShippingStandard, price)
		form := checkoutForm(fmt.Sprintf("%d.%02d", total/100, total%100), false)
		b.StartTimer()
		if rec := a.Post("/checkout", form, cookies, ""); rec.Code != http.StatusSeeOther {
			b.Fatalf("checkout: %d: %s", rec.Code, rec.Body)
		}
	}
}
