package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/handlers/apptest"
	"storefront/store/keys"
)

// importOK posts a file that must be taken, waits for its job and
// returns the result its page shows.
func (c *client) importOK(data []byte) string {
	c.a.t.Helper()
	return textOf(c.awaitImport(c.importCSV(data)), "import-result")
}

// runImports runs the imports worker until the test ends.
func (a *app) runImports() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.store.Catalog.ImportsWorker().Run(ctx) }()
	a.t.Cleanup(func() { cancel(); <-done })
}

// awaitImport follows an accepted import (a 303, or a JSON 202) to its
// job's page and reads it until the job ends; it returns that page
// (JSON when the upload asked for JSON).
func (c *client) awaitImport(res apptest.Response) string {
	c.a.t.Helper()
	loc := res.Header.Get("Location")
	if (res.Status != http.StatusSeeOther && res.Status != http.StatusAccepted) || !strings.HasPrefix(loc, "/admin/imports/") {
		c.a.t.Fatalf("import not taken: %d %s %.500s", res.Status, loc, res.Body)
	}
	var headers []string
	if res.Status == http.StatusAccepted {
		headers = []string{"Accept", "application/json"}
	}
	for deadline := time.Now().Add(2 * time.Minute); ; {
		p := c.Get(loc, headers...)
		if p.Status != http.StatusOK {
			c.a.t.Fatalf("%s: %d", loc, p.Status)
		}
		if ended := importEnded(p.Body); ended {
			return p.Body
		}
		if time.Now().After(deadline) {
			c.a.t.Fatalf("import %s did not end: %.500s", loc, p.Body)
		}
		time.Sleep(10 * time.Millisecond) // the pause between polls
	}
}

// importEnded reads an import job's page, HTML or JSON, for its end.
func importEnded(body string) bool {
	var j struct{ State string }
	if json.Unmarshal([]byte(body), &j) != nil {
		if s := testids(body, "import-job", "data-state"); len(s) == 1 {
			j.State = s[0]
		}
	}
	return j.State == "done" || j.State == "failed"
}

// TestItemsImport: the export imports back unchanged; a file that
// changes a price and adds an item creates and updates exactly those (the
// item's cached page and the search follow at once); the same file again
// changes nothing, not even a time stamp.
func TestItemsImport(t *testing.T) {
	a := newApp(t, nil, nil)
	a.runImports()
	admin := a.client()
	admin.signInAdmin()
	// A name the export neutralises imports back as it was.
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE items SET name = '-50% lamp' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	admin.MustPost("/admin/items/7/archive", nil, http.StatusSeeOther)
	if !strings.Contains(admin.Get("/admin/items").Body, `href="/admin/items/import"`) {
		t.Error("the item list does not link to the import")
	}
	form := admin.MustGet("/admin/items/import", http.StatusOK)
	mustContain(t, form.Body, `enctype="multipart/form-data"`, `name="file"`)

	export := []byte(admin.Get("/admin/items.csv").Body)
	rows := readCSV(t, string(export))
	before := a.itemsSnapshot(t)
	if got := admin.importOK(export); got != fmt.Sprintf("Imported the catalog: 0 created, 0 updated, %d unchanged.", len(rows)-1) {
		t.Fatalf("the export imported back: %q", got)
	}
	if a.itemsSnapshot(t) != before {
		t.Fatal("importing the export changed the catalog")
	}

	shopper := a.client()
	if p := shopper.Get("/items/3"); p.Status != http.StatusOK { // now cached
		t.Fatalf("item 3: %d", p.Status)
	}
	if ids := testids(shopper.Get("/items?q=zyzzyva").Body, "item-card", "data-item-id"); len(ids) != 0 {
		t.Fatalf("found %v before the import", ids)
	}
	it3, err := a.store.Catalog.Item(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	file := "sku,name,category,price,stock,description,archived\n" +
		"SF-000003," + it3.Name + "," + it3.Category + ",77.00," + itoa(it3.Stock) + "," + csvQuote(it3.Description) + ",false\n" +
		"NEW-1,Zyzzyva lamp," + it3.Category + ",12.5,4,A lamp.,\n" +
		"SF-000007," + csvQuote(a.itemName(7)) + "," + a.itemCategory(7) + "," + a.itemPrice(7) + "," + itoa(a.stockOf(7)) + "," + csvQuote(a.itemDescription(7)) + ",no\n"
	// The row cache holds item 3's old row.
	if err := a.rdb().Set(t.Context(), keys.RowCache(3), `{"id":3,"price_cents":1}`, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got := admin.importOK([]byte(file)); got != "Imported the catalog: 1 created, 2 updated, 0 unchanged." {
		t.Fatalf("import: %q", got)
	}
	if n, err := a.rdb().Exists(t.Context(), keys.RowCache(3)).Result(); err != nil || n != 0 {
		t.Errorf("item 3's cached row outlived the import: %d %v", n, err)
	}
	if p := shopper.Get("/items/3"); !strings.Contains(textOf(p.Body, "item-price"), "77.00") {
		t.Errorf("item 3's page shows %q after the import, want 77.00", textOf(p.Body, "item-price"))
	}
	ids := testids(shopper.Get("/items?q=zyzzyva").Body, "item-card", "data-item-id")
	if len(ids) != 1 {
		t.Fatalf("the new item is not found: %v", ids)
	}
	var sku string
	var price, stock int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT sku, price_cents, stock FROM items WHERE id = $1`, ids[0]).Scan(&sku, &price, &stock); err != nil {
		t.Fatal(err)
	}
	if sku != "NEW-1" || price != 1250 || stock != 4 {
		t.Errorf("new item: %s %d %d", sku, price, stock)
	}
	if p := shopper.Get("/items/7"); p.Status != http.StatusOK {
		t.Errorf("item 7 restored by the import: %d", p.Status)
	}
	after := a.itemsSnapshot(t)
	if got := admin.importOK([]byte(file)); got != "Imported the catalog: 0 created, 0 updated, 3 unchanged." {
		t.Fatalf("the same file again: %q", got)
	}
	if a.itemsSnapshot(t) != after {
		t.Fatal("importing the same file twice changed the catalog the second time")
	}
	// Archiving through the import: the page answers Gone.
	archive := strings.Replace(file, ",A lamp.,\n", ",A lamp.,true\n", 1)
	if got := admin.importOK([]byte(archive)); got != "Imported the catalog: 0 created, 1 updated, 2 unchanged." {
		t.Fatalf("archive: %q", got)
	}
	if p := shopper.Get("/items/" + ids[0]); p.Status != http.StatusGone {
		t.Errorf("archived by import: %d", p.Status)
	}
	// JSON clients get the counts as data.
	res := admin.importCSV([]byte(archive), "Accept", "application/json")
	if body := admin.awaitImport(res); !strings.Contains(body, `"unchanged":3`) || !strings.Contains(body, `"state":"done"`) {
		t.Errorf("JSON import: %d %s", res.Status, body)
	}
}

func csvQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func (a *app) itemField(id int64, col string) string {
	a.t.Helper()
	var s string
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT CAST(`+col+` AS TEXT) FROM items WHERE id = $1`, id).Scan(&s); err != nil {
		a.t.Fatal(err)
	}
	return s
}

func (a *app) itemName(id int64) string        { return a.itemField(id, "name") }
func (a *app) itemCategory(id int64) string    { return a.itemField(id, "category") }
func (a *app) itemDescription(id int64) string { return a.itemField(id, "description") }
func (a *app) itemPrice(id int64) string {
	a.t.Helper()
	var c int64
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT price_cents FROM items WHERE id = $1`, id).Scan(&c); err != nil {
		a.t.Fatal(err)
	}
	return fmt.Sprintf("%d.%02d", c/100, c%100)
}

// TestItemsImportRefusals: every wrong file is refused as a whole, with
// each wrong row's number and why, and nothing changes (the whole items
// table is read back); a file over 5 MB is a 413; only the admin imports.
func TestItemsImportRefusals(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	cat := a.itemCategory(1)
	good := "SF-000001,Renamed," + cat + ",1.00,5\n" // a right row: not applied when another is wrong
	head := "sku,name,category,price,stock\n"
	for _, tc := range []struct {
		name, file string
		rows       []int  // the wrong rows reported (0: the file as a whole)
		why        string // words every report has
		status     int
	}{
		{"not UTF-8", head + good + "SF-000002,Caf\xe9 latin-1," + cat + ",1.00,5\n", []int{3}, "UTF-8", 422},
		{"not UTF-8 header", "sku,n\xffme\n" + good, []int{1}, "UTF-8", 422},
		{"missing column", "sku,name,category,stock\nSF-000001,X," + cat + ",5\n", []int{1}, "Missing column price", 422},
		{"unknown column", "sku,name,category,price,stock,colour\nSF-000001,X," + cat + ",1.00,5,red\n", []int{1}, "Unknown column", 422},
		{"repeated column", "sku,name,category,price,stock,price\nSF-000001,X," + cat + ",1.00,5,2.00\n", []int{1}, "twice", 422},
		{"duplicate SKU", head + good + "SF-000009,A," + cat + ",1.00,5\nSF-000009,B," + cat + ",1.00,5\n", []int{4}, "also on row 3", 422},
		{"bad price", head + good + "SF-000002,X," + cat + ",12,34,5\nSF-000003,X," + cat + ",-1.00,5\nSF-000004,X," + cat + ",abc,5\n", []int{3, 4, 5}, "", 422},
		{"bad stock", head + good + "SF-000002,X," + cat + ",1.00,-5\n", []int{3}, "stock", 422},
		{"unknown category", head + good + "SF-000002,X,Spaceships,1.00,5\n", []int{3}, "category", 422},
		{"empty sku and name", head + good + ",," + cat + ",1.00,5\n", []int{3}, "sku", 422},
		{"variants", "sku,name,category,price,stock,options\nSF-000001,X," + cat + ",1.00,5,Size=S\n", []int{2}, "options", 422},
		{"bad archived", "sku,name,category,price,stock,archived\nSF-000001,X," + cat + ",1.00,5,maybe\n", []int{2}, "archived", 422},
		{"bare quote", head + good + "SF-000002,X \"quoted\" y," + cat + ",1.00,5\n", []int{3}, "quote", 422},
		{"every wrong row at once", head + good + "SF-000002,X,Spaceships,1.00,5\nSF-000003,X," + cat + ",abc,5\nSF-000003,Y," + cat + ",1.00,5\n", []int{3, 4, 5}, "also on row 4", 422},
		{"empty file", "", []int{0}, "empty", 422},
		{"header only", head, []int{0}, "no rows", 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := a.itemsSnapshot(t)
			res := admin.importCSV([]byte(tc.file))
			if res.Status != tc.status {
				t.Fatalf("%d, want %d: %.300s", res.Status, tc.status, res.Body)
			}
			var got []int
			for _, r := range testids(res.Body, "import-error", "data-row") {
				n, _ := json.Number(r).Int64()
				got = append(got, int(n))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.rows) {
				t.Errorf("wrong rows %v, want %v", got, tc.rows)
			}
			if !strings.Contains(res.Body, `data-testid="import-refused"`) || !strings.Contains(res.Body, "Nothing was changed") || !strings.Contains(res.Body, tc.why) {
				t.Errorf("the refusal does not say why (%q): %.2000s", tc.why, res.Body)
			}
			if a.itemsSnapshot(t) != before {
				t.Fatal("a refused import changed the catalog")
			}
		})
	}

	before := a.itemsSnapshot(t)
	// No file at all.
	res := admin.Post("/admin/items/import", nil)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "Choose a CSV file") {
		t.Errorf("no file: %d", res.Status)
	}
	// Over the size limit: a right header and rows, just too many.
	var big bytes.Buffer
	big.WriteString(head)
	for big.Len() <= 5<<20 {
		big.WriteString(good)
	}
	res = admin.importCSV(big.Bytes())
	if res.Status != http.StatusRequestEntityTooLarge || !strings.Contains(res.Body, "larger than 5 MB") {
		t.Errorf("too large: %d %.300s", res.Status, res.Body)
	}
	// JSON clients get the rows as data.
	res = admin.importCSV([]byte(head+"SF-000002,X,"+cat+",oops,5\n"), "Accept", "application/json")
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `"Row":2`) {
		t.Errorf("JSON refusal: %d %s", res.Status, res.Body)
	}
	// Only the admin.
	shopper := a.client()
	shopper.Register("importer")
	if res := shopper.importCSV([]byte(head + good)); res.Status != http.StatusForbidden {
		t.Errorf("shopper import: %d", res.Status)
	}
	if a.itemsSnapshot(t) != before {
		t.Fatal("a refused import changed the catalog")
	}
}

// TestItemsImportConcurrent: ten admins import the same file with two new
// SKUs at once; each is its own job, the jobs take turns, so each SKU is
// created once, by one import, and every other import finds them
// unchanged.
func TestItemsImportConcurrent(t *testing.T) {
	a := newApp(t, nil, nil)
	a.runImports()
	admin := a.client()
	admin.signInAdmin()
	cat := a.itemCategory(1)
	file := []byte("sku,name,category,price,stock\nRACE-A,Racing one," + cat + ",1.00,5\nRACE-B,Racing two," + cat + ",2.00,6\n")
	const n = 10
	results := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := admin.importCSV(file, "Accept", "application/json")
			if res.Status != http.StatusAccepted {
				t.Errorf("import: %d %s", res.Status, res.Body)
				return
			}
			results <- admin.awaitImport(res)
		}()
	}
	wg.Wait()
	close(results)
	var created, unchanged int
	for body := range results {
		var got struct{ Created, Updated, Unchanged int }
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("%v in %q", err, body)
		}
		created, unchanged = created+got.Created, unchanged+got.Unchanged
	}
	if created != 2 || unchanged != 2*(n-1) {
		t.Errorf("%d created, %d unchanged over %d imports; want 2 and %d", created, unchanged, n, 2*(n-1))
	}
	var items int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM items WHERE sku IN ('RACE-A', 'RACE-B')`).Scan(&items); err != nil {
		t.Fatal(err)
	}
	if items != 2 {
		t.Errorf("%d items with the two SKUs", items)
	}
}
