package apptest_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"storefront/handlers/apptest"
	"storefront/store/catalog"
	"storefront/wiring"
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
// script uses), sign up (the guest cart moves to the account), review the
// order, place it with an address, and see it processed by the
// fulfilment worker that main started. It needs no browser.
func TestCartCheckoutEndToEnd(t *testing.T) {
	apptest.Parallel(t)
	if testing.Short() {
		t.Skip("boots the whole app")
	}
	s := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"}).client(t)

	item := ""
	for id := 1; id <= 50 && item == ""; id++ { // the first demo item in stock
		if r := s.Get(fmt.Sprintf("/items/%d", id)); r.Status == 200 && strings.Contains(r.Body, `action="/cart"`) {
			item = fmt.Sprint(id)
		}
	}
	if item == "" {
		t.Fatal("no demo item in stock among the first 50")
	}
	for _, qty := range []string{"1", "2"} {
		r := s.Post("/cart", url.Values{"item": {item}, "qty": {qty}}, "Accept", "application/json")
		code, body := r.Status, r.Body
		var got struct {
			Quantity  int64 `json:"quantity"`
			CartCount int64 `json:"cart_count"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &got) != nil || fmt.Sprint(got.Quantity) != qty || fmt.Sprint(got.CartCount) != qty {
			t.Fatalf("set qty %s: %d %s", qty, code, body)
		}
	}
	form := url.Values{"username": {"e2e_cart"}, "password": {"correct horse battery"}, "email": {"e2e_cart@example.com"}, "next": {"/checkout"}}
	if r := s.Post("/register", form); r.Status != 303 || r.Header.Get("Location") != "/checkout" {
		code, loc := r.Status, r.Header.Get("Location")
		t.Fatalf("register: %d to %q", code, loc)
	}
	cart := s.Get("/cart").Body
	if m := cartLineRE.FindStringSubmatch(cart); m == nil || m[1] != item || m[2] != "2" {
		t.Fatalf("cart after signing up: %v", m)
	}
	page := s.Get("/checkout")
	code, review := page.Status, page.Body
	// The delivery is priced once the country is chosen.
	priced := s.Post("/checkout", url.Values{"country": {"GB"}, "shipping": {"standard"}, "review": {"1"}})
	m := checkoutTotalRE.FindStringSubmatch(priced.Body)
	if code != 200 || m == nil || strings.Contains(review, `name="email"`) {
		t.Fatalf("checkout page: %d, total %v", code, m)
	}
	order := url.Values{"name": {"Ada Lovelace"}, "line1": {"1 Main Street"}, "city": {"London"}, "postcode": {"N1 1AA"},
		"country": {"GB"}, "shipping": {"standard"}, "payment": {"invoice"}, "total": {m[1]}}
	r := s.Post("/checkout", order)
	code, loc := r.Status, r.Header.Get("Location")
	if code != 303 || !strings.HasPrefix(loc, "/orders/") {
		t.Fatalf("checkout: %d to %q", code, loc)
	}
	status := ""
	for deadline := time.Now().Add(orderWait); status != "processed" && time.Now().Before(deadline); {
		body := s.Get(loc).Body
		if m := orderStatusRE.FindStringSubmatch(body); m != nil {
			status = m[1]
		}
		if status != "processed" {
			time.Sleep(e2ePollInterval * 4)
		}
	}
	if status != "processed" {
		t.Fatalf("order %s is %q, want processed", loc, status)
	}
}

// TestGuestBuysWithAnAddress is the browser test of a guest's purchase:
// add to cart, change the quantity in place, go to the checkout, pick
// express delivery (the total follows), fill in the address, place the
// order and land on the order's signed page, which shows the address and
// the link to keep, and see the order processed.
func TestGuestBuysWithAnAddress(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	tb := b.tab(startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false", "SHIPPING_EXPRESS": "20.00"}))
	// Item 8 has 26 in stock in the deterministic demo catalog (any item
	// with 3 or more will do).
	const item = "8"
	line := `[data-testid="cart-line"][data-item-id="` + item + `"]`

	// Add to cart from the item page: the header count changes in place.
	tb.navigate("/items/" + item)
	page := tb.path() // the item's readable URL
	if !strings.HasPrefix(page, "/items/"+item+"-") {
		t.Fatalf("/items/%s landed on %q, want its readable URL", item, page)
	}
	eval[bool](tb, `window.e2eNotReloaded = true`)
	tb.fill("#qty", "1")
	tb.click("form.buy button[type=submit]")
	tb.waitText(`[data-testid="cart-count"]`, "1")
	if loc := tb.path(); loc != page || !eval[bool](tb, `window.e2eNotReloaded === true`) {
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

	// The checkout: a guest gives an email and an address; express
	// delivery changes the total on screen and in the form.
	tb.click(`[data-testid="checkout-link"]`)
	tb.waitPath("/checkout")
	tb.waitFor(`[data-testid="checkout-form"]`)
	// No delivery before a country; choosing one prices it (the script
	// asks for the review again) and asks for the state.
	tb.waitText(`[data-testid="shipping-cost"]`, "Choose a country")
	tb.choose("#country", "US")
	tb.waitFor(`[data-testid="region-field"][data-country="US"]`)
	tb.waitAttr(`[data-testid="delivery-zone"]`, "data-zone", "United States")
	standard := tb.text(`[data-testid="order-total"]`)
	tb.click(`input[name="shipping"][value="express"]`)
	tb.waitText(`[data-testid="shipping-cost"]`, "$20.00")
	if express := tb.text(`[data-testid="order-total"]`); express == standard {
		t.Errorf("the total stayed %q after choosing express", express)
	}
	if got, want := tb.attr(`input[name="total"]`, "value"), tb.attr(`input[name="shipping"][value="express"]`, "data-total"); got != want {
		t.Errorf("form total %q, want the express total %q", got, want)
	}
	tb.fill("#email", "guest@example.com")
	tb.fill("#name", "Grace Hopper")
	tb.fill("#line1", "1 Navy Yard")
	tb.fill("#city", "Arlington")
	tb.fill("#region", "VA")
	tb.fill("#postcode", "22202")
	tb.fill("#phone", "+1 703 555 0100")
	tb.click(`input[name="payment"][value="cod"]`)
	tb.screenshot("checkout")
	tb.click(`[data-testid="checkout-form"] button[type=submit]`)
	order := tb.waitPath("/guest-orders/")
	tb.waitFor(`[data-testid="order-link"]`)
	if addr := tb.text(`[data-testid="order-address"]`); !strings.Contains(addr, "1 Navy Yard") || !strings.Contains(addr, "Arlington, VA 22202") ||
		!strings.Contains(addr, "United States") || !strings.Contains(addr, "+1 703 555 0100") {
		t.Errorf("order address %q", addr)
	}
	if got := tb.text(`[data-testid="order-shipping"]`); got != "Express delivery" {
		t.Errorf("order delivery %q", got)
	}
	tb.waitText(`[data-testid="cart-count"]`, "0")
	tb.screenshot("order")
	tb.reloadUntil(order, `document.querySelector('[data-testid="order-status"]')?.getAttribute("data-status") || ""`, "processed", orderWait)
}

// TestAccountCartOnTwoBrowsers is the browser test of a signed-in cart:
// one account in two browsers (separate cookies) shares one cart, a guest
// cart merges into it at sign-in (the guest's quantity winning), and it
// survives signing out.
func TestAccountCartOnTwoBrowsers(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"})
	laptop := b.tab(app)
	phone := b.freshTab(t, app)
	line := func(item string) string { return `[data-testid="cart-line"][data-item-id="` + item + `"]` }
	addToCart := func(tb *e2eTab, item, qty string) {
		tb.navigate("/items/" + item)
		tb.fill("#qty", qty)
		tb.click("form.buy button[type=submit]")
		tb.waitFor(".cart-msg a[href='/cart']")
	}
	signIn := func(tb *e2eTab, form string) {
		tb.navigate("/" + form)
		tb.fill("#username", "two_devices")
		tb.fill("#password", "correct horse battery")
		if form == "register" {
			tb.fill("#email", "two_devices@example.com")
		}
		tb.click("form[action='/" + form + "'] button[type=submit]")
		tb.waitFor(`[data-testid="user-name"]`)
	}

	// The laptop signs up and fills the account's cart.
	signIn(laptop, "register")
	addToCart(laptop, "8", "2")
	addToCart(laptop, "9", "1")

	// The phone shops as a guest, then signs in: its lines merge in, its
	// quantity of item 8 wins.
	addToCart(phone, "8", "5")
	addToCart(phone, "10", "1")
	signIn(phone, "login")
	phone.navigate("/cart")
	phone.waitFor(line("10"))
	if got := phone.attrs(`[data-testid="cart-line"]`, "data-qty"); strings.Join(got, ",") != "5,1,1" {
		t.Errorf("phone's cart after sign-in: quantities %v, want 5,1,1 (items 8, 9, 10)", got)
	}
	phone.waitText(`[data-testid="cart-count"]`, "7")

	// A change on the phone shows on the laptop.
	phone.fill("#qty-9", "4")
	phone.click(line("9") + " .qty-form button[type=submit]")
	phone.waitAttr(line("9"), "data-qty", "4")
	laptop.navigate("/cart")
	laptop.waitAttr(line("9"), "data-qty", "4")
	laptop.waitText(`[data-testid="cart-count"]`, "10")
	laptop.screenshot("laptop-cart")

	// Signing out on the laptop leaves the cart to the account: the phone
	// still has it, and signing in again brings it back.
	laptop.click(`form[action="/logout"] button[type=submit]`)
	laptop.waitText(`[data-testid="cart-count"]`, "0")
	phone.navigate("/cart")
	phone.waitAttr(line("8"), "data-qty", "5")
	signIn(laptop, "login")
	laptop.navigate("/cart")
	laptop.waitAttr(line("10"), "data-qty", "1")
	laptop.waitText(`[data-testid="cart-count"]`, "10")
}

// cartState is what a person sees of the cart page: each line (its item,
// variant, quantity, text, quantity field and label), the subtotal, the
// header's count and whether the cart reads as empty.
var cartState = stateJS(`{
	lines: [...document.querySelectorAll('[data-testid="cart-line"]')].map(r => [r.dataset.itemId, r.dataset.variantId, r.dataset.qty,
		r.dataset.sku, fold(r.innerText), val('input[name="qty"][type="number"]', r), attr('input[name="qty"][type="number"]', "max", r),
		attr('input[name="qty"][type="number"]', "aria-invalid", r), fold((r.querySelector("label") || {}).textContent || "")].join(" | ")),
	subtotal: text('tfoot th'), total: text('[data-testid="cart-total"]'), count: text('[data-testid="cart-count"]'),
	empty: shown(document.querySelector("[data-cart-empty]"))
}`)

// TestBrowserCartTwoVariantsOfOneItem: a cart with two sizes of one item
// (and an item without options): changing the second size's quantity,
// lowering one below a stock that fell behind the page's back, and
// removing the first size, each in place, leave the page as a reload
// renders it, the other lines untouched. At 390 and 1280 px.
func TestBrowserCartTwoVariantsOfOneItem(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"}, func(o *wiring.Options) { o.SeedVariants = true })
	sizes := variantIDs(t, app, 8)
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			tb := b.freshTab(t, app)
			tb.size(s)
			plain := tb.plainTab(t, s)
			for _, path := range []string{"/items/7", "/items/8?variant=" + sizes.id("S"), "/items/8?variant=" + sizes.id("M")} {
				tb.navigate(path)
				tb.click(`[data-testid="add-to-cart"]`)
				tb.waitFor(".cart-msg a[href='/cart']")
			}
			setVariantStock(t, app, 8, sizes["M"], 6)
			row := func(size string) string {
				return `[data-testid="cart-line"][data-item-id="8"][data-variant-id="` + sizes.id(size) + `"]`
			}
			tb.navigate("/cart")
			tb.waitFor(row("M"))
			eval[bool](tb, `window.e2eNotReloaded = true`)

			// The second size's quantity: only its line changes.
			tb.fill(row("M")+` input[name="qty"][type="number"]`, "3")
			tb.click(row("M") + ` .qty-form button[type=submit]`)
			tb.waitAttr(row("M"), "data-qty", "3")
			sameAsServer(t, tb, plain, "/cart", cartState, "M's quantity changed to 3")

			// Sold behind the page's back: a reload says only 2 are left;
			// lowering the quantity to 2 in place clears that.
			setVariantStock(t, app, 8, sizes["M"], 2)
			tb.navigate("/cart")
			tb.waitFor(row("M") + ` [data-testid="line-problem"]`)
			eval[bool](tb, `window.e2eNotReloaded = true`)
			tb.fill(row("M")+` input[name="qty"][type="number"]`, "2")
			tb.click(row("M") + ` .qty-form button[type=submit]`)
			tb.waitAttr(row("M"), "data-qty", "2")
			sameAsServer(t, tb, plain, "/cart", cartState, "M's quantity lowered to the stock left")

			// The first size removed: the second stays.
			tb.click(row("S") + ` button[aria-label^="Remove"]`)
			tb.waitUntil("the S line to go", e2eStepTimeout, func() (bool, string, error) {
				n, err := peek[int](tb, fmt.Sprintf("document.querySelectorAll(%q).length", row("S")))
				return err == nil && n == 0, fmt.Sprint(n, " S lines"), err
			})
			sameAsServer(t, tb, plain, "/cart", cartState, "S removed")
			if !eval[bool](tb, `window.e2eNotReloaded === true`) {
				t.Error("changing the cart reloaded the page; the script should work in place")
			}
			if got := tb.attr(row("M")+` button[aria-label^="Remove"]`, "aria-label"); !strings.HasSuffix(got, "(Size: M)") {
				t.Errorf("the remove button of M is labelled %q: it does not say which size", got)
			}
			tb.screenshot("cart-two-sizes-" + s.name)
		})
	}
}

// setVariantStock sets a variant's stock as the admin's options form
// would (the item's stock follows, its pages are purged).
func setVariantStock(t *testing.T, app *browserApp, item, variant, stock int64) {
	t.Helper()
	ctx := t.Context()
	it, err := app.Store.Catalog.Item(ctx, item)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := app.Store.Catalog.Variants(ctx, item)
	if err != nil {
		t.Fatal(err)
	}
	for i := range vs {
		if vs[i].ID == variant {
			vs[i].Stock = stock
		}
	}
	if err := app.Store.Catalog.SaveVariants(ctx, item, catalog.VariantSet{Options: it.Options, Variants: vs}); err != nil {
		t.Fatal(err)
	}
}
