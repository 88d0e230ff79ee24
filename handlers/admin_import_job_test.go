package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
)

// importFile is a catalog file of n new items in category cat, SKUs
// prefix-1 to prefix-n, each row with a description of desc bytes.
func importFile(prefix, cat string, n, desc int) []byte {
	var b strings.Builder
	b.WriteString("sku,name,category,price,stock,description\n")
	d := strings.Repeat("x", desc)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s-%d,Imported thing %d,%s,%d.%02d,%d,%s\n", prefix, i, i, cat, 1+i%500, i%100, i%50, d)
	}
	return []byte(b.String())
}

// countSKUs counts the items whose SKU starts with prefix-.
func (a *app) countSKUs(prefix string) int {
	a.t.Helper()
	var n int
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT COUNT(*) FROM items WHERE sku LIKE $1`, prefix+"-%").Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// TestImportJobOutlivesTheRequestTimeout: with a request budget far
// shorter than the import takes, the upload still answers at once (a 303
// to the job's page, no 503) and the job runs to the end in the worker:
// every row is in, and the job took longer than a request may.
func TestImportJobOutlivesTheRequestTimeout(t *testing.T) {
	const budget = 500 * time.Millisecond
	a := newApp(t, nil, func(c *handlers.Config) { c.RequestTimeout = budget })
	a.runImports()
	admin := a.client()
	admin.signInAdmin()
	const rows = 2500
	res := admin.importCSV(importFile("LONG", a.itemCategory(1), rows, 20))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %.300s", res.Status, res.Body)
	}
	page := admin.awaitImport(res)
	if got, want := textOf(page, "import-result"), fmt.Sprintf("Imported the catalog: %d created, 0 updated, 0 unchanged.", rows); got != want {
		t.Fatalf("result %q, want %q", got, want)
	}
	if n := a.countSKUs("LONG"); n != rows {
		t.Errorf("%d items imported, want %d", n, rows)
	}
	var took int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT finished_at - started_at FROM import_jobs`).Scan(&took); err != nil {
		t.Fatal(err)
	}
	if time.Duration(took)*time.Millisecond <= budget {
		t.Errorf("the import took %d ms, within the request budget: the test proves nothing; give it more rows", took)
	}
	t.Logf("%d rows imported in %d ms beside a %v request budget", rows, took, budget)
}

// TestImportJobPage: a queued import's page says so and reloads itself
// (a meta refresh: no script needed) and JSON says queued; once the
// worker ran it, the page is plain with the counts. An import the catalog
// refuses when the job runs (a SKU taken after the upload) fails as a
// whole, its page listing the row and why, and changes nothing. An
// unknown job is a 404, and only the admin sees one.
func TestImportJobPage(t *testing.T) {
	a := variantApp(t)
	admin := a.client()
	admin.signInAdmin()
	cat := a.itemCategory(1)
	res := admin.importCSV([]byte("sku,name,category,price,stock\nPAGE-1,Paged lamp," + cat + ",4.00,2\n"))
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/admin/imports/") {
		t.Fatalf("upload: %d %s", res.Status, res.Header.Get("Location"))
	}
	loc := res.Header.Get("Location")
	queued := admin.MustGet(loc, http.StatusOK).Body
	mustContain(t, queued, `<meta http-equiv="refresh" content="2">`, `data-state="queued"`, `data-testid="import-progress"`, `data-testid="import-reload"`)
	if j := admin.Get(loc, "Accept", "application/json"); !strings.Contains(j.Body, `"state":"queued"`) || !strings.Contains(j.Body, `"total":1`) {
		t.Errorf("JSON of a queued import: %s", j.Body)
	}

	// A row the upload found right, whose SKU a variant takes before
	// the job runs.
	second := admin.importCSV([]byte("sku,name,category,price,stock\nPAGE-2,Second lamp," + cat + ",4.00,2\nPAGE-3,Third lamp," + cat + ",4.00,2\n"))
	if second.Status != http.StatusSeeOther {
		t.Fatalf("second upload: %d", second.Status)
	}
	if r := admin.Post("/admin/items/7/variants", variantForm([4]string{"PAGE-3", "S", "", "3"})); r.Status != http.StatusSeeOther {
		t.Fatalf("variant: %d", r.Status)
	}

	a.runImports()
	done := admin.awaitImport(res)
	if strings.Contains(done, `http-equiv="refresh"`) || !strings.Contains(done, `data-state="done"`) {
		t.Errorf("a done import's page still reloads: %.2000s", done)
	}
	if got := textOf(done, "import-result"); got != "Imported the catalog: 1 created, 0 updated, 0 unchanged." {
		t.Errorf("result %q", got)
	}
	failed := admin.awaitImport(second)
	mustContain(t, failed, `data-state="failed"`, `data-testid="import-refused"`, "Nothing was changed", "another item or variant has this SKU")
	if rows := testids(failed, "import-error", "data-row"); strings.Join(rows, ",") != "3" {
		t.Errorf("refused rows %v, want 3", rows)
	}
	if strings.Contains(failed, `http-equiv="refresh"`) {
		t.Error("a failed import's page still reloads")
	}
	if n := a.countSKUs("PAGE"); n != 1 {
		t.Errorf("the failed import changed the catalog: %d PAGE- items, want the first import's 1", n)
	}
	j := admin.Get(second.Header.Get("Location"), "Accept", "application/json")
	if !strings.Contains(j.Body, `"state":"failed"`) || !strings.Contains(j.Body, `"Row":3`) {
		t.Errorf("JSON of a failed import: %s", j.Body)
	}

	admin.MustGet("/admin/imports/99999", http.StatusNotFound)
	admin.MustGet("/admin/imports/x", http.StatusNotFound)
	shopper := a.client()
	shopper.Register("curious")
	if r := shopper.Get(loc); r.Status == http.StatusOK {
		t.Errorf("a shopper read an import: %d", r.Status)
	}
}

// TestImportRefusedMakesNoJob: a file refused at the upload (form or
// catalog) makes no job at all.
func TestImportRefusedMakesNoJob(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	cat := a.itemCategory(1)
	for _, file := range []string{
		"",
		"sku,name\nx,y\n",
		"sku,name,category,price,stock\nNOJOB-1,X," + cat + ",abc,5\n",
		"sku,name,category,price,stock\nNOJOB-1,X,Spaceships,1.00,5\n",
	} {
		if res := admin.importCSV([]byte(file)); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("%q: %d", file, res.Status)
		}
	}
	var n int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM import_jobs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d jobs made for refused files", n)
	}
}
