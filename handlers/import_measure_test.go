//go:build measure

package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
	adminhttp "storefront/handlers/admin"
)

// TestImportLargestFile measures the largest file the import takes (5
// MB of new items, about 48,000 rows): the upload's time, which a request
// must fit in, and the job's. It is a measurement, not a check, so it is
// built only with the measure tag: go test -tags measure -run
// TestImportLargestFile ./handlers/ (add DATABASE_URL for PostgreSQL);
// docs/performance.md has the numbers.
func TestImportLargestFile(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) { c.RequestTimeout = 10 * time.Second })
	a.runImports()
	admin := a.client()
	admin.signInAdmin()
	cat := a.itemCategory(1)
	n := 1000
	for _, step := range []int{5000, 500, 50, 5} {
		for len(importFile("BIG", cat, n+step, 40)) <= adminhttp.ImportMaxBytes {
			n += step
		}
	}
	file := importFile("BIG", cat, n, 40)
	start := time.Now()
	res := admin.importCSV(file)
	upload := time.Since(start)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %.300s", res.Status, res.Body)
	}
	page := admin.awaitImport(res)
	total := time.Since(start)
	if got := textOf(page, "import-result"); !strings.HasPrefix(got, fmt.Sprintf("Imported the catalog: %d created", n)) {
		t.Fatalf("result %q", got)
	}
	var took int64
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT finished_at - started_at FROM import_jobs`).Scan(&took); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, %d rows: upload answered in %v, job ran %d ms, done %v after the upload began", len(file), n, upload.Round(time.Millisecond), took, total.Round(time.Millisecond))
}
