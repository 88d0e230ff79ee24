package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startCartApp runs the whole app as `go run .` would on a fresh machine
// (embedded Redis, SQLite under a temporary DATA_DIR, workers running) and
// returns its base URL. It ignores the test environment's REDIS_URL and
// DATABASE_URL on purpose: those servers are flushed by other packages'
// tests while this one runs.
func startCartApp(t *testing.T) string {
	t.Helper()
	env := map[string]string{
		"ADDR":           "127.0.0.1:0",
		"DATA_DIR":       t.TempDir(),
		"ADMIN_PASSWORD": "admin password for the cart test",
		"COOKIE_SECURE":  "false",
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() { done <- run(ctx, func(k string) string { return env[k] }, logger, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("app did not start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("app stopped with %v", err)
		}
	})
	return "http://" + addr
}

// cartShopper is a cookie-keeping HTTP client that does not follow redirects.
type cartShopper struct {
	t    *testing.T
	base string
	hc   *http.Client
}

func newCartShopper(t *testing.T, base string) *cartShopper {
	jar, _ := cookiejar.New(nil)
	return &cartShopper{t: t, base: base, hc: &http.Client{
		Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (s *cartShopper) send(method, path string, form url.Values, accept string) (int, string, string) {
	s.t.Helper()
	req, _ := http.NewRequest(method, s.base+path, strings.NewReader(form.Encode()))
	if method == "POST" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.base)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(b)
}

var (
	orderStatusRE = regexp.MustCompile(`data-testid="order-status" data-status="([a-z]+)"`)
	cartLineRE    = regexp.MustCompile(`data-testid="cart-line" data-item-id="(\d+)" data-qty="(\d+)"`)
)

// TestCartCheckoutEndToEnd walks a shopper through the running app over
// HTTP: add to cart and change the quantity (the JSON answers the page's
// script uses), get sent to sign in at checkout, register and come back
// to the same cart, check out, and see the order processed by the
// fulfilment worker that main started.
func TestCartCheckoutEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("boots the whole app")
	}
	base := startCartApp(t)
	s := newCartShopper(t, base)

	item := ""
	for id := 1; id <= 50 && item == ""; id++ { // the first demo item in stock
		if code, _, body := s.send("GET", fmt.Sprintf("/items/%d", id), nil, ""); code == 200 && strings.Contains(body, `action="/cart"`) {
			item = fmt.Sprint(id)
		}
	}
	if item == "" {
		t.Fatal("no demo item in stock among the first 50")
	}
	for _, qty := range []string{"1", "2"} {
		code, _, body := s.send("POST", "/cart", url.Values{"item": {item}, "qty": {qty}}, "application/json")
		var got struct {
			Quantity  int64 `json:"quantity"`
			CartCount int64 `json:"cart_count"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &got) != nil || fmt.Sprint(got.Quantity) != qty || fmt.Sprint(got.CartCount) != qty {
			t.Fatalf("set qty %s: %d %s", qty, code, body)
		}
	}
	if code, loc, _ := s.send("POST", "/checkout", nil, ""); code != 303 || loc != "/login?next=/cart" {
		t.Fatalf("guest checkout: %d to %q", code, loc)
	}
	form := url.Values{"username": {"e2e_cart"}, "password": {"correct horse battery"}, "next": {"/cart"}}
	if code, loc, _ := s.send("POST", "/register", form, ""); code != 303 || loc != "/cart" {
		t.Fatalf("register: %d to %q", code, loc)
	}
	_, _, cart := s.send("GET", "/cart", nil, "")
	if m := cartLineRE.FindStringSubmatch(cart); m == nil || m[1] != item || m[2] != "2" {
		t.Fatalf("cart after signing up: %v", m)
	}
	code, order, _ := s.send("POST", "/checkout", nil, "")
	if code != 303 || !strings.HasPrefix(order, "/orders/") {
		t.Fatalf("checkout: %d to %q", code, order)
	}
	// The worker polls every second; give a loaded machine plenty of time.
	status := ""
	for deadline := time.Now().Add(60 * time.Second); status != "processed" && time.Now().Before(deadline); {
		_, _, body := s.send("GET", order, nil, "")
		if m := orderStatusRE.FindStringSubmatch(body); m != nil {
			status = m[1]
		}
		if status != "processed" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if status != "processed" {
		t.Fatalf("order %s is %q, want processed", order, status)
	}
}

// cartBrowser is what the browser scenario below needs from a browser
// harness. The chromedp harness (e2e_test.go, written separately) can
// satisfy it with a few lines each (chromedp.Navigate, SetValue, Click,
// Text, AttributeValue, Location) and set newCartBrowser.
type cartBrowser interface {
	Open(path string) error                     // load base+path and wait for the page
	SetValue(selector, value string) error      // set a form field
	Click(selector string) error                // click; the page may navigate or update in place
	Text(selector string) (string, error)       // text of the first match, now
	Attr(selector, attr string) (string, error) // attribute of the first match, now
	WaitText(selector, want string) error       // until the first match's text is want
	WaitAttr(selector, attr, want string) error // until the first match's attribute is want
	Location() (string, error)                  // current path and query
}

// newCartBrowser, when a harness sets it, opens a browser on base.
var newCartBrowser func(t *testing.T, base string) cartBrowser

// TestCartInTheBrowser is the browser test: add to cart, change
// the quantity in place, sign in, check out, see the order processed. It
// needs a browser harness (newCartBrowser); without one it skips.
func TestCartInTheBrowser(t *testing.T) {
	if newCartBrowser == nil {
		if os.Getenv("E2E") != "" { // a skip under E2E=1 is a failure (DESIGN §3)
			t.Fatal("E2E is set but no browser harness sets newCartBrowser")
		}
		t.Skip("no browser harness: newCartBrowser is set by the chromedp harness")
	}
	base := startCartApp(t)
	b := newCartBrowser(t, base)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Item 8 has 26 in stock in the deterministic demo catalog (any item
	// with 3 or more will do). The steps below were checked against
	// headless Chromium through the DevTools protocol.
	const item = "8"
	line := `[data-testid="cart-line"][data-item-id="` + item + `"]`

	// Add to cart from the item page: the header count changes in place.
	must(b.Open("/items/" + item))
	must(b.SetValue("#qty", "1"))
	must(b.Click("form.buy button[type=submit]"))
	must(b.WaitText(`[data-testid="cart-count"]`, "1"))
	if loc, _ := b.Location(); loc != "/items/"+item {
		t.Errorf("adding to cart navigated to %q; the script should update in place", loc)
	}

	// Change the quantity on the cart page: line, count and total update in place.
	must(b.Open("/cart"))
	before, err := b.Text(`[data-testid="cart-total"]`)
	must(err)
	must(b.SetValue("#qty-"+item, "3"))
	must(b.Click(line + " .qty-form button[type=submit]"))
	must(b.WaitAttr(line, "data-qty", "3"))
	must(b.WaitText(`[data-testid="cart-count"]`, "3"))
	if after, _ := b.Text(`[data-testid="cart-total"]`); after == before {
		t.Errorf("cart total still %q after changing the quantity", after)
	}

	// Checking out as a guest asks to sign in; signing up returns to the cart.
	must(b.Click("form.checkout button[type=submit]"))
	if loc, _ := b.Location(); !strings.HasPrefix(loc, "/login") {
		t.Fatalf("guest checkout went to %q", loc)
	}
	must(b.Open("/register?next=/cart"))
	must(b.SetValue("#username", "browser_cart"))
	must(b.SetValue("#password", "correct horse battery"))
	must(b.Click("form[action='/register'] button[type=submit]"))
	must(b.WaitAttr(line, "data-qty", "3"))

	// Check out and watch the order become processed.
	must(b.Click("form.checkout button[type=submit]"))
	order, err := b.Location()
	must(err)
	if !strings.HasPrefix(order, "/orders/") {
		t.Fatalf("checkout went to %q", order)
	}
	for deadline := time.Now().Add(60 * time.Second); ; {
		must(b.Open(order))
		st, err := b.Attr(`[data-testid="order-status"]`, "data-status")
		if err == nil && st == "processed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(errors.Join(fmt.Errorf("order %s is %q, want processed", order, st), err))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
