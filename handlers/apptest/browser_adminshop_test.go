package apptest_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"storefront/store/board"
	"storefront/store/cart"
	"storefront/store/orders"
)

// signInAdmin signs the admin in through the login form.
func (tb *e2eTab) signInAdmin(app *browserApp) {
	tb.navigate("/login")
	tb.fill("#username", "admin")
	tb.fill("#password", app.AdminPassword)
	tb.click(`form[action="/login"] button[type=submit]`)
	tb.waitFor(`[data-testid=user-name]`)
}

// TestBrowserAdminItemList: the admin searches the item list, opens an
// item from it and archives it; its page then answers 410 and the list
// marks it archived.
func TestBrowserAdminItemList(t *testing.T) {
	b := newBrowser(t)
	app := startBrowserApp(t, nil)
	it, err := app.Store.Catalog.Item(t.Context(), 17)
	if err != nil {
		t.Fatal(err)
	}
	tab := b.tab(app)
	tab.signInAdmin(app)
	tab.navigate("/admin/items")
	if n := tab.count(`[data-testid=admin-item-row]`); n != 50 {
		t.Fatalf("%d rows on the first page, want 50", n)
	}
	tab.fill("#admin-q", it.Name)
	tab.click(`form[action="/admin/items"] button[type=submit]`)
	tab.waitUntil("the search result", e2eStepTimeout, func() (bool, string, error) {
		ids, err := peek[[]string](tab, `Array.from(document.querySelectorAll('[data-testid=admin-item-row]')).map(e => e.dataset.itemId)`)
		return err == nil && len(ids) >= 1 && ids[0] == "17", strings.Join(ids, ","), err
	})
	tab.click(`[data-testid=admin-item-row][data-item-id="17"] a`)
	tab.waitFor(`[data-testid=archive-item]`)
	tab.click(`[data-testid=archive-item]`)
	tab.waitFor(`[data-testid=item-archived]`)
	if res := tab.navigateResponse("/items/17"); res.Status != http.StatusGone {
		t.Errorf("archived item page: %d, want 410", res.Status)
	}
	tab.navigate("/admin/items?q=17")
	if got := tab.attr(`[data-testid=admin-item-row][data-item-id="17"]`, "data-archived"); got != "true" {
		t.Errorf("the list marks the item archived=%q", got)
	}
	tab.screenshot("admin-items")
}

// TestBrowserAdminMovesOrder: a shopper's order appears on the admin's
// order list; the admin moves it to paid with the row's form, and the
// shopper's order page shows the new status and its timeline.
func TestBrowserAdminMovesOrder(t *testing.T) {
	b := newBrowser(t)
	app := startBrowserApp(t, nil)
	ctx := t.Context()
	if _, err := app.DB.ExecContext(ctx, `UPDATE items SET stock = 10 WHERE id = 4`); err != nil {
		t.Fatal(err)
	}
	shopper := app.client(t)
	if res := shopper.Post("/register", url.Values{"username": {"buyer"}, "password": {"correct horse battery"}, "email": {"buyer@example.com"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("register: %d", res.Status)
	}
	if res := shopper.Post("/cart", url.Values{"item": {"4"}, "qty": {"2"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("cart: %d", res.Status)
	}
	token := shopper.Cookie("sid")
	buyer, err := app.Store.Sessions.UserByName(ctx, "buyer")
	if err != nil {
		t.Fatal(err)
	}
	o, err := app.Store.Orders.Checkout(ctx, orders.CheckoutRequest{Cart: cart.Owner{UserID: buyer.ID, Token: token},
		Shipping: orders.ShippingStandard, Payment: orders.PayInvoice, ExpectTotal: -1, Address: orders.Address{Name: "Ada Lovelace", Line1: "1 Main Street", City: "London", Postcode: "N1 1AA", Country: "GB"}})
	if err != nil {
		t.Fatal(err)
	}
	id := itoaE2E(o.ID)

	tab := b.tab(app)
	tab.signInAdmin(app)
	tab.navigate("/admin/orders")
	row := `[data-testid=admin-order-row][data-order-id="` + id + `"]`
	tab.waitFor(row)
	tab.do("choose paid", chromedp.SetValue(chromedp.CSS(row+` select`), orders.OrderPaid))
	tab.click(row + ` [data-testid=move-order]`)
	tab.waitUntil("the order shows paid", e2eStepTimeout, func() (bool, string, error) {
		st, err := peek[string](tab, `(document.querySelector('`+row+`') || {dataset: {}}).dataset.status || ''`)
		return err == nil && st == "paid", st, err
	})
	if flash := tab.text(`[data-testid=flash]`); !strings.Contains(flash, "is now Paid") {
		t.Errorf("flash %q", flash)
	}
	res := shopper.Get("/orders/" + id)
	st, body := res.Status, res.Body
	if st != http.StatusOK || !strings.Contains(body, `data-status="paid"`) || !strings.Contains(body, `data-testid="order-timeline"`) {
		t.Errorf("the shopper's order page: %d", st)
	}
	tab.screenshot("admin-orders")
}

// TestBrowserHiddenComment: the admin hides a comment with its button; a
// reader no longer sees it and its author sees that a moderator hid it.
func TestBrowserHiddenComment(t *testing.T) {
	b := newBrowser(t)
	app := startBrowserApp(t, nil)
	ctx := t.Context()
	author, err := app.Store.Sessions.CreateUser(ctx, "writer", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	spammer, err := app.Store.Sessions.CreateUser(ctx, "spammer", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Store.Board.PostArticle(ctx, board.NewArticle{Title: "A fine article", Link: "https://example.com/a", Groups: []string{"care"}, PosterID: author.ID, Poster: author.Username})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.Board.AddComment(ctx, a.ID, author.ID, author.Username, "Thanks for reading"); err != nil {
		t.Fatal(err)
	}
	spam, err := app.Store.Board.AddComment(ctx, a.ID, spammer.ID, spammer.Username, "Cheap watches here")
	if err != nil {
		t.Fatal(err)
	}
	ref := board.CommentRef(a.ID, spam.ID)
	page := "/articles/" + itoaE2E(a.ID)

	tab := b.tab(app)
	tab.signInAdmin(app)
	tab.navigate(page)
	sel := `[data-testid=comment][data-comment-id="` + ref + `"]`
	tab.waitFor(sel + ` [data-testid=hide-comment]`)
	tab.click(sel + ` [data-testid=hide-comment]`)
	tab.waitFor(sel + ` [data-testid=comment-hidden]`)

	reader := b.freshTab(t, app)
	reader.navigate(page)
	reader.waitFor(`[data-testid=article]`)
	if n := reader.count(sel); n != 0 {
		t.Errorf("a reader still sees the hidden comment")
	}
	if n := reader.count(`[data-testid=comment]`); n != 1 {
		t.Errorf("a reader sees %d comments, want 1", n)
	}
	own := b.freshTab(t, app)
	own.navigate("/login")
	own.fill("#username", "spammer")
	own.fill("#password", "correct horse battery")
	own.click(`form[action="/login"] button[type=submit]`)
	own.waitFor(`[data-testid=user-name]`)
	own.navigate(page)
	own.waitFor(sel + ` [data-testid=comment-hidden]`)
	if txt := own.text(sel + ` [data-testid=comment-hidden]`); !strings.Contains(txt, "hidden by a moderator") {
		t.Errorf("the author sees %q", txt)
	}
	tab.screenshot("hidden-comment")
}

func itoaE2E(n int64) string { return strconv.FormatInt(n, 10) }
