package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	orderStatusRE = regexp.MustCompile(`data-testid="order-status" data-status="([a-z]+)"`)
	cartLineRE    = regexp.MustCompile(`data-testid="cart-line" data-item-id="(\d+)" data-qty="(\d+)"`)
)

// orderWait bounds the wait for the fulfilment worker (it polls every
// second); plenty for a loaded machine.
const orderWait = 60 * time.Second

// TestCartCheckoutEndToEnd walks a shopper through the running app over
// HTTP: add to cart and change the quantity (the JSON answers the page's
// script uses), get sent to sign in at checkout, register and come back
// to the same cart, check out, and see the order processed by the
// fulfilment worker that main started. It needs no browser.
func TestCartCheckoutEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("boots the whole app")
	}
	s := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"}).client(t)

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
	status := ""
	for deadline := time.Now().Add(orderWait); status != "processed" && time.Now().Before(deadline); {
		_, _, body := s.send("GET", order, nil, "")
		if m := orderStatusRE.FindStringSubmatch(body); m != nil {
			status = m[1]
		}
		if status != "processed" {
			time.Sleep(e2ePollInterval * 4)
		}
	}
	if status != "processed" {
		t.Fatalf("order %s is %q, want processed", order, status)
	}
}

// TestCartInTheBrowser is the browser test: add to cart, change
// the quantity in place, sign in, check out, see the order processed.
func TestCartInTheBrowser(t *testing.T) {
	b := newBrowser(t)
	tb := b.tab(startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"}))
	// Item 8 has 26 in stock in the deterministic demo catalog (any item
	// with 3 or more will do).
	const item = "8"
	line := `[data-testid="cart-line"][data-item-id="` + item + `"]`

	// Add to cart from the item page: the header count changes in place.
	tb.navigate("/items/" + item)
	eval[bool](tb, `window.e2eNotReloaded = true`)
	tb.fill("#qty", "1")
	tb.click("form.buy button[type=submit]")
	tb.waitText(`[data-testid="cart-count"]`, "1")
	if loc := tb.path(); loc != "/items/"+item || !eval[bool](tb, `window.e2eNotReloaded === true`) {
		t.Errorf("adding to cart navigated to %q; the script should update in place", loc)
	}
	tb.screenshot("item-added")

	// Change the quantity on the cart page: line, count and total update in place.
	tb.navigate("/cart")
	tb.waitFor(line)
	before := tb.text(`[data-testid="cart-total"]`)
	eval[bool](tb, `window.e2eNotReloaded = true`)
	tb.fill("#qty-"+item, "3")
	tb.click(line + " .qty-form button[type=submit]")
	tb.waitAttr(line, "data-qty", "3")
	tb.waitText(`[data-testid="cart-count"]`, "3")
	if after := tb.text(`[data-testid="cart-total"]`); after == before {
		t.Errorf("cart total still %q after changing the quantity", after)
	}
	if !eval[bool](tb, `window.e2eNotReloaded === true`) {
		t.Error("changing the quantity reloaded the cart page; the script should update in place")
	}
	tb.screenshot("cart")

	// Checking out as a guest asks to sign in; signing up returns to the cart.
	tb.click("form.checkout button[type=submit]")
	tb.waitPath("/login")
	tb.waitFor(`form[action="/login"]`)
	tb.screenshot("login")
	tb.navigate("/register?next=/cart")
	tb.fill("#username", "browser_cart")
	tb.fill("#password", "correct horse battery")
	tb.click("form[action='/register'] button[type=submit]")
	tb.waitPath("/cart")
	tb.waitAttr(line, "data-qty", "3")

	// Check out and watch the order become processed: the page does not
	// update itself, so reload it until the worker has been.
	tb.click("form.checkout button[type=submit]")
	order := tb.waitPath("/orders/")
	tb.reloadUntil(order, `document.querySelector('[data-testid="order-status"]')?.getAttribute("data-status") || ""`, "processed", orderWait)
	tb.screenshot("order")
}
