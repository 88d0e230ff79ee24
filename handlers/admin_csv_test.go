package handlers_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"storefront/handlers/apptest"
)

// readCSV parses a CSV download, failing the test if it is not CSV.
func readCSV(t *testing.T, body string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v in %.300q", err, body)
	}
	return rows
}

// csvDownload checks a CSV answer's headers and returns its rows.
func csvDownload(t *testing.T, res apptest.Response, name string) [][]string {
	t.Helper()
	if res.Status != http.StatusOK {
		t.Fatalf("CSV: %d %.200s", res.Status, res.Body)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := res.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="`+name+`-`) || !strings.HasSuffix(cd, `.csv"`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	return readCSV(t, res.Body)
}

// column finds a header's column.
func column(t *testing.T, header []string, name string) int {
	t.Helper()
	for i, h := range header {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %s in %v", name, header)
	return -1
}

// TestOrdersCSV: the export has a header row and the orders of the list
// with the same filters (all of them, not one page); cells a spreadsheet
// would run as formulas are neutralised; a bad filter is a 400 and a
// shopper gets a 403.
func TestOrdersCSV(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(5, 200)
	shopper := a.client()
	shopper.Register("csvshopper")
	var ids []int64
	hostile := []string{"=HYPERLINK(\"http://x\")", "+1+1", "-2", "@SUM(A1)", "\tTab", "\rCR"}
	for range hostile {
		ids = append(ids, shopper.orderFor("csvshopper", 5, 1))
	}
	for i, name := range hostile {
		if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE orders SET ship_name = $1 WHERE id = $2`, name, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	admin := a.client()
	admin.signInAdmin()
	if !strings.Contains(admin.Get("/admin/orders?status=pending").Body, `href="/admin/orders.csv?status=pending"`) {
		t.Error("the order list does not link to its CSV export")
	}
	rows := csvDownload(t, admin.Get("/admin/orders.csv"), "orders")
	header := rows[0]
	if strings.Join(header, ",") != "order,placed,status,shopper,email,name,items,total,shipping,"+
		"ship_line1,ship_line2,ship_city,ship_region,ship_postcode,ship_country,ship_phone" {
		t.Fatalf("header %v", header)
	}
	if len(rows) != 7 {
		t.Fatalf("%d rows, want a header and 6 orders", len(rows))
	}
	names := map[string]bool{}
	for _, r := range rows[1:] {
		names[r[column(t, header, "name")]] = true
		if r[column(t, header, "shopper")] != "csvshopper" || r[column(t, header, "status")] != "pending" {
			t.Errorf("row %v", r)
		}
		if total := r[column(t, header, "total")]; total != fmt.Sprintf("%d.%02d", a.orderTotal(t, r[0])/100, a.orderTotal(t, r[0])%100) {
			t.Errorf("total %s", total)
		}
	}
	for _, h := range hostile {
		if !names["'"+h] {
			t.Errorf("%q is not neutralised: names %v", h, names)
		}
	}
	// The same filters as the list.
	if rows := csvDownload(t, admin.Get("/admin/orders.csv?q=%23"+itoa(ids[1])), "orders"); len(rows) != 2 || rows[1][0] != itoa(ids[1]) {
		t.Errorf("search by number: %v", rows)
	}
	if rows := csvDownload(t, admin.Get("/admin/orders.csv?status=delivered"), "orders"); len(rows) != 1 {
		t.Errorf("no delivered orders: %v", rows)
	}
	if res := admin.Get("/admin/orders.csv?status=lost"); res.Status != http.StatusBadRequest {
		t.Errorf("unknown status: %d", res.Status)
	}
	if res := shopper.Get("/admin/orders.csv"); res.Status != http.StatusForbidden {
		t.Errorf("shopper: %d", res.Status)
	}
}

func (a *app) orderTotal(t *testing.T, id string) int64 {
	t.Helper()
	var n int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT total_cents FROM orders WHERE id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOrdersCSVEveryPage: an export longer than a batch holds every order
// once, newest first.
func TestOrdersCSVEveryPage(t *testing.T) {
	a := newApp(t, nil, nil)
	var n int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM orders`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("orders before: %d %v", n, err)
	}
	// 1,203 orders (more than two batches), written directly.
	tx, err := a.store.DB().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 1203; i++ {
		if _, err := tx.ExecContext(t.Context(), `INSERT INTO orders (id, user_id, status, total_cents, created_at, email) VALUES ($1, 0, 'pending', 100, 1700000000, 'g@example.com')`, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	admin := a.client()
	admin.signInAdmin()
	rows := csvDownload(t, admin.Get("/admin/orders.csv"), "orders")
	if len(rows) != 1204 {
		t.Fatalf("%d rows, want 1,204", len(rows))
	}
	for i, r := range rows[1:] {
		if r[0] != itoa(int64(1203-i)) {
			t.Fatalf("row %d is order %s, want %d", i+2, r[0], 1203-i)
		}
	}
}

// items reads the whole items table as text, every column, by id: what
// "nothing changed" is checked against.
func (a *app) itemsSnapshot(t *testing.T) string {
	t.Helper()
	rows, err := a.store.DB().QueryContext(t.Context(), `SELECT id, slug, name, description, category, price_cents, stock, updated_at,
		COALESCE(archived_at, -1), COALESCE(sku, '') FROM items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, price, stock, updated, archived int64
		var slug, name, desc, cat, sku string
		if err := rows.Scan(&id, &slug, &name, &desc, &cat, &price, &stock, &updated, &archived, &sku); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d|%s|%s|%s|%s|%d|%d|%d|%d|%s\n", id, slug, name, desc, cat, price, stock, updated, archived, sku)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// importCSV posts data as the import form's file.
func (c *client) importCSV(data []byte, headers ...string) apptest.Response {
	c.a.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "items.csv")
	if _, err := io.Copy(fw, bytes.NewReader(data)); err != nil {
		c.a.t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		c.a.t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", c.a.srv.URL+"/admin/items/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", c.a.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.Do(req)
}

// TestItemsCSVExport: one row per item with the columns of the catalog,
// SKUs backfilled, archived items marked, formulas neutralised.
func TestItemsCSVExport(t *testing.T) {
	a := newApp(t, nil, nil)
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE items SET name = '=1+1', description = '@cmd' WHERE id = 4`); err != nil {
		t.Fatal(err)
	}
	admin := a.client()
	admin.signInAdmin()
	admin.MustPost("/admin/items/6/archive", nil, http.StatusSeeOther)
	if !strings.Contains(admin.Get("/admin/items").Body, `href="/admin/items.csv"`) {
		t.Error("the item list does not link to the export")
	}
	rows := csvDownload(t, admin.Get("/admin/items.csv"), "items")
	if got := strings.Join(rows[0], ","); got != "sku,name,category,price,compare_at,stock,options,description,archived" {
		t.Fatalf("header %s", got)
	}
	var n int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM items`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if len(rows)-1 != n {
		t.Fatalf("%d rows for %d items", len(rows)-1, n)
	}
	if r := rows[4]; r[0] != "SF-000004" || r[1] != "'=1+1" || r[7] != "'@cmd" || r[8] != "false" || r[4] != "" || r[6] != "" {
		t.Errorf("item 4: %v", r)
	}
	if r := rows[6]; r[0] != "SF-000006" || r[8] != "true" {
		t.Errorf("archived item 6: %v", r)
	}
	it, err := a.store.Catalog.Item(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := rows[1]; r[2] != it.Category || r[3] != fmt.Sprintf("%d.%02d", it.PriceCents/100, it.PriceCents%100) || r[5] != itoa(it.Stock) {
		t.Errorf("item 1: %v, want %+v", r, it)
	}
	// A new item gets its SKU at once.
	admin.MustPost("/admin/items/new", map[string][]string{"name": {"Fresh thing"}, "price": {"3.00"}, "stock": {"1"}, "category": {it.Category}}, http.StatusSeeOther)
	rows = csvDownload(t, admin.Get("/admin/items.csv"), "items")
	if last := rows[len(rows)-1]; last[0] != fmt.Sprintf("SF-%06d", n+1) || last[1] != "Fresh thing" {
		t.Errorf("new item's row %v", last)
	}
	if res := a.client().Get("/admin/items.csv"); res.Status == http.StatusOK {
		t.Error("a guest exported the catalog")
	}
}
