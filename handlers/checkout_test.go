package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/store/orders"
	"storefront/store/storetest"
	"storefront/views"
	"storefront/wiring"
)

// totalInput reads the total the checkout form confirms.
var totalInput = regexp.MustCompile(`name="total" value="([^"]*)"`)

// review opens the checkout page and returns it with the total it shows.
// A page without a country yet prices no delivery: the shopper then
// chooses the country of checkoutForm's address (Update the review), and
// that review is returned.
func (c *client) review() (apptest.Response, string) {
	c.a.t.Helper()
	res := c.Get("/checkout")
	if res.Status != http.StatusOK {
		c.a.t.Fatalf("GET /checkout: %d to %q", res.Status, res.Header.Get("Location"))
	}
	if strings.Contains(res.Body, `data-testid="delivery-zone" data-zone=""`) {
		f := checkoutForm("", false)
		f.Set("review", "1")
		if res = c.Post("/checkout", f); res.Status != http.StatusOK {
			c.a.t.Fatalf("reviewing for %s: %d", f.Get("country"), res.Status)
		}
	}
	m := totalInput.FindStringSubmatch(res.Body)
	if m == nil {
		c.a.t.Fatal("the checkout form has no total")
	}
	return res, m[1]
}

// checkoutForm is a complete, valid checkout form at total; guests add
// an email.
func checkoutForm(total string, guest bool) url.Values {
	f := url.Values{"name": {"Ada Lovelace"}, "line1": {"12 St James's Square"}, "city": {"London"},
		"postcode": {"SW1Y 4JH"}, "country": {"GB"}, "shipping": {"standard"}, "payment": {"invoice"}, "total": {total}}
	if guest {
		f.Set("email", "ada@example.com")
	}
	return f
}

// checkout reviews the cart and places the order with a valid form at the
// total shown; edit (may be nil) changes the form first.
func (c *client) checkout(edit func(url.Values)) apptest.Response {
	c.a.t.Helper()
	page, total := c.review()
	f := checkoutForm(total, strings.Contains(page.Body, `name="email"`))
	f.Del("total")
	if edit != nil {
		edit(f)
	}
	if !f.Has("total") {
		// The total the shopper sees once the form's country is reviewed.
		r := url.Values{"review": {"1"}, "country": {f.Get("country")}, "shipping": {f.Get("shipping")}}
		seen := c.Post("/checkout", r)
		m := totalInput.FindStringSubmatch(seen.Body)
		if seen.Status != http.StatusOK || m == nil {
			c.a.t.Fatalf("reviewing for %q: %d", f.Get("country"), seen.Status)
		}
		f.Set("total", m[1])
	}
	return c.Post("/checkout", f)
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
	w := a.store.Orders.Fulfilment("test-worker")
	for range 5 {
		if _, err := w.Poll(a.t.Context()); err != nil {
			a.t.Fatal(err)
		}
	}
}

func TestCheckoutPageReviewsTheCart(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	a.setStock(8, 10)
	c := a.client()
	if res := c.Get("/checkout"); res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/cart" {
		t.Fatalf("empty cart: %d to %q", res.Status, res.Header.Get("Location"))
	}
	c.setQty("7", "1")
	c.setQty("8", "2")
	mustContain(t, c.Get("/cart").Body, `href="/checkout"`)
	page, total := c.review()
	sub := a.priceOf(7) + 2*a.priceOf(8)
	ship := orders.DefaultShipping.Cost(orders.ShippingStandard, sub)
	mustContain(t, page.Body, `data-testid="checkout-form"`, `name="email"`, `name="line2"`, `value="GB"`, `value="cod"`)
	if got := testids(page.Body, "review-line", "data-item-id"); len(got) != 2 {
		t.Errorf("review lines %v", got)
	}
	if textOf(page.Body, "subtotal") != views.DefaultShop.Currency.Format(sub) || textOf(page.Body, "order-total") != views.DefaultShop.Currency.Format(sub+ship) {
		t.Errorf("subtotal %q total %q, want %s and %s", textOf(page.Body, "subtotal"), textOf(page.Body, "order-total"), views.DefaultShop.Currency.Format(sub), views.DefaultShop.Currency.Format(sub+ship))
	}
	if want := fmt.Sprintf("%d.%02d", (sub+ship)/100, (sub+ship)%100); total != want {
		t.Errorf("form total %q, want %q", total, want)
	}
	if got := page.Header.Get("Cache-Control"); !strings.Contains(got, "no-store") {
		t.Errorf("Cache-Control %q", got)
	}
}

// Delivery prices follow the knobs: standard is free from FREE_SHIPPING_OVER,
// express never is.
func TestCheckoutShippingPrices(t *testing.T) {
	rates := orders.ShippingRates{Standard: 300, Express: 1200, FreeOver: 10_000}
	a := newApp(t, func(o *wiring.Options) { o.Shipping = &rates }, nil)
	a.setStock(7, 99)
	price := a.priceOf(7)
	c := a.client()
	c.setQty("7", "1")
	page, _ := c.review()
	if got := textOf(page.Body, "shipping-cost"); got != views.DefaultShop.Currency.Format(300) {
		t.Errorf("standard delivery %q, want %s", got, views.DefaultShop.Currency.Format(300))
	}
	// Express chosen with the standard total (a browser without JavaScript):
	// 422 and the review at the express total, which then goes through.
	_, standard := c.review()
	res := c.checkout(func(f url.Values) { f.Set("shipping", "express"); f.Set("total", standard) })
	if res.Status != http.StatusUnprocessableEntity || textOf(res.Body, "order-total") != views.DefaultShop.Currency.Format(price+1200) {
		t.Fatalf("express at the standard total: %d, total %q", res.Status, textOf(res.Body, "order-total"))
	}
	if a.orderCount() != 0 {
		t.Fatal("an order was placed at a total the shopper did not see")
	}
	m := totalInput.FindStringSubmatch(res.Body)
	f := checkoutForm(m[1], true)
	f.Set("shipping", "express")
	if res := c.Post("/checkout", f); res.Status != http.StatusSeeOther {
		t.Fatalf("express at its total: %d", res.Status)
	}
	var ship, total int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT shipping_cents, total_cents FROM orders`).Scan(&ship, &total); err != nil || ship != 1200 || total != price+1200 {
		t.Errorf("order shipping %d total %d (%v)", ship, total, err)
	}
	// Over the threshold standard delivery is free.
	n := rates.FreeOver/price + 1
	c.setQty("7", fmt.Sprint(n))
	if page, _ := c.review(); textOf(page.Body, "shipping-cost") != "Free" || textOf(page.Body, "order-total") != views.DefaultShop.Currency.Format(n*price) {
		t.Errorf("over the threshold: delivery %q total %q", textOf(page.Body, "shipping-cost"), textOf(page.Body, "order-total"))
	}
}

func TestGuestCheckoutAndSignedLink(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	a.setStock(8, 10)
	c := a.client()
	c.setQty("7", "2")
	c.setQty("8", "1")
	res := c.checkout(func(f url.Values) { f.Set("line2", "Flat 3"); f.Set("payment", "cod") })
	loc := res.Header.Get("Location")
	if res.Status != http.StatusSeeOther || !regexp.MustCompile(`^/guest-orders/\d+\?key=[A-Za-z0-9_-]{22}$`).MatchString(loc) {
		t.Fatalf("guest checkout: %d to %q: %.300s", res.Status, loc, res.Body)
	}
	page := c.Get(loc)
	if page.Status != 200 {
		t.Fatalf("order page: %d", page.Status)
	}
	mustContain(t, page.Body, "Thank you! Order #", "ada@example.com", "Flat 3", "SW1Y 4JH London", "United Kingdom", "Cash on delivery",
		`data-testid="order-link"`, loc[strings.Index(loc, "?key=")+5:])
	if got := testids(page.Body, "order-line", "data-item-id"); len(got) != 2 {
		t.Errorf("order lines %v", got)
	}
	if a.stockOf(7) != 8 || a.stockOf(8) != 9 {
		t.Errorf("stock %d, %d", a.stockOf(7), a.stockOf(8))
	}
	if len(c.cartHash()) != 0 || cartCount(c.Get("/cart").Body) != "0" {
		t.Error("the cart was not emptied")
	}
	var user int64
	var email, country, payment string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT user_id, email, ship_country, payment_method FROM orders`).Scan(&user, &email, &country, &payment); err != nil ||
		user != orders.GuestUserID || email != "ada@example.com" || country != "GB" || payment != "cod" {
		t.Errorf("order row: user %d email %q country %q payment %q (%v)", user, email, country, payment, err)
	}
	if n := storetest.Must(a.store.Redis().XLen(t.Context(), keys.OrderQueue).Result())(t); n != 1 {
		t.Errorf("queue holds %d orders, want 1", n)
	}

	// The link is the only way in: anyone with it sees the order, a wrong
	// or missing key, or the key of another order, is a 404.
	id := strings.TrimPrefix(loc[:strings.Index(loc, "?")], "/guest-orders/")
	stranger := a.client()
	if res := stranger.Get(loc); res.Status != 200 {
		t.Errorf("the signed link in another browser: %d", res.Status)
	}
	other := a.client()
	other.setQty("8", "1")
	otherLoc := other.checkout(nil).Header.Get("Location")
	otherKey := otherLoc[strings.Index(otherLoc, "?"):]
	key := loc[strings.Index(loc, "?key=")+5:]
	for _, path := range []string{"/guest-orders/" + id, "/guest-orders/" + id + "?key=x", "/guest-orders/" + id + otherKey,
		"/guest-orders/" + id + "?key=" + key[:8], "/guest-orders/" + id + "?key=" + key[:21], "/guest-orders/" + id + "?key=" + key + "A",
		"/guest-orders/" + id + "?key=" + strings.Repeat("A", 22), "/guest-orders/abc?key=x"} {
		if res := stranger.Get(path); res.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.Status)
		}
	}
	if res := c.Get("/orders/" + id); res.Status != http.StatusSeeOther {
		t.Errorf("a guest order under /orders: %d", res.Status)
	}
	// A shopper's order cannot be read through a guest link, even a signed one.
	shopper := a.client()
	shopper.Register("shopper")
	shopper.setQty("7", "1")
	own := shopper.checkout(nil).Header.Get("Location")
	ownID := strings.TrimPrefix(own, "/orders/")
	if res := stranger.Get(strings.Replace(otherLoc, otherLoc[len("/guest-orders/"):strings.Index(otherLoc, "?")], ownID, 1)); res.Status != http.StatusNotFound {
		t.Errorf("a shopper's order through a guest link: %d", res.Status)
	}
}

// Every missing or bad field: 422, the message next to the field, the
// form as typed, and nothing changed.
func TestCheckoutFieldErrors(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	guest := a.client()
	guest.setQty("7", "2")
	_, total := guest.review()
	shopper := a.client()
	shopper.Register("fieldtester")
	shopper.setQty("7", "1")
	tests := []struct {
		name, field, value string
		who                *client
	}{
		{"no email", "email", "", guest},
		{"bad email", "email", "ada at example", guest},
		{"no name", "name", "", guest},
		{"long name", "name", strings.Repeat("n", 101), guest},
		{"control characters", "name", "Ada\x07", guest},
		{"a right-to-left override", "city", "Par\u202esi", guest},
		{"no address", "line1", "", shopper},
		{"long second line", "line2", strings.Repeat("x", 201), guest},
		{"no city", "city", "", guest},
		{"no postcode", "postcode", "", guest},
		{"bad postcode", "postcode", "SW1Y;4JH", guest},
		{"no country", "country", "", guest},
		{"unknown country", "country", "XX", guest},
		{"no shipping", "shipping", "", guest},
		{"unknown shipping", "shipping", "drone", shopper},
		{"no payment", "payment", "", guest},
		{"unknown payment", "payment", "card", guest},
		{"no total", "total", "", guest},
		{"bad total", "total", "12,34", guest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.who.cartHash()
			f := checkoutForm(total, tc.who == guest)
			f.Set("line2", "Typed line two")
			f.Set(tc.field, tc.value)
			res := tc.who.Post("/checkout", f)
			if res.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", res.Status)
			}
			if !strings.Contains(res.Body, `id="`+tc.field+`-error" data-testid="field-error"`) {
				t.Errorf("no field-error next to %s", tc.field)
			}
			if tc.field != "line2" {
				mustContain(t, res.Body, `value="Typed line two"`) // the form as typed
			}
			if tc.field != "name" {
				mustContain(t, res.Body, `value="Ada Lovelace"`)
			}
			mustContain(t, res.Body, `data-testid="checkout-form"`, `data-testid="order-total"`)
			if a.orderCount() != 0 || a.stockOf(7) != 10 || !sameMap(before, tc.who.cartHash()) {
				t.Error("a refused checkout changed something")
			}
		})
	}
	// A signed-in shopper is not asked for an email.
	if res := shopper.Post("/checkout", checkoutForm("0.01", false)); strings.Contains(res.Body, `id="email-error"`) {
		t.Error("a signed-in shopper was asked for an email")
	}
	// Text that is not UTF-8 is refused before any handler runs.
	f := checkoutForm(total, true)
	f.Set("line1", "12 \xff Square")
	if res := guest.Post("/checkout", f); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("invalid UTF-8: %d, want 422", res.Status)
	}
	// A field sent twice is a request our form cannot make.
	f = checkoutForm(total, true)
	f.Add("country", "FR")
	if res := guest.Post("/checkout", f); res.Status != http.StatusBadRequest {
		t.Errorf("a repeated field: %d, want 400", res.Status)
	}
	if a.orderCount() != 0 {
		t.Error("an order was placed")
	}
}

func TestCheckoutAtChangedPrices(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	c := a.client()
	c.Register("gina")
	c.setQty("7", "2")
	_, seen := c.review()
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE items SET price_cents = price_cents + 50 WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	res := c.Post("/checkout", checkoutForm(seen, false))
	if res.Status != 422 {
		t.Fatalf("status %d", res.Status)
	}
	sub := 2 * a.priceOf(7)
	now := sub + orders.DefaultShipping.Cost(orders.ShippingStandard, sub)
	mustContain(t, res.Body, "changed since you saw the total", fmt.Sprintf(`name="total" value="%d.%02d"`, now/100, now%100))
	if textOf(res.Body, "order-total") != views.DefaultShop.Currency.Format(now) {
		t.Errorf("new review total %q, want %s", textOf(res.Body, "order-total"), views.DefaultShop.Currency.Format(now))
	}
	if a.orderCount() != 0 || a.stockOf(7) != 10 || len(c.cartHash()) != 1 {
		t.Fatal("a refused checkout changed something")
	}
	if res := c.checkout(nil); res.Status != http.StatusSeeOther {
		t.Errorf("confirming the new total: %d", res.Status)
	}
}

func TestCheckoutRefusedSaysWhichLineAndWhy(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	a.setStock(8, 10)
	c := a.client()
	c.Register("fred")
	c.setQty("7", "3")
	c.setQty("8", "1")
	_, total := c.review()
	a.setStock(7, 2) // someone else bought most of them
	res := c.Post("/checkout", checkoutForm(total, false))
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", res.Status)
	}
	var name string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT name FROM items WHERE id = 7`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	mustContain(t, res.Body, "Your order was not placed", fmt.Sprintf("Only 2 of %s left (you asked for 3)", name), `data-testid="line-problem"`,
		`data-testid="checkout-form"`)
	if a.orderCount() != 0 || a.stockOf(7) != 2 || a.stockOf(8) != 10 || !sameMap(c.cartHash(), map[string]string{"7": "3", "8": "1"}) {
		t.Error("a refused checkout changed something")
	}
	c.setQty("7", "2")
	if res := c.checkout(nil); res.Status != http.StatusSeeOther {
		t.Errorf("checkout after fixing the line: %d", res.Status)
	}
}

// A signed-in shopper's order is on the account, and the next checkout
// offers its address.
func TestSignedInCheckoutOffersTheLastAddress(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.OrderPoll = 10 * time.Millisecond }, nil)
	a.setStock(7, 10)
	c := a.client()
	c.Register("hana")
	c.setQty("7", "1")
	page, _ := c.review()
	if strings.Contains(page.Body, `name="email"`) || strings.Contains(page.Body, `data-testid="last-address"`) {
		t.Error("a first checkout asks for an email or claims a last address")
	}
	res := c.checkout(func(f url.Values) { f.Set("shipping", "express"); f.Set("total", "") })
	if res.Status != 422 { // the total is required
		t.Fatalf("no total: %d", res.Status)
	}
	res = c.checkout(nil)
	loc := res.Header.Get("Location")
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/orders/") {
		t.Fatalf("checkout: %d to %q", res.Status, loc)
	}
	order := c.Get(loc)
	mustContain(t, order.Body, "Thank you! Order #", "12 St James&#39;s Square", "Standard delivery", "Invoice")
	if got := testids(order.Body, "order-status", "data-status"); len(got) != 1 || got[0] != "pending" {
		t.Errorf("order status %v", got)
	}
	a.fulfil()
	if got := testids(c.Get(loc).Body, "order-status", "data-status"); len(got) != 1 || got[0] != "processed" {
		t.Errorf("order status %v after fulfilment", got)
	}
	c.setQty("7", "1")
	page, _ = c.review()
	mustContain(t, page.Body, `data-testid="last-address"`, `value="Ada Lovelace"`, `value="SW1Y 4JH"`, `<option value="GB" selected>`)
}

// 50 shoppers, guests and signed-in, check out one unit each of an item
// with 10 in stock, all at once: exactly 10 orders, stock 0.
func TestConcurrentCheckoutsNeverOversell(t *testing.T) {
	a := newApp(t, nil, nil)
	const shoppers, stock, item = 50, 10, 7
	a.setStock(item, stock)
	clients := make([]*client, shoppers)
	forms := make([]url.Values, shoppers)
	for i := range clients {
		clients[i] = a.client()
		if i%2 == 0 {
			clients[i].Register(fmt.Sprintf("buyer%02d", i))
		}
		if res := clients[i].setQty(fmt.Sprint(item), "1"); res.Status != http.StatusSeeOther {
			t.Fatalf("add to cart: %d", res.Status)
		}
		_, total := clients[i].review()
		forms[i] = checkoutForm(total, i%2 == 1)
	}
	statuses := make([]int, shoppers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(context.Background(), "POST", a.srv.URL+"/checkout", strings.NewReader(forms[i].Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", a.srv.URL)
			<-start
			res, err := c.HTTP().Do(req)
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
	metrics := a.scrape(t)
	mustContain(t, metrics, fmt.Sprintf(`storefront_checkouts_total{result="ok"} %d`, stock),
		fmt.Sprintf(`storefront_checkouts_total{result="out_of_stock"} %d`, shoppers-stock),
		fmt.Sprintf("storefront_order_queue_depth %d", stock))
}
