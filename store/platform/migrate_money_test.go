package platform_test

import (
	"testing"

	"storefront/store/platform"
	"storefront/store/storetest"
)

// The money migrations keep a database's orders refundable by the one
// rule: an order's discount came off its goods unless its code is a
// free-delivery one, and its delivery holds its share of the tax; a code's
// uses learn their customer's address (a guest's, or the account's, in
// lower case), so per-customer caps compare members and guests alike.
func TestMoneyMigrationsKeepOrders(t *testing.T) {
	ctx := t.Context()
	db := storetest.DB(t)
	if err := platform.MigrateBefore(ctx, db, "130"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO users (id, username, username_key, password_hash, created_at, email) VALUES (5, 'Mia', 'mia', '', 0, ' Mia@Example.com')`,
		`INSERT INTO discount_codes (id, code, code_key, kind, value, created_at) VALUES (1, 'FreeShip', 'FREESHIP', 'free_shipping', 0, 0)`,
		`INSERT INTO discount_codes (id, code, code_key, kind, value, created_at) VALUES (2, 'Pct10', 'PCT10', 'percent', 1000, 0)`,
		// 20.00 with a free-delivery code: the 4.99 discount is the delivery's.
		`INSERT INTO orders (id, user_id, status, total_cents, created_at, subtotal_cents, discount_cents, discount_code, shipping_cents, tax_cents, tax_mode)
			VALUES (1, 5, 'delivered', 2000, 0, 2000, 499, 'FreeShip', 499, 0, 'included')`,
		// 20.00 less 10%, tax added: 3.60 on the goods and 1.00 on the delivery.
		`INSERT INTO orders (id, user_id, status, total_cents, created_at, subtotal_cents, discount_cents, discount_code, shipping_cents, tax_cents, tax_mode)
			VALUES (2, 0, 'delivered', 2759, 0, 2000, 200, 'Pct10', 499, 460, 'added')`,
		// No code, tax added: 4.00 and 1.00.
		`INSERT INTO orders (id, user_id, status, total_cents, created_at, subtotal_cents, discount_cents, discount_code, shipping_cents, tax_cents, tax_mode)
			VALUES (3, 0, 'delivered', 2999, 0, 2000, 0, '', 499, 500, 'added')`,
		`INSERT INTO discount_uses (order_id, code_id, customer) VALUES (1, 1, 'user:5')`,
		`INSERT INTO discount_uses (order_id, code_id, customer) VALUES (2, 2, 'email:guest@example.com')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := platform.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct{ id, goodsDiscount, shippingTax int64 }{{1, 0, 0}, {2, 200, 100}, {3, 0, 100}} {
		var gd, st int64
		if err := db.QueryRowContext(ctx, `SELECT goods_discount_cents, shipping_tax_cents FROM orders WHERE id = $1`, want.id).Scan(&gd, &st); err != nil {
			t.Fatal(err)
		}
		if gd != want.goodsDiscount || st != want.shippingTax {
			t.Errorf("order %d: goods discount %d, delivery tax %d; want %d and %d", want.id, gd, st, want.goodsDiscount, want.shippingTax)
		}
	}
	for id, want := range map[int64]string{1: "mia@example.com", 2: "guest@example.com"} {
		var email string
		if err := db.QueryRowContext(ctx, `SELECT email FROM discount_uses WHERE order_id = $1`, id).Scan(&email); err != nil || email != want {
			t.Errorf("use of order %d: email %q, %v; want %q", id, email, err, want)
		}
	}
}
