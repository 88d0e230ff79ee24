package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"storefront/store/orders"
	"storefront/store/pricing"
	"storefront/views"
	"storefront/wiring"
)

// adminPost signs an admin in on a new client and posts form to path.
func (a *app) adminPost(path string, form url.Values) (*client, int, string) {
	a.t.Helper()
	c := a.client()
	c.signInAdmin()
	res := c.Post(path, form)
	return c, res.Status, res.Body
}

// newCode creates a discount code through the admin's form.
func (a *app) newCode(form url.Values) {
	a.t.Helper()
	if _, status, body := a.adminPost("/admin/discounts", form); status != http.StatusSeeOther {
		a.t.Fatalf("create code %v: %d %s", form, status, textOf(body, "field-error"))
	}
}

// codeRow is a code's count of uses as the admin's list shows it ("" when
// the code is not listed).
func (a *app) codeUsed(admin *client, code string) string {
	a.t.Helper()
	body := admin.Get("/admin/discounts").Body
	codes, used := testids(body, "admin-discount-row", "data-code"), testids(body, "admin-discount-row", "data-used")
	for i, c := range codes {
		if c == code {
			return used[i]
		}
	}
	return ""
}

// rowText is the text of the first element with the testid and of the
// elements in it, tags dropped and spaces folded.
func rowText(body, id string) string {
	i := strings.Index(body, `data-testid="`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	if j := strings.Index(rest, "</tr>"); j >= 0 {
		rest = rest[:j]
	}
	rest = rest[strings.Index(rest, ">")+1:]
	return strings.Join(strings.Fields(tagRE.ReplaceAllString(rest, " ")), " ")
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// tableCount counts a table's rows, failing the test on a read error.
func (a *app) tableCount(table string) int {
	a.t.Helper()
	var n int
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// A code applied on the cart (in any case) shows on the cart, the review
// and the order, with the tax the prices include for GB; the admin's list
// counts its use, and cancelling the order gives it back.
func TestDiscountCodeFromCartToOrder(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	a.newCode(url.Values{"code": {"Save10"}, "kind": {"percent"}, "value": {"10"}, "max_uses": {"3"}})
	price := a.priceOf(7)
	c := a.client()
	c.setQty("7", "2")
	if res := c.Post("/cart/discount", url.Values{"code": {" save10 "}}); res.Status != http.StatusSeeOther {
		t.Fatalf("apply: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	want := pricing.Compute([]int64{2 * price}, &pricing.Code{Kind: pricing.KindPercent, Value: 1000}, pricing.DefaultRates,
		pricing.MethodStandard, 2000, true)
	cartPage := c.Get("/cart").Body
	if got := testids(cartPage, "discount-line", "data-amount"); len(got) != 1 || got[0] != fmt.Sprintf("%d.%02d", want.Discount/100, want.Discount%100) {
		t.Errorf("cart discount line %v, want %d cents", got, want.Discount)
	}
	if got := testids(cartPage, "discount-line", "data-code"); len(got) != 1 || got[0] != "Save10" {
		t.Errorf("cart discount code %v", got)
	}

	// The review for GB: the discount, the tax the prices include, the total.
	f := checkoutForm("0.00", true)
	res := c.Post("/checkout", f) // the total 0.00 is stale: 422 with the GB review
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("stale total: %d", res.Status)
	}
	if got := textOf(res.Body, "order-total"); got != views.DefaultShop.Currency.Format(want.Total) {
		t.Errorf("review total %q, want %s", got, views.DefaultShop.Currency.Format(want.Total))
	}
	if tax := rowText(res.Body, "tax-line"); !strings.Contains(tax, "includes "+views.DefaultShop.Currency.Format(want.Tax)+" tax") {
		t.Errorf("tax line %q, want includes %s", tax, views.DefaultShop.Currency.Format(want.Tax))
	}
	f.Set("total", totalInput.FindStringSubmatch(res.Body)[1])
	placed := c.Post("/checkout", f)
	if placed.Status != http.StatusSeeOther {
		t.Fatalf("place: %d %s", placed.Status, textOf(placed.Body, "field-error"))
	}
	order := c.Get(placed.Header.Get("Location")).Body
	if textOf(order, "order-total") != views.DefaultShop.Currency.Format(want.Total) || !strings.Contains(rowText(order, "discount-line"), views.DefaultShop.Currency.Format(want.Discount)) ||
		!strings.Contains(rowText(order, "tax-line"), views.DefaultShop.Currency.Format(want.Tax)) {
		t.Errorf("order page: total %q discount %q tax %q", textOf(order, "order-total"), rowText(order, "discount-line"), rowText(order, "tax-line"))
	}
	if strings.Contains(c.Get("/cart").Body, `data-testid="discount-line"`) {
		t.Error("the code stayed on the emptied cart")
	}
	admin := a.client()
	admin.signInAdmin()
	if got := a.codeUsed(admin, "Save10"); got != "1" {
		t.Errorf("used %q, want 1", got)
	}
	var id int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT id FROM orders`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.Orders.MoveOrder(t.Context(), id, 0, orders.OrderCancelled, orders.AdminActor("admin")); err != nil {
		t.Fatal(err)
	}
	if got := a.codeUsed(admin, "Save10"); got != "0" {
		t.Errorf("used after the cancel %q, want 0", got)
	}
}

// Every refusal of a code is a 422 that says why, and changes nothing:
// no code on the cart, no use taken.
func TestDiscountCodeRefusals(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	a.newCode(url.Values{"code": {"OLD"}, "kind": {"amount"}, "value": {"5"}, "ends": {"2001-01-31"}})
	a.newCode(url.Values{"code": {"LATER"}, "kind": {"amount"}, "value": {"5"}, "starts": {"2999-01-01"}})
	a.newCode(url.Values{"code": {"BIGSPENDER"}, "kind": {"amount"}, "value": {"5"}, "min_subtotal": {"99999"}})
	a.newCode(url.Values{"code": {"ONCE"}, "kind": {"free_shipping"}, "max_uses": {"1"}})
	first := a.client()
	first.setQty("7", "1")
	if res := first.Post("/cart/discount", url.Values{"code": {"once"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("apply ONCE: %d", res.Status)
	}
	if res := first.checkout(nil); res.Status != http.StatusSeeOther {
		t.Fatalf("order with ONCE: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	c := a.client()
	c.setQty("7", "1")
	for _, tc := range []struct{ code, says string }{
		{"NOPE", "There is no discount code NOPE"},
		{"old", "expired on 2001-01-31"},
		{"Later", "can be used from 2999-01-01"},
		{"bigspender", "needs items worth at least " + views.DefaultShop.Currency.Format(9999900)},
		{"ONCE", "has been used up"},
		{"SAVE 10", "without spaces"},
		{strings.Repeat("A", 200), "without spaces"},
		{"", "without spaces"},
	} {
		res := c.Post("/cart/discount", url.Values{"code": {tc.code}})
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(textOf(res.Body, "field-error"), tc.says) {
			t.Errorf("%q: %d %q, want 422 saying %q", tc.code, res.Status, textOf(res.Body, "field-error"), tc.says)
		}
		if strings.Contains(c.Get("/cart").Body, `data-testid="discount-line"`) {
			t.Errorf("%q: a refused code is on the cart", tc.code)
		}
	}
	if n := a.tableCount("discount_uses"); n != 1 {
		t.Errorf("%d uses, want 1", n)
	}
	// An empty cart takes no code; removing one always works.
	empty := a.client()
	if res := empty.Post("/cart/discount", url.Values{"code": {"ONCE"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("code on an empty cart: %d", res.Status)
	}
	if res := c.Post("/cart/discount", url.Values{"code": {"A", "B"}}); res.Status != http.StatusBadRequest {
		t.Errorf("two codes: %d", res.Status)
	}
}

// A shopper removes the applied code; an applied code that stopped working
// (used up since) is refused at the checkout with why: 422, no order.
func TestDiscountRemoveAndUsedUpAtCheckout(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	a.newCode(url.Values{"code": {"LAST"}, "kind": {"amount"}, "value": {"1.50"}, "max_uses": {"1"}})
	one, two := a.client(), a.client()
	for _, c := range []*client{one, two} {
		c.setQty("7", "1")
		if res := c.Post("/cart/discount", url.Values{"code": {"LAST"}}); res.Status != http.StatusSeeOther {
			t.Fatalf("apply: %d", res.Status)
		}
	}
	_, total := two.review() // two saw the discounted total
	if res := one.checkout(nil); res.Status != http.StatusSeeOther {
		t.Fatalf("one: %d", res.Status)
	}
	res := two.Post("/checkout", checkoutForm(total, true))
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "has been used up") {
		t.Fatalf("two after the last use went: %d %q", res.Status, textOf(res.Body, "field-error"))
	}
	if a.orderCount() != 1 {
		t.Errorf("%d orders, want 1", a.orderCount())
	}
	if res := two.Post("/cart/discount/remove", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("remove: %d", res.Status)
	}
	if strings.Contains(two.Get("/cart").Body, `data-testid="discount-line"`) {
		t.Error("the code is still on the cart")
	}
	if res := two.checkout(nil); res.Status != http.StatusSeeOther {
		t.Errorf("two without the code: %d", res.Status)
	}
}

// Thirty guests with the code in their carts check out at once through
// the router; with max_uses 5 exactly 5 orders are placed and carry the
// code, the others get 422 saying it is used up.
func TestDiscountCapUnderConcurrentCheckoutPages(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 500)
	a.newCode(url.Values{"code": {"RUSH"}, "kind": {"percent"}, "value": {"20"}, "max_uses": {"5"}})
	const n = 30
	clients := make([]*client, n)
	forms := make([]url.Values, n)
	for i := range clients {
		clients[i] = a.client()
		clients[i].setQty("7", "1")
		if res := clients[i].Post("/cart/discount", url.Values{"code": {"rush"}}); res.Status != http.StatusSeeOther {
			t.Fatalf("apply %d: %d", i, res.Status)
		}
		_, total := clients[i].review()
		forms[i] = checkoutForm(total, true)
		forms[i].Set("email", fmt.Sprintf("rusher%d@example.com", i))
	}
	statuses := make([]int, n)
	bodies := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res := clients[i].Post("/checkout", forms[i])
			statuses[i], bodies[i] = res.Status, res.Body
		}()
	}
	close(start)
	wg.Wait()
	placed := 0
	for i, s := range statuses {
		switch {
		case s == http.StatusSeeOther:
			placed++
		case s == http.StatusUnprocessableEntity && strings.Contains(bodies[i], "The code RUSH has been used up."):
		default:
			t.Errorf("checkout %d: %d %q", i, s, textOf(bodies[i], "field-error"))
		}
	}
	var carrying int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM orders WHERE discount_code = 'RUSH'`).Scan(&carrying); err != nil {
		t.Fatal(err)
	}
	if placed != 5 || carrying != 5 || a.orderCount() != 5 {
		t.Errorf("placed %d, carrying %d, orders %d; want 5 each", placed, carrying, a.orderCount())
	}
	if s := a.stockOf(7); s != 495 {
		t.Errorf("stock %d, want 495", s)
	}
}

// The admin's discount form refuses bad values with 422 and its message,
// and saves nothing.
func TestAdminDiscountFormRefusals(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	ok := url.Values{"code": {"GOOD"}, "kind": {"percent"}, "value": {"10"}}
	for _, tc := range []struct {
		field, value, says string
	}{
		{"code", "HAS SPACE", "without spaces"},
		{"code", strings.Repeat("x", 200), "without spaces"},
		{"kind", "bogof", "Choose percent"},
		{"value", "-5", "A percentage is more than 0"},
		{"value", "150", "A percentage is more than 0"},
		{"value", "0", "A percentage is more than 0"},
		{"min_subtotal", "-1", "The minimum is an amount"},
		{"min_subtotal", "99999999999", "The minimum is an amount"},
		{"starts", "2026-13-01", "YYYY-MM-DD"},
		{"ends", "yesterday", "YYYY-MM-DD"},
		{"max_uses", "-1", "A whole number from 0"},
		{"max_per_customer", "1e9", "A whole number from 0"},
	} {
		f := url.Values{}
		for k, v := range ok {
			f[k] = v
		}
		f.Set(tc.field, tc.value)
		res := admin.Post("/admin/discounts", f)
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, tc.says) {
			t.Errorf("%s=%q: %d, want 422 saying %q", tc.field, tc.value, res.Status, tc.says)
		}
	}
	res := admin.Post("/admin/discounts", url.Values{"code": {"X"}, "kind": {"amount"}, "value": {"5"}, "starts": {"2026-05-02"}, "ends": {"2026-05-01"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "before the first") {
		t.Errorf("ends before starts: %d", res.Status)
	}
	if n := a.tableCount("discount_codes"); n != 0 {
		t.Errorf("%d codes saved", n)
	}
	if res := a.client().Post("/admin/discounts", ok); !strings.HasPrefix(res.Header.Get("Location"), "/login") || a.tableCount("discount_codes") != 0 {
		t.Errorf("a guest saved a code: %d", res.Status)
	}
}

// Zones and tax rates through the admin pages: the review follows them;
// bad values are 422 and change nothing.
func TestAdminShippingAndTax(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	price := a.priceOf(7)
	admin := a.client()
	admin.signInAdmin()
	page := admin.Get("/admin/shipping").Body
	names := testids(page, "admin-zone-row", "data-zone-id")
	if len(names) != 4 || !strings.Contains(page, "United States") || !strings.Contains(page, "Rest of world") {
		t.Fatalf("zones %v", names) // three zones and the new-zone form
	}
	europe := url.Values{"id": {names[1]}, "name": {"Europe"}, "countries": {"GB, DE, FR"}, "standard": {"7.00"}, "express": {"20"}, "free_over": {"0"}}
	for field, bad := range map[string]string{"standard": "-1", "express": "100000.01", "free_over": "lots", "countries": "GB, Germany", "name": ""} {
		f := url.Values{}
		for k, v := range europe {
			f[k] = v
		}
		f.Set(field, bad)
		if res := admin.Post("/admin/shipping", f); res.Status != http.StatusUnprocessableEntity || textOf(res.Body, "field-error") == "" {
			t.Errorf("%s=%q: %d", field, bad, res.Status)
		}
	}
	notACountry := url.Values{"name": {"Nowhere"}, "countries": {"GB, XZ"}, "standard": {"1"}, "express": {"2"}, "free_over": {"0"}}
	if res := admin.Post("/admin/shipping", notACountry); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "XZ is not a country") {
		t.Errorf("a code that is no country: %d %q", res.Status, textOf(res.Body, "field-error"))
	}
	conflict := url.Values{"name": {"Islands"}, "countries": {"IS, US"}, "standard": {"1"}, "express": {"2"}, "free_over": {"0"}}
	if res := admin.Post("/admin/shipping", conflict); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "US is already in the zone United States") {
		t.Errorf("a country of another zone: %d %q", res.Status, textOf(res.Body, "field-error"))
	}
	if zs, err := a.store.Pricing.Zones(t.Context(), true); err != nil || len(zs) != 3 || zs[1].Rates != pricing.DefaultRates || !zs[1].FollowsKnobs {
		t.Fatalf("a refused zone changed something: %+v %v", zs, err)
	}
	if res := admin.Post("/admin/shipping", europe); res.Status != http.StatusSeeOther {
		t.Fatalf("save Europe: %d %q", res.Status, textOf(res.Body, "field-error"))
	}
	for form, says := range map[string]string{"country=GB&rate=101": "from 0 to 100", "country=GB&rate=-2": "from 0 to 100", "country=Britain&rate=5": "two-letter"} {
		v, _ := url.ParseQuery(form)
		if res := admin.Post("/admin/tax", v); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, says) {
			t.Errorf("%s: %d", form, res.Status)
		}
	}
	if got := testids(admin.Get("/admin/tax").Body, "admin-tax-row", "data-rate"); len(got) != 8 {
		t.Errorf("tax rows %v, want the 8 demo rates", got)
	}
	if res := admin.Post("/admin/tax", url.Values{"country": {"gb"}, "rate": {"25"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("set GB: %d", res.Status)
	}
	c := a.client()
	c.setQty("7", "1")
	res := c.Post("/checkout", checkoutForm("0.00", true))
	want := pricing.Compute([]int64{price}, nil, pricing.Rates{Standard: 700, Express: 2000}, pricing.MethodStandard, 2500, true)
	if textOf(res.Body, "shipping-cost") != views.DefaultShop.Currency.Format(700) || textOf(res.Body, "order-total") != views.DefaultShop.Currency.Format(want.Total) ||
		!strings.Contains(rowText(res.Body, "tax-line"), views.DefaultShop.Currency.Format(want.Tax)) || !strings.Contains(rowText(res.Body, "tax-line"), "25%") {
		t.Errorf("GB review: delivery %q total %q tax %q; want %+v", textOf(res.Body, "shipping-cost"), textOf(res.Body, "order-total"), rowText(res.Body, "tax-line"), want)
	}
	// A country of no zone is priced as the rest of the world; "Update
	// the review" prices it without placing the order (no JavaScript).
	f := url.Values{"country": {"AR"}, "shipping": {"standard"}, "review": {"1"}}
	again := c.Post("/checkout", f)
	if got := textOf(again.Body, "shipping-cost"); again.Status != http.StatusOK || got != views.DefaultShop.Currency.Format(1499) || a.orderCount() != 0 {
		t.Errorf("AR review: %d delivery %q, want 200 and %s, no order", again.Status, got, views.DefaultShop.Currency.Format(1499))
	}
	if got := rowText(again.Body, "tax-line"); !strings.Contains(got, "includes "+views.DefaultShop.Currency.Format(0)+" tax") {
		t.Errorf("AR tax line %q: a country without a rate pays none", got)
	}
}

// With PRICES_INCLUDE_TAX=false the tax is added to the order's total.
func TestCheckoutAddsTaxWhenPricesExcludeIt(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.PricesExcludeTax = true }, nil)
	a.setStock(7, 10)
	price := a.priceOf(7)
	c := a.client()
	c.setQty("7", "3")
	res := c.Post("/checkout", checkoutForm("0.00", true))
	want := pricing.Compute([]int64{3 * price}, nil, pricing.DefaultRates, pricing.MethodStandard, 2000, false)
	if want.Total != want.Subtotal+want.Shipping+want.Tax || textOf(res.Body, "order-total") != views.DefaultShop.Currency.Format(want.Total) {
		t.Fatalf("review total %q, want %s", textOf(res.Body, "order-total"), views.DefaultShop.Currency.Format(want.Total))
	}
	if tax := rowText(res.Body, "tax-line"); !strings.HasSuffix(tax, " "+views.DefaultShop.Currency.Format(want.Tax)) || strings.Contains(tax, "includes") {
		t.Errorf("tax line %q, want %s", tax, views.DefaultShop.Currency.Format(want.Tax))
	}
	f := checkoutForm(totalInput.FindStringSubmatch(res.Body)[1], true)
	if res := c.Post("/checkout", f); res.Status != http.StatusSeeOther {
		t.Fatalf("place: %d", res.Status)
	}
	var total, tax int64
	var mode string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT total_cents, tax_cents, tax_mode FROM orders`).Scan(&total, &tax, &mode); err != nil {
		t.Fatal(err)
	}
	if total != want.Total || tax != want.Tax || mode != pricing.TaxAdded {
		t.Errorf("stored total %d tax %d mode %q", total, tax, mode)
	}
}

// An order placed before discounts and tax were recorded (as the migration
// leaves it: tax_mode ”, subtotal = total - shipping) shows as before: no
// tax or discount line, its total.
func TestOrderFromBeforePricingDisplays(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("oldtimer")
	var uid int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT id FROM users WHERE username = 'oldtimer'`).Scan(&uid); err != nil {
		t.Fatal(err)
	}
	var id int64
	err := a.store.DB().QueryRowContext(t.Context(), `INSERT INTO orders (user_id, status, total_cents, created_at, ship_name, ship_line1, ship_city,
		ship_postcode, ship_country, shipping_method, shipping_cents, payment_method, subtotal_cents)
		VALUES ($1, 'processed', 2499, 1, 'Old', '1 Old St', 'York', 'YO1 1AA', 'GB', 'standard', 499, 'invoice', 2000) RETURNING id`, uid).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.DB().ExecContext(t.Context(), `INSERT INTO order_lines (order_id, item_id, name, price_cents, qty) VALUES ($1, 7, 'Old thing', 1000, 2)`, id); err != nil {
		t.Fatal(err)
	}
	page := c.Get("/orders/" + itoa(id)).Body
	if textOf(page, "order-total") != views.DefaultShop.Currency.Format(2499) || textOf(page, "shipping-cost") != views.DefaultShop.Currency.Format(499) ||
		strings.Contains(page, `data-testid="tax-line"`) || strings.Contains(page, `data-testid="discount-line"`) {
		t.Errorf("old order: total %q delivery %q tax %q", textOf(page, "order-total"), textOf(page, "shipping-cost"), rowText(page, "tax-line"))
	}
}
