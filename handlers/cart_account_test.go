package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/wiring"
)

// A signed-in shopper's cart is the account's: signing out leaves it (the
// visitor then has an empty guest cart), signing in again brings it back.
func TestAccountCartSurvivesSignOut(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.AccountCartTTL = 5 * time.Hour }, nil)
	a.setStock(7, 10)
	c := a.client()
	c.Register("keeper")
	c.setQty("7", "2")
	key := c.cartKey()
	if !keys.IsCart(key) || key == keys.OfSession(c.Cookie("sid")).Cart {
		t.Fatalf("a signed-in cart lives at %q", key)
	}
	if ttl := a.rdb().PTTL(t.Context(), key).Val(); ttl <= 4*time.Hour || ttl > 5*time.Hour {
		t.Errorf("account cart TTL %v, want ACCOUNT_CART_TTL (5h)", ttl)
	}
	if res := c.Post("/logout", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("logout: %d", res.Status)
	}
	if page := c.Get("/cart"); len(cartLines(page.Body)) != 0 || cartCount(page.Body) != "0" {
		t.Error("a signed-out visitor sees the account's cart")
	}
	if got := a.rdb().HGetAll(t.Context(), key).Val(); !sameMap(got, map[string]string{"7": "2"}) {
		t.Fatalf("the account's cart after sign-out: %v", got)
	}
	if res := c.login("keeper"); res.Status != http.StatusSeeOther {
		t.Fatalf("login: %d", res.Status)
	}
	page := c.Get("/cart")
	if got := cartLines(page.Body); !sameMap(got, map[string]string{"7": "2"}) || cartCount(page.Body) != "2" {
		t.Errorf("cart after signing in again: %v, header %q", got, cartCount(page.Body))
	}
}

// A signed-in shopper evicted by the session cleanup keeps the cart.
func TestAccountCartSurvivesEviction(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.SessionLimit = 1 }, nil)
	a.setStock(7, 10)
	c := a.client()
	c.Register("evictee")
	c.setQty("7", "3")
	a.client().Register("newcomer") // the newer session wins the only place
	if _, err := a.store.Sessions.CleanSessions(t.Context()); err != nil {
		t.Fatal(err)
	}
	if signedInAs(c.home().Body) != "" {
		t.Fatal("the session was not evicted")
	}
	if res := c.login("evictee"); res.Status != http.StatusSeeOther {
		t.Fatalf("login: %d", res.Status)
	}
	if got := cartLines(c.Get("/cart").Body); !sameMap(got, map[string]string{"7": "3"}) {
		t.Errorf("cart after eviction and sign-in: %v", got)
	}
}

// At sign-in the guest cart merges into the account's cart: the guest's
// quantity wins for an item in both, the account's other lines stay, the
// header counts the merged cart and the guest cart is gone.
func TestGuestCartMergesAtSignIn(t *testing.T) {
	a := newApp(t, nil, nil)
	for _, id := range []int64{7, 8, 9} {
		a.setStock(id, 10)
	}
	before := a.client()
	before.Register("merger")
	before.setQty("7", "5")
	before.setQty("9", "1")

	c := a.client()
	c.setQty("7", "2")
	c.setQty("8", "1")
	guestKey := c.cartKey()
	res := c.login("merger")
	if res.Status != http.StatusSeeOther {
		t.Fatalf("login: %d", res.Status)
	}
	page := c.Get("/cart")
	if got := cartLines(page.Body); !sameMap(got, map[string]string{"7": "2", "8": "1", "9": "1"}) {
		t.Errorf("merged cart %v, want 7:2 8:1 9:1", got)
	}
	if cartCount(page.Body) != "4" {
		t.Errorf("header count %q, want 4", cartCount(page.Body))
	}
	if n := storetest.Must(a.rdb().Exists(t.Context(), guestKey).Result())(t); n != 0 {
		t.Error("the guest cart outlived the sign-in")
	}
	// The other device sees the merged cart too.
	if got := cartLines(before.Get("/cart").Body); !sameMap(got, map[string]string{"7": "2", "8": "1", "9": "1"}) {
		t.Errorf("the other device's cart %v", got)
	}
	// Registering adopts the guest cart as the new account's.
	r := a.client()
	r.setQty("8", "2")
	r.Register("newbie")
	if got := cartLines(r.Get("/cart").Body); !sameMap(got, map[string]string{"8": "2"}) {
		t.Errorf("cart after registering %v", got)
	}
}

// Two devices of one account share its cart, also when both write at once.
func TestAccountCartOnTwoDevices(t *testing.T) {
	a := newApp(t, nil, nil)
	for id := int64(1); id <= 40; id++ {
		a.setStock(id, 10)
	}
	phone, laptop := a.client(), a.client()
	phone.Register("twodevices")
	if res := laptop.login("twodevices"); res.Status != http.StatusSeeOther {
		t.Fatalf("login: %d", res.Status)
	}
	phone.setQty("1", "2")
	if got := cartLines(laptop.Get("/cart").Body); !sameMap(got, map[string]string{"1": "2"}) {
		t.Fatalf("the laptop sees %v", got)
	}
	if got := cartCount(laptop.home().Body); got != "2" {
		t.Errorf("the laptop's header says %q", got)
	}
	var wg sync.WaitGroup
	for i, dev := range []*client{phone, laptop} {
		wg.Go(func() {
			for id := 2 + i; id <= 40; id += 2 {
				if res := dev.setQty(fmt.Sprint(id), "1"); res.Status != http.StatusSeeOther {
					t.Errorf("device %d, item %d: %d", i, id, res.Status)
				}
			}
		})
	}
	wg.Wait()
	if got := cartLines(phone.Get("/cart").Body); len(got) != 40 {
		t.Errorf("the cart has %d lines after both devices wrote, want 40", len(got))
	}
	if got := cartCount(laptop.home().Body); got != "41" {
		t.Errorf("header count %q, want 41", got)
	}
}

// Both devices of one account place the shared cart at once: one order,
// the stock taken once.
func TestSharedCartIsOrderedOnce(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	devices := []*client{a.client(), a.client(), a.client(), a.client()}
	devices[0].Register("sharer")
	for _, d := range devices[1:] {
		if res := d.login("sharer"); res.Status != http.StatusSeeOther {
			t.Fatalf("login: %d", res.Status)
		}
	}
	devices[0].setQty("7", "2")
	_, total := devices[0].review()
	form := checkoutForm(total, false)
	var wg sync.WaitGroup
	locs := make([]string, len(devices))
	for i, d := range devices {
		wg.Go(func() { locs[i] = d.Post("/checkout", form).Header.Get("Location") })
	}
	wg.Wait()
	placed := 0
	for _, loc := range locs {
		if strings.HasPrefix(loc, "/orders/") {
			placed++
		}
	}
	if placed != 1 || a.orderCount() != 1 || a.stockOf(7) != 8 {
		t.Errorf("%d orders placed (%v), %d in the database, stock %d; want 1, 1, 8", placed, locs, a.orderCount(), a.stockOf(7))
	}
}
