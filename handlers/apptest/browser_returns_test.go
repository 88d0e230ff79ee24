package apptest_test

import (
	"testing"

	"storefront/store/cart"
	"storefront/store/orders"
)

// TestBrowserReturn: a return from request to refund, with JavaScript off
// in the shopper's tab. The shopper asks to return one of two units from
// the delivered order's page; the admin approves it, receives it (the
// restock box ticked) and refunds it from /admin/returns; the order page
// then shows the return refunded, and the order's refund is the line's
// price.
func TestBrowserReturn(t *testing.T) {
	b := newBrowser(t)
	app := startBrowserApp(t, nil)
	ctx := t.Context()
	if _, err := app.DB.ExecContext(ctx, `UPDATE items SET stock = 10 WHERE id = 4`); err != nil {
		t.Fatal(err)
	}
	shopper := b.freshTab(t, app)
	shopper.disableScripts()
	shopper.navigate("/register")
	shopper.fill("#username", "returner")
	shopper.fill("#password", "correct horse battery")
	shopper.fill("#email", "returner@example.com")
	shopper.click(`form[action="/register"] button[type=submit]`)
	shopper.waitFor(`[data-testid=user-name]`)
	u, err := app.Store.Sessions.UserByName(ctx, "returner")
	if err != nil {
		t.Fatal(err)
	}
	owner := cart.Owner{UserID: u.ID, Token: shopper.cookie("sid")}
	if _, err := app.Store.Cart.SetCartLine(ctx, owner, 4, 2); err != nil {
		t.Fatal(err)
	}
	o, err := app.Store.Orders.Checkout(ctx, orders.CheckoutRequest{Cart: owner, Shipping: orders.ShippingStandard, Payment: orders.PayInvoice,
		ExpectTotal: -1, Address: orders.Address{Name: "Ada Lovelace", Line1: "1 Main Street", City: "London", Postcode: "N1 1AA", Country: "GB"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.Orders.MoveOrder(ctx, o.ID, 0, orders.OrderDelivered, orders.AdminActor("admin")); err != nil {
		t.Fatal(err)
	}
	id := itoaE2E(o.ID)

	shopper.navigate("/orders/" + id)
	shopper.waitFor(`[data-testid=return-form]`)
	shopper.click(`[data-testid=return-form] input[name=line][value="4"]`)
	shopper.fill(`#qty-4`, "1")
	shopper.fill(`#return-reason`, "One is enough")
	shopper.click(`[data-testid=return-submit]`)
	shopper.waitFor(`[data-testid=order-return][data-status=requested]`)
	shopper.screenshot("return-requested")

	admin := b.freshTab(t, app)
	admin.signInAdmin(app)
	admin.navigate("/admin")
	admin.click(`[data-testid=admin-returns-link]`)
	row := `[data-testid=admin-return-row][data-status=requested]`
	admin.waitFor(row)
	rid := admin.attr(row, "data-return-id")
	row = `[data-testid=admin-return-row][data-return-id="` + rid + `"]`
	for _, step := range []struct{ button, then string }{
		{"return-approve", "approved"}, {"return-receive", "received"}, {"return-refund", "refunded"},
	} {
		admin.click(row + ` [data-testid=` + step.button + `]`)
		admin.waitAttr(row, "data-status", step.then)
	}
	admin.screenshot("admin-returns")

	shopper.navigate("/orders/" + id)
	shopper.waitFor(`[data-testid=order-return][data-return-id="` + rid + `"][data-status=refunded]`)
	got, err := app.Store.Orders.OrderAny(ctx, o.ID)
	if err != nil || got.RefundedCents != got.Lines[0].PriceCents {
		t.Fatalf("refunded %d, want the line's price %d: %v", got.RefundedCents, got.Lines[0].PriceCents, err)
	}
	var stock int64
	if err := app.DB.QueryRowContext(ctx, `SELECT stock FROM items WHERE id = 4`).Scan(&stock); err != nil {
		t.Fatal(err)
	}
	if stock != 9 {
		t.Errorf("stock %d after the restock, want 9 (10, less 2 sold, plus 1 back)", stock)
	}
}
