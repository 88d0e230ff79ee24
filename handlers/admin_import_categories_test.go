package handlers_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"storefront/handlers/apptest"
)

// importNewCategories posts a catalog file with the form's "create the
// categories" box ticked (before the file, as the form sends it).
func (c *client) importNewCategories(data []byte, headers ...string) apptest.Response {
	c.a.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if err := mw.WriteField("new_categories", "1"); err != nil {
		c.a.t.Fatal(err)
	}
	fw, _ := mw.CreateFormFile("file", "items.csv")
	fw.Write(data) //nolint:errcheck // a buffer
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

// TestImportStartsNewCategories: a row naming a category no item has is
// refused as a typo would be (422, the row and how to allow it), unless
// the admin ticks the form's box: then the import creates the items, the
// result names the new categories in a line of its own, and the
// category's listing serves them. The JSON answer names them too.
func TestImportStartsNewCategories(t *testing.T) {
	a := newApp(t, nil, nil)
	a.runImports()
	admin := a.client()
	admin.signInAdmin()
	mustContain(t, admin.MustGet("/admin/items/import", http.StatusOK).Body, `name="new_categories"`)
	cat := a.itemCategory(1)
	file := []byte("sku,name,category,price,stock\n" +
		"NEW-1,Linen apron,Kitchen Textiles,24.00,5\n" +
		"NEW-2,Tea towel,Kitchen Textiles,9.50,12\n" +
		"NEW-3,Seed packet,Allotment Seeds,3.00,40\n" +
		"NEW-4,Old friend," + cat + ",5.00,1\n")
	before := a.itemsSnapshot(t)
	res := admin.importCSV(file)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "Create the categories the catalog does not have yet") {
		t.Fatalf("new categories without the box: %d %q", res.Status, textOf(res.Body, "import-error"))
	}
	if rows := testids(res.Body, "import-error", "data-row"); strings.Join(rows, ",") != "2,3,4" {
		t.Errorf("refused rows %v, want 2,3,4", rows)
	}
	if a.itemsSnapshot(t) != before {
		t.Fatal("a refused import changed the catalog")
	}

	flash := textOf(admin.awaitImport(admin.importNewCategories(file)), "import-result")
	if flash != "Imported the catalog: 4 created, 0 updated, 0 unchanged. New categories: Kitchen Textiles, Allotment Seeds." {
		t.Errorf("result %q", flash)
	}
	shopper := a.client()
	listing := shopper.MustGet("/items?category=Kitchen+Textiles", http.StatusOK).Body
	if n := len(testids(listing, "item-card", "data-item-id")); n != 2 {
		t.Errorf("the new category lists %d items, want 2", n)
	}

	// Again, as JSON: nothing new, so no new category.
	res = admin.importNewCategories(file, "Accept", "application/json")
	res.Body = admin.awaitImport(res)
	var got struct {
		Created, Unchanged int
		NewCategories      []string `json:"new_categories"`
	}
	if res.Status != http.StatusAccepted || json.Unmarshal([]byte(res.Body), &got) != nil || got.Unchanged != 4 || len(got.NewCategories) != 0 ||
		!strings.Contains(res.Body, `"new_categories":[]`) {
		t.Errorf("JSON import again: %d %s", res.Status, res.Body)
	}
	res = admin.importNewCategories([]byte("sku,name,category,price,stock\nNEW-5,Trowel,Tools,8.00,3\n"), "Accept", "application/json")
	res.Body = admin.awaitImport(res)
	if json.Unmarshal([]byte(res.Body), &got) != nil || got.Created != 1 || strings.Join(got.NewCategories, ",") != "Tools" {
		t.Errorf("JSON new category: %d %s", res.Status, res.Body)
	}
}
