package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// A SKU names one item or one variant, whatever its case, on every path:
// a new item's default SKU steps around a variant that has it, the import
// refuses an item row with a variant's SKU or another item's SKU in
// another case (422, the reason, nothing changed), the database itself
// refuses a shared SKU, and after all of it the export imports back
// unchanged.
func TestSKUsAreUniqueAcrossItemsAndVariants(t *testing.T) {
	a := variantApp(t)
	a.runImports()
	ctx := t.Context()
	admin := a.client()
	admin.signInAdmin()
	var next int64
	if err := a.store.DB().QueryRowContext(ctx, `SELECT MAX(id) + 1 FROM items`).Scan(&next); err != nil {
		t.Fatal(err)
	}
	nextSKU := fmt.Sprintf("SF-%06d", next)
	// A variant takes the SKU the next new item would get by default.
	if res := admin.Post("/admin/items/7/variants", variantForm([4]string{nextSKU, "S", "", "3"})); res.Status != http.StatusSeeOther {
		t.Fatalf("variant with %s: %d", nextSKU, res.Status)
	}
	cat := a.itemCategory(1)
	admin.MustPost("/admin/items/new", map[string][]string{"name": {"Fresh thing"}, "price": {"3.00"}, "stock": {"1"}, "category": {cat}}, http.StatusSeeOther)
	if got := a.itemField(next, "sku"); got != nextSKU+"-2" {
		t.Errorf("the new item's SKU is %q beside the variant's %s, want %s-2", got, nextSKU, nextSKU)
	}

	head := "sku,name,category,price,stock\n"
	for name, file := range map[string]string{
		"a variant's SKU on an item row":  head + "SF-000008-M,Shirt," + cat + ",1.00,5\n",
		"an item's SKU in another case":   head + "sf-000001,Other," + cat + ",1.00,5\n",
		"two new rows in different cases": head + "NEW-1,One," + cat + ",1.00,5\nnew-1,Two," + cat + ",1.00,5\n",
	} {
		before := a.itemsSnapshot(t)
		res := admin.importCSV([]byte(file))
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `data-testid="import-refused"`) {
			t.Errorf("%s: %d, want 422: %.300s", name, res.Status, res.Body)
		}
		if !strings.Contains(res.Body, "another item or variant has this SKU") && !strings.Contains(res.Body, "is also on row") {
			t.Errorf("%s: the refusal does not say why: %.2000s", name, res.Body)
		}
		if a.itemsSnapshot(t) != before {
			t.Errorf("%s: a refused import changed the catalog", name)
		}
	}

	// The database refuses a shared SKU whatever path writes it.
	for _, q := range []string{
		`INSERT INTO item_variants (item_id, sku, option1, stock) VALUES (7, 'sf-000002', 'Q', 1)`,
		`UPDATE items SET sku = 'SF-000008-M' WHERE id = 3`,
		`UPDATE item_variants SET sku = 'SF-000003' WHERE sku = 'SF-000008-M'`,
		`INSERT INTO items (id, slug, name, description, category, price_cents, stock, updated_at, sku) VALUES (99999, 'x-99999', 'X', '', 'Books', 1, 1, 0, 'Sf-000004')`,
	} {
		if _, err := a.store.DB().ExecContext(ctx, q); err == nil {
			t.Errorf("the database took a shared SKU: %s", q)
		}
	}

	export := []byte(admin.Get("/admin/items.csv").Body)
	rows := readCSV(t, string(export))
	before := a.itemsSnapshot(t)
	if got := admin.importOK(export); got != fmt.Sprintf("Imported the catalog: 0 created, 0 updated, %d unchanged.", len(rows)-1) {
		t.Errorf("the export imported back: %q", got)
	}
	if a.itemsSnapshot(t) != before {
		t.Error("importing the export changed the catalog")
	}
}
