package handlers_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
)

// The catalog export has one row per variant, with its SKU, options,
// price and stock; it imports back unchanged, a changed stock updates the
// variant (and the item's sum), and a row with options whose SKU is no
// variant's refuses the file, changing nothing.
func TestItemsCSVRowPerVariant(t *testing.T) {
	a := variantApp(t)
	a.runImports()
	admin := a.client()
	admin.signInAdmin()
	export := admin.MustGet("/admin/items.csv", http.StatusOK)
	recs, err := csv.NewReader(strings.NewReader(export.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var m []string
	skus := map[string]bool{}
	for _, r := range recs[1:] {
		skus[r[0]] = true
		if r[0] == "SF-000008-M" {
			m = r
		}
	}
	if m == nil || m[6] != "Size: M" || skus["SF-000008"] || !skus["SF-000007"] || !skus["SF-000008-XL"] {
		t.Fatalf("export: M's row %v; item 8's own row %v, item 7's %v", m, skus["SF-000008"], skus["SF-000007"])
	}
	snap, mBefore := a.itemsSnapshot(t), a.variantStock("SF-000008-M")
	admin.importOK([]byte(export.Body))
	if a.itemsSnapshot(t) != snap || a.variantStock("SF-000008-M") != mBefore {
		t.Error("importing the export changed the catalog")
	}
	sum, mStock := a.stockOf(8), a.variantStock("SF-000008-M")
	header := strings.Join(recs[0], ",") + "\n"
	var one bytes.Buffer
	w := csv.NewWriter(&one)
	m[5] = "42"
	if err := w.Write(m); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	admin.importOK([]byte(header + one.String()))
	if got := a.variantStock("SF-000008-M"); got != 42 {
		t.Errorf("M stock %d after the import, want 42", got)
	}
	if got := a.stockOf(8); got != sum-mStock+42 {
		t.Errorf("item stock %d, want %d", got, sum-mStock+42)
	}
	before := a.itemsSnapshot(t)
	bad := header + "NO-SUCH-VARIANT,Thing,Apparel,10.00,,3,Size: S,,false\n"
	if res := admin.importCSV([]byte(bad)); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "variants page") {
		t.Errorf("unknown variant row: %d", res.Status)
	}
	if a.itemsSnapshot(t) != before || a.variantStock("SF-000008-M") != 42 {
		t.Error("a refused import changed something")
	}
}
