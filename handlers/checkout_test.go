package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/store"
	"storefront/views"
)

// checkout posts the cart page's checkout form.
func (c *client) checkout(form url.Values) response {
	c.a.t.Helper()
	return c.post("/checkout", form)
}

func (a *app) orderCount() int {
	a.t.Helper()
	var n int
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT COUNT(*) FROM orders`).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// fulfil runs the fulfilment worker until the queue is drained.
func (a *app) fulfil() {
	a.t.Helper()
	w := a.store.Fulfilment("test-worker")
	for range 5 {
		if _, err := w.Poll(a.t.Context()); err != nil {
			a.t.Fatal(err)
		}
	}
}

func TestGuestCheckoutSignsInAndKeepsTheCart(t *testing.T) {
	a := newApp(t, func(o *store.Options) { o.OrderPoll = 10 * time.Millisecond }, nil)
	a.setStock(7, 10)
	a.setStock(8, 10)
	if _, err := a.store.CreateUser(t.Context(), "dora", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	c := a.client()
	c.setQty("7", "2")
	c.setQty("8", "1")

	res := c.checkout(nil)
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/login?next=/cart" {
		t.Fatalf("guest checkout: %d to %q", res.Status, res.Header.Get("Location"))
	}
	if a.orderCount() != 0 || a.stockOf(7) != 10 {
		t.Fatal("a guest placed an order")
	}
	login := c.get("/login?next=/cart")
	mustContain(t, login.Body, `name="next" value="/cart"`, "sign in to check out")
	res = c.post("/login", url.Values{"username": {"dora"}, "password": {"correct horse battery"}, "next": {"/cart"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/cart" {
		t.Fatalf("login: %d to %q", res.Status, res.Header.Get("Location"))
	}
	page := c.get("/cart")
	if got := cartLines(page.Body); !sameMap(got, map[string]string{"7": "2", "8": "1"}) {
		t.Fatalf("cart after sign-in %v", got)
	}
	if textOf(page.Body, "cart-count") != "3" {
		t.Errorf("header count %q", textOf(page.Body, "cart-count"))
	}
	total := 2*a.priceOf(7) + a.priceOf(8)
	mustContain(t, page.Body, fmt.Sprintf(`name="total" value="%d"`, total), ">Check out<")

	res = c.checkout(url.Values{"total": {fmt.Sprint(total)}})
	loc := res.Header.Get("Location")
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/orders/") {
		t.Fatalf("checkout: %d to %q: %.300s", res.Status, loc, res.Body)
	}
	order := c.get(loc)
	if order.Status != 200 {
		t.Fatalf("order page %d", order.Status)
	}
	mustContain(t, order.Body, "Thank you! Order #", views.Money(total))
	if got := testids(order.Body, "order-status", "data-status"); len(got) != 1 || got[0] != "pending" {
		t.Errorf("order status %v, want pending", got)
	}
	if got := testids(order.Body, "order-line", "data-item-id"); len(got) != 2 {
		t.Errorf("order lines %v", got)
	}
	if a.stockOf(7) != 8 || a.stockOf(8) != 9 {
		t.Errorf("stock %d, %d", a.stockOf(7), a.stockOf(8))
	}
	if page := c.get("/cart"); len(cartLines(page.Body)) != 0 || textOf(page.Body, "cart-count") != "0" {
		t.Error("the cart was not emptied")
	}

	a.fulfil()
	order = c.get(loc)
	if got := testids(order.Body, "order-status", "data-status"); len(got) != 1 || got[0] != "processed" {
		t.Errorf("order status %v after fulfilment, want processed", got)
	}
	list := c.get("/orders")
	if ids := testids(list.Body, "order", "data-order-id"); len(ids) != 1 || "/orders/"+ids[0] != loc {
		t.Errorf("orders list %v", ids)
	}
}

func TestRegisterKeepsTheCart(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	c := a.client()
	c.setQty("7", "3")
	c.register("erin")
	if got := cartLines(c.get("/cart").Body); got["7"] != "3" {
		t.Errorf("cart after registering %v", got)
	}
}

func TestCheckoutRefusedSaysWhichLineAndWhy(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	a.setStock(8, 10)
	c := a.client()
	c.register("fred")
	c.setQty("7", "3")
	c.setQty("8", "1")
	a.setStock(7, 2) // someone else bought most of them
	res := c.checkout(nil)
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", res.Status)
	}
	var name string
	_ = a.store.DB().QueryRowContext(t.Context(), `SELECT name FROM items WHERE id = 7`).Scan(&name)
	mustContain(t, res.Body, "Your order was not placed", fmt.Sprintf("Only 2 of %s left (you asked for 3)", name), `data-testid="line-problem"`)
	if got := cartLines(res.Body); !sameMap(got, map[string]string{"7": "3", "8": "1"}) {
		t.Errorf("cart %v", got)
	}
	if a.orderCount() != 0 || a.stockOf(7) != 2 || a.stockOf(8) != 10 {
		t.Error("a refused checkout changed something")
	}
	c.setQty("7", "2")
	if res := c.checkout(nil); res.Status != http.StatusSeeOther {
		t.Errorf("checkout after fixing the line: %d", res.Status)
	}
}

func TestCheckoutAtChangedPrices(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	c := a.client()
	c.register("gina")
	c.setQty("7", "2")
	seen := 2 * a.priceOf(7)
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE items SET price_cents = price_cents + 50 WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	res := c.checkout(url.Values{"total": {fmt.Sprint(seen)}})
	if res.Status != 422 {
		t.Fatalf("status %d", res.Status)
	}
	now := seen + 100
	mustContain(t, res.Body, "Prices changed", views.Money(now), fmt.Sprintf(`name="total" value="%d"`, now))
	if a.orderCount() != 0 {
		t.Fatal("order placed at a total the shopper did not see")
	}
	if res := c.checkout(url.Values{"total": {fmt.Sprint(now)}}); res.Status != http.StatusSeeOther {
		t.Errorf("confirming the new total: %d", res.Status)
	}
}

func TestCheckoutBadRequests(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.register("hal")
	if res := c.checkout(nil); res.Status != 422 {
		t.Errorf("empty cart: %d", res.Status)
	} else {
		mustContain(t, res.Body, "Your cart is empty")
	}
	for _, total := range []string{"abc", "-1", "1.5", ""} {
		if res := c.checkout(url.Values{"total": {total}}); res.Status != 400 {
			t.Errorf("total %q: status %d", total, res.Status)
		}
	}
	if res := c.post("/checkout", url.Values{"total": {"1", "2"}}); res.Status != 400 {
		t.Errorf("two totals: %d", res.Status)
	}
	// A forged `user` cookie does not make a guest a shopper.
	g := a.client()
	g.setQty("7", "1")
	g.setCookie("user", c.cookie("user"))
	if res := g.checkout(nil); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Errorf("borrowed user cookie: %d to %q", res.Status, res.Header.Get("Location"))
	}
}

// 50 shoppers check out one unit each of an item with 10 in stock, all at
// once: exactly 10 orders, stock 0, never negative.
func TestConcurrentCheckoutsNeverOversell(t *testing.T) {
	a := newApp(t, nil, nil)
	const shoppers, stock, item = 50, 10, 7
	a.setStock(item, stock)
	clients := make([]*client, shoppers)
	for i := range clients {
		clients[i] = a.client()
		clients[i].register(fmt.Sprintf("buyer%02d", i))
		if res := clients[i].setQty(fmt.Sprint(item), "1"); res.Status != http.StatusSeeOther {
			t.Fatalf("add to cart: %d", res.Status)
		}
	}
	statuses := make([]int, shoppers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(context.Background(), "POST", a.srv.URL+"/checkout", strings.NewReader(""))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", a.srv.URL)
			<-start
			res, err := c.hc.Do(req)
			if err != nil {
				return // statuses[i] stays 0 and fails below
			}
			res.Body.Close()
			statuses[i] = res.StatusCode
		}()
	}
	close(start)
	wg.Wait()
	counts := map[int]int{}
	for _, s := range statuses {
		counts[s]++
	}
	if counts[http.StatusSeeOther] != stock || counts[http.StatusUnprocessableEntity] != shoppers-stock {
		t.Errorf("statuses %v, want %d x 303 and %d x 422", counts, stock, shoppers-stock)
	}
	if s := a.stockOf(item); s != 0 {
		t.Errorf("stock is %d, want 0", s)
	}
	var orders, sold int
	err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(DISTINCT order_id), COALESCE(SUM(qty), 0) FROM order_lines WHERE item_id = $1`, item).Scan(&orders, &sold)
	if err != nil || orders != stock || sold != stock || a.orderCount() != stock {
		t.Errorf("%d orders, %d sold (err %v); want %d", orders, sold, err, stock)
	}
	metrics := a.client().get("/metrics").Body
	mustContain(t, metrics, fmt.Sprintf(`storefront_checkouts_total{result="ok"} %d`, stock),
		fmt.Sprintf(`storefront_checkouts_total{result="out_of_stock"} %d`, shoppers-stock),
		fmt.Sprintf("storefront_order_queue_depth %d", stock))
}
