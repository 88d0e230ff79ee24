package platform_test

import (
	"testing"

	"storefront/store/platform"
	"storefront/store/storetest"
)

// The variants migration keeps a database's orders: every existing order
// line becomes a line of its item's implicit variant (0) with the item's
// SKU, and an order may then hold two variants of one item.
func TestVariantsMigrationKeepsOrders(t *testing.T) {
	ctx := t.Context()
	db := storetest.DB(t)
	if err := platform.MigrateBefore(ctx, db, "125"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO items (id, slug, name, description, category, price_cents, stock, updated_at, sku) VALUES (1, 'mug-1', 'Mug', '', 'Home', 500, 3, 0, 'SF-000001')`,
		`INSERT INTO orders (id, user_id, status, total_cents, created_at) VALUES (1, 0, 'pending', 1000, 0)`,
		`INSERT INTO order_lines (order_id, item_id, name, price_cents, qty) VALUES (1, 1, 'Mug', 500, 2)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := platform.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	var variant, qty int64
	var sku, options string
	if err := db.QueryRowContext(ctx, `SELECT variant_id, sku, qty FROM order_lines WHERE order_id = 1 AND item_id = 1`).Scan(&variant, &sku, &qty); err != nil {
		t.Fatal(err)
	}
	if variant != 0 || sku != "SF-000001" || qty != 2 {
		t.Errorf("old line: variant %d sku %q qty %d", variant, sku, qty)
	}
	if err := db.QueryRowContext(ctx, `SELECT option_names FROM items WHERE id = 1`).Scan(&options); err != nil || options != "" {
		t.Errorf("old item's options %q, %v; want none", options, err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO order_lines (order_id, item_id, variant_id, name, price_cents, qty) VALUES (1, 1, 7, 'Mug', 500, 1)`); err != nil {
		t.Errorf("a second variant of the item in one order: %v", err)
	}
}
