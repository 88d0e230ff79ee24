package platform_test

import (
	"testing"

	"storefront/store/platform"
	"storefront/store/storetest"
)

// The SKU migration makes SKUs shared before it unique (the item with
// the lowest id keeps its SKU, a later item gets -<id>, a variant that
// shares an item's or an earlier variant's gets -V<id>), and from then on
// the database refuses a SKU another item or variant has, whatever the
// case; an item renamed frees its old SKU.
func TestSKUMigrationMakesSharedSKUsUnique(t *testing.T) {
	ctx := t.Context()
	db := storetest.DB(t)
	if err := platform.MigrateBefore(ctx, db, "150"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO items (id, slug, name, description, category, price_cents, stock, updated_at, sku, option_names) VALUES
			(1, 'a-1', 'A', '', 'Home', 500, 3, 0, 'SF-000001', ''),
			(2, 'b-2', 'B', '', 'Home', 500, 3, 0, 'sf-000001', ''),
			(3, 'c-3', 'C', '', 'Home', 500, 3, 0, 'SF-000003', 'Size')`,
		`INSERT INTO item_variants (id, item_id, sku, option1, stock) VALUES (1, 3, 'SF-000001', 'S', 1), (2, 3, 'X-1', 'M', 1), (3, 3, 'x-1', 'L', 1)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := platform.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		`SELECT sku FROM items WHERE id = 1`:         "SF-000001",
		`SELECT sku FROM items WHERE id = 2`:         "sf-000001-2",
		`SELECT sku FROM item_variants WHERE id = 1`: "SF-000001-V1",
		`SELECT sku FROM item_variants WHERE id = 2`: "X-1",
		`SELECT sku FROM item_variants WHERE id = 3`: "x-1-V3",
	} {
		var got string
		if err := db.QueryRowContext(ctx, q).Scan(&got); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", q, got, err, want)
		}
	}
	for _, q := range []string{
		`INSERT INTO item_variants (id, item_id, sku, option1, stock) VALUES (9, 3, 'sf-000003', 'XL', 1)`,
		`UPDATE items SET sku = 'x-1' WHERE id = 1`,
		`UPDATE item_variants SET sku = 'SF-000001' WHERE id = 2`,
	} {
		if _, err := db.ExecContext(ctx, q); err == nil {
			t.Errorf("the database took a shared SKU: %s", q)
		}
	}
	for _, q := range []string{
		`UPDATE items SET sku = 'RENAMED' WHERE id = 1`,
		`INSERT INTO item_variants (id, item_id, sku, option1, stock) VALUES (4, 3, 'sf-000001', 'XL', 1)`,
		`UPDATE item_variants SET sku = 'Y-2' WHERE id = 2`,
		`INSERT INTO item_variants (id, item_id, sku, option1, stock) VALUES (5, 3, 'X-1', 'XXL', 1)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Errorf("a freed SKU: %s: %v", q, err)
		}
	}
}
