package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/views"
)

// setStock and priceOf reach into the catalog for test fixtures.
func (a *app) setStock(id, stock int64) {
	a.t.Helper()
	if _, err := a.store.DB().ExecContext(a.t.Context(), `UPDATE items SET stock = $1 WHERE id = $2`, stock, id); err != nil {
		a.t.Fatal(err)
	}
}

func (a *app) stockOf(id int64) int64 {
	a.t.Helper()
	var n int64
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT stock FROM items WHERE id = $1`, id).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

func (a *app) priceOf(id int64) int64 {
	a.t.Helper()
	var n int64
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT price_cents FROM items WHERE id = $1`, id).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// cartKey is the Redis key of the cart the client sees: its account's
// when its session is signed in, else its guest session's.
func (c *client) cartKey() string {
	c.a.t.Helper()
	sk := keys.OfSession(c.Cookie("sid"))
	if id, err := c.a.store.Redis().HGet(c.a.t.Context(), keys.Login, sk.ID).Result(); err == nil && c.Cookie("sid") != "" {
		uid, _ := strconv.ParseInt(id, 10, 64)
		return keys.AccountCart(uid)
	}
	return sk.Cart
}

// cartHash is the Redis cart the client sees, as stored.
func (c *client) cartHash() map[string]string {
	c.a.t.Helper()
	if c.Cookie("sid") == "" {
		return map[string]string{}
	}
	m, err := c.a.store.Redis().HGetAll(c.a.t.Context(), c.cartKey()).Result()
	if err != nil {
		c.a.t.Fatal(err)
	}
	return m
}

func (c *client) setQty(item, qty string, headers ...string) apptest.Response {
	c.a.t.Helper()
	return c.Post("/cart", url.Values{"item": {item}, "qty": {qty}}, headers...)
}

// cartLines reads the cart page's lines as item id -> quantity.
func cartLines(body string) map[string]string {
	ids := testids(body, "cart-line", "data-item-id")
	qtys := testids(body, "cart-line", "data-qty")
	out := map[string]string{}
	for i := range ids {
		out[ids[i]] = qtys[i]
	}
	return out
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestCartSetReplaceRemove(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 50)
	a.setStock(8, 50)
	c := a.client()

	res := c.setQty("7", "2")
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/cart" {
		t.Fatalf("add: status %d location %q", res.Status, res.Header.Get("Location"))
	}
	if c.Cookie("sid") == "" {
		t.Fatal("a cart write gave the guest no session")
	}
	page := c.Get("/cart")
	if page.Status != 200 || !sameMap(cartLines(page.Body), map[string]string{"7": "2"}) {
		t.Fatalf("cart page %d lines %v", page.Status, cartLines(page.Body))
	}
	mustContain(t, page.Body, "Your cart has 2 ×") // the flash
	if got := textOf(page.Body, "cart-total"); got != views.DefaultShop.Currency.Format(2*a.priceOf(7)) {
		t.Errorf("cart-total %q, want %s", got, views.DefaultShop.Currency.Format(2*a.priceOf(7)))
	}

	c.setQty("7", "5") // replaces
	c.setQty("8", "1")
	page = c.Get("/cart")
	if !sameMap(cartLines(page.Body), map[string]string{"7": "5", "8": "1"}) {
		t.Fatalf("lines %v", cartLines(page.Body))
	}
	if got := textOf(page.Body, "cart-count"); got != "6" {
		t.Errorf("header cart-count %q, want 6 (total quantity)", got)
	}
	if got := textOf(c.Get("/items").Body, "cart-count"); got != "6" {
		t.Errorf("cart-count on another page %q, want 6", got)
	}
	want := views.DefaultShop.Currency.Format(5*a.priceOf(7) + a.priceOf(8))
	if got := textOf(page.Body, "cart-total"); got != want {
		t.Errorf("cart-total %q, want %s", got, want)
	}

	for _, qty := range []string{"0", "-3", "-0"} { // each removes
		c.setQty("7", "4")
		if res := c.setQty("7", qty); res.Status != http.StatusSeeOther {
			t.Errorf("qty %s: status %d", qty, res.Status)
		}
		if got := c.cartHash(); !sameMap(got, map[string]string{"8": "1"}) {
			t.Errorf("after qty %s the cart is %v", qty, got)
		}
	}
	c.setQty("8", "0")
	page = c.Get("/cart")
	if len(cartLines(page.Body)) != 0 || textOf(page.Body, "cart-count") != "0" {
		t.Errorf("emptied cart shows %v", cartLines(page.Body))
	}
	mustContain(t, page.Body, "Your cart is empty")
}

func TestCartsArePerSession(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 50)
	one, two := a.client(), a.client()
	one.setQty("7", "3")
	two.setQty("7", "1")
	if got := cartLines(one.Get("/cart").Body); got["7"] != "3" {
		t.Errorf("first cart %v", got)
	}
	if got := cartLines(two.Get("/cart").Body); got["7"] != "1" {
		t.Errorf("second cart %v", got)
	}
	if got := cartLines(a.client().Get("/cart").Body); len(got) != 0 {
		t.Errorf("a new visitor sees %v", got)
	}
}

func TestCartValidation(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 500) // plenty
	a.setStock(8, 5)   // a few
	a.setStock(9, 0)   // sold out
	form := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v.Encode()
	}
	tests := []struct {
		name   string
		body   string
		ctype  string
		status int
		msg    string
	}{
		{"letters", form("item", "7", "qty", "abc"), "", 422, "whole number"},
		{"fraction", form("item", "7", "qty", "1.5"), "", 422, "whole number"},
		{"exponent", form("item", "7", "qty", "1e9"), "", 422, "whole number"},
		{"empty", form("item", "7", "qty", ""), "", 422, "Enter a quantity"},
		{"spaces", form("item", "7", "qty", "  "), "", 422, "Enter a quantity"},
		{"more than MAX_LINE_QTY", form("item", "7", "qty", "100"), "", 422, "at most 99"},
		{"huge", form("item", "7", "qty", "99999999999999999999999"), "", 422, "at most 99"},
		{"more than stock", form("item", "8", "qty", "6"), "", 422, "Only 5"},
		{"out of stock", form("item", "9", "qty", "1"), "", 422, "sold out"},
		{"unknown item", form("item", "999999", "qty", "1"), "", 422, "not in the catalog"},
		{"missing qty", form("item", "7"), "", 400, "which item and what quantity"},
		{"missing item", form("qty", "1"), "", 400, "which item and what quantity"},
		{"nothing", "", "", 400, "which item and what quantity"},
		{"duplicate qty", form("item", "7", "qty", "1", "qty", "2"), "", 400, "once each"},
		{"duplicate item", form("item", "7", "item", "8", "qty", "1"), "", 400, "once each"},
		{"item not a number", form("item", "abc", "qty", "1"), "", 400, "item number"},
		{"item zero", form("item", "0", "qty", "1"), "", 400, "item number"},
		{"item negative", form("item", "-7", "qty", "1"), "", 400, "item number"},
		{"JSON body", `{"item":7,"qty":1}`, "application/json", 415, "takes a form"},
		{"bad encoding", "item=7&qty=%zz", "", 400, "could not be read"},
	}
	for _, asJSON := range []bool{false, true} {
		c := a.client()
		c.setQty("7", "2") // something in the cart that must not change
		before := c.cartHash()
		for _, tc := range tests {
			t.Run(tc.name+map[bool]string{false: "", true: " (JSON)"}[asJSON], func(t *testing.T) {
				req, _ := http.NewRequest("POST", a.srv.URL+"/cart", strings.NewReader(tc.body))
				ct := tc.ctype
				if ct == "" {
					ct = "application/x-www-form-urlencoded"
				}
				req.Header.Set("Content-Type", ct)
				req.Header.Set("Origin", a.srv.URL)
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				if asJSON {
					req.Header.Set("Accept", "application/json")
				}
				res := c.Do(req)
				if res.Status != tc.status {
					t.Fatalf("status %d, want %d: %.300s", res.Status, tc.status, res.Body)
				}
				if asJSON {
					var got struct{ Error string }
					if err := json.Unmarshal([]byte(res.Body), &got); err != nil || !strings.Contains(got.Error, tc.msg) {
						t.Errorf("JSON %q (%v), want error containing %q", res.Body, err, tc.msg)
					}
				} else {
					mustContain(t, res.Body, tc.msg)
					if tc.status == 422 {
						mustContain(t, res.Body, `data-testid="field-error"`, "Your cart")
						if got := cartLines(res.Body); !sameMap(got, map[string]string{"7": "2"}) {
							t.Errorf("re-rendered cart shows %v", got)
						}
					}
				}
				if after := c.cartHash(); !sameMap(before, after) {
					t.Errorf("cart changed: %v -> %v", before, after)
				}
			})
		}
	}
	// A visitor without a session gets the same answers and no session.
	c := a.client()
	if res := c.setQty("9", "1"); res.Status != 422 || c.Cookie("sid") != "" {
		t.Errorf("guest, sold out item: status %d, sid %q", res.Status, c.Cookie("sid"))
	}
	if res := c.setQty("7", "0"); res.Status != http.StatusSeeOther || c.Cookie("sid") != "" {
		t.Errorf("guest removing from no cart: status %d, sid %q", res.Status, c.Cookie("sid"))
	}
}

func TestCartQueryStringIsNotTheForm(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	if res := c.Post("/cart?item=7&qty=1", nil); res.Status != 400 {
		t.Errorf("status %d, want 400", res.Status)
	}
}

func TestCartJSON(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 50)
	a.setStock(8, 50)
	c := a.client()
	var got struct {
		Item      int64
		Quantity  int64
		CartCount int64 `json:"cart_count"`
		Lines     int
		Total     string
		TotalC    int64 `json:"total_cents"`
		Message   string
		Line      *struct {
			ItemID   int64 `json:"item_id"`
			Quantity int64
			Total    string
		}
	}
	send := func(item, qty string) {
		t.Helper()
		res := c.setQty(item, qty, "Accept", "application/json")
		if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("status %d type %q: %s", res.Status, res.Header.Get("Content-Type"), res.Body)
		}
		got.Line = nil
		if err := json.Unmarshal([]byte(res.Body), &got); err != nil {
			t.Fatal(err)
		}
	}
	send("7", "2")
	send("8", "3")
	p7, p8 := a.priceOf(7), a.priceOf(8)
	if got.Item != 8 || got.Quantity != 3 || got.CartCount != 5 || got.Lines != 2 || got.TotalC != 2*p7+3*p8 ||
		got.Total != views.DefaultShop.Currency.Format(2*p7+3*p8) || got.Line == nil || got.Line.Total != views.DefaultShop.Currency.Format(3*p8) || got.Message == "" {
		t.Errorf("answer %+v", got)
	}
	// The header's count agrees with the JSON answer's.
	if h := textOf(c.Get("/").Body, "cart-count"); h != strconv.FormatInt(got.CartCount, 10) {
		t.Errorf("header %q, JSON cart_count %d", h, got.CartCount)
	}
	send("8", "0")
	if got.Line != nil || got.Quantity != 0 || got.CartCount != 2 || got.TotalC != 2*p7 {
		t.Errorf("after removal %+v", got)
	}
}

func TestCartPageShowsProblems(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 5)
	a.setStock(8, 5)
	c := a.client()
	c.setQty("7", "4")
	c.setQty("8", "2")
	a.setStock(7, 2)
	a.setStock(8, 0)
	page := c.Get("/cart")
	mustContain(t, page.Body, "Only 2 left", "Sold out", `data-testid="line-problem"`)
	if len(cartLines(page.Body)) != 2 {
		t.Errorf("lines %v", cartLines(page.Body))
	}
	mustContain(t, c.Get("/items/7").Body, "js/cart.")
}

// TestCartReadsThroughRowCache: the cart page's prices come through the
// one read path that the row cache serves.
func TestCartReadsThroughRowCache(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	if res := c.Post("/cart", url.Values{"item": {"2"}, "qty": {"1"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("add: %d", res.Status)
	}
	it, err := a.store.Catalog.Item(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	it.PriceCents = 4242
	row, _ := json.Marshal(map[string]any{"id": it.ID, "slug": it.Slug, "name": it.Name, "description": it.Description,
		"category": it.Category, "price_cents": it.PriceCents, "stock": it.Stock, "updated_at": it.UpdatedAt, "cached_at": 1})
	if err := a.store.Redis().Set(t.Context(), keys.RowCache(2), row, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	mustContain(t, c.Get("/cart").Body, "$42.42")
}

// TestArchivedItemLeavesTheCartsSale: an item archived while it sits in a
// cart, guest's or account's, shows there as no longer sold (data-available
// "false", the words, a Remove button), is left out of the total and the
// subtotal's count (the header still counts it: it is in the cart until
// removed); the checkout page names it before any address is typed, and
// placing the order is refused with 422 naming it, nothing bought.
func TestArchivedItemLeavesTheCartsSale(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(8, 50)
	a.setStock(9, 50)
	admin := a.client()
	admin.signInAdmin()
	gone, err := a.store.Catalog.Item(t.Context(), 9)
	if err != nil {
		t.Fatal(err)
	}
	guest := a.client()
	member := a.client()
	member.Register("rhea")
	for _, c := range []*client{guest, member} {
		c.setQty("8", "2")
		c.setQty("9", "1")
	}
	admin.MustPost("/admin/items/9/archive", nil, http.StatusSeeOther)
	sale := 2 * a.priceOf(8)

	for name, c := range map[string]*client{"guest": guest, "account": member} {
		page := c.MustGet("/cart", http.StatusOK)
		avail := map[string]string{}
		ids := testids(page.Body, "cart-line", "data-item-id")
		for i, v := range testids(page.Body, "cart-line", "data-available") {
			avail[ids[i]] = v
		}
		if avail["8"] != "true" || avail["9"] != "false" {
			t.Errorf("%s: cart lines available %v, want 8 true and 9 false", name, avail)
		}
		line := lineHTML(t, page.Body, "9")
		if !strings.Contains(line, "No longer sold") || !strings.Contains(line, gone.Name) ||
			!strings.Contains(line, `name="qty" value="0"`) || !strings.Contains(line, ">Remove<") {
			t.Errorf("%s: the archived line does not say it is no longer sold, with its name and a Remove button: %s", name, line)
		}
		if strings.Contains(line, `type="number"`) {
			t.Errorf("%s: the archived line still offers a quantity", name)
		}
		if got := textOf(page.Body, "cart-total"); got != views.DefaultShop.Currency.Format(sale) {
			t.Errorf("%s: cart total %s, want %s (without the archived line)", name, got, views.DefaultShop.Currency.Format(sale))
		}
		if !strings.Contains(page.Body, "Subtotal (<span data-subtotal-count>2</span><span data-subtotal-word> items</span>)") {
			t.Errorf("%s: the subtotal does not count 2 items for sale", name)
		}
		if got := cartCount(page.Body); got != "2" {
			t.Errorf("%s: header count %s, want 2 (the lines that can be bought)", name, got)
		}

		review := c.MustGet("/checkout", http.StatusOK)
		alert := regexp.MustCompile(`(?s)<p class="alert"[^>]*>(.*?)</p>`).FindStringSubmatch(review.Body)
		form := strings.Index(review.Body, `data-testid="checkout-form"`)
		if alert == nil || !strings.Contains(alert[1], gone.Name) || !strings.Contains(alert[1], "no longer sold") ||
			strings.Index(review.Body, alert[0]) > form {
			t.Errorf("%s: the checkout page does not name the archived item above the form: %v", name, alert)
		}
		if avail := testids(review.Body, "review-line", "data-available"); strings.Join(avail, ",") != "true,false" {
			t.Errorf("%s: review lines available %v", name, avail)
		}
		if got := textOf(review.Body, "subtotal"); got != views.DefaultShop.Currency.Format(sale) {
			t.Errorf("%s: checkout subtotal %s, want %s", name, got, views.DefaultShop.Currency.Format(sale))
		}
		orders, stock8 := a.orderCount(), a.stockOf(8)
		res := c.checkout(nil)
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, gone.Name+" is no longer sold") {
			t.Errorf("%s: placing the order: %d, want 422 naming %q", name, res.Status, gone.Name)
		}
		if a.orderCount() != orders || a.stockOf(8) != stock8 {
			t.Errorf("%s: a refused order changed something", name)
		}

		// The JSON answer agrees; removing the line lets the order through.
		var got struct {
			CartCount     int64 `json:"cart_count"`
			SubtotalCount int64 `json:"subtotal_count"`
			Total         string
		}
		res = c.postJSON("/cart", url.Values{"item": {"8"}, "qty": {"2"}}, &got)
		if res.Status != http.StatusOK || got.CartCount != 2 || got.SubtotalCount != 2 || got.Total != views.DefaultShop.Currency.Format(sale) {
			t.Errorf("%s: JSON %d %+v", name, res.Status, got)
		}
		c.MustPost("/cart", url.Values{"item": {"9"}, "qty": {"0"}}, http.StatusSeeOther)
		if res := c.checkout(nil); res.Status != http.StatusSeeOther {
			t.Errorf("%s: checkout without the archived line: %d", name, res.Status)
		}
	}
}

// lineHTML is the markup of the cart line for item id.
func lineHTML(t *testing.T, body, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<tr data-testid="cart-line" data-item-id="` + id + `".*?</tr>`).FindString(body)
	if m == "" {
		t.Fatalf("no cart line for item %s", id)
	}
	return m
}
