package handlers_test

import (
	"bytes"
	"net/http"
	"net/url"
	"testing"
)

// TestAuditLogRecordsCatalogAndModerationChanges: archiving and restoring
// an item, its variants, its pictures, a CSV import, an order's note, the
// home page and a review's hiding each leave an entry of their kind for
// the staff member who made them; a refused change leaves none.
func TestAuditLogRecordsCatalogAndModerationChanges(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(5, 10)
	owner := a.client()
	owner.signInAdmin()

	owner.MustPost("/admin/items/33/archive", nil, http.StatusSeeOther)
	owner.MustPost("/admin/items/33/archive", nil, http.StatusSeeOther) // already archived: no change
	owner.MustPost("/admin/items/33/restore", nil, http.StatusSeeOther)
	if n, m := a.auditCount("item.archive"), a.auditCount("item.restore"); n != 1 || m != 1 {
		t.Errorf("%d archive and %d restore entries, want 1 each", n, m)
	}

	owner.MustPost("/admin/items/7/variants", variantForm([4]string{"AUD-S", "S", "", "3"}, [4]string{"AUD-M", "M", "", "4"}), http.StatusSeeOther)
	if res := owner.Post("/admin/items/7/variants", variantForm([4]string{"", "S", "", "3"})); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a refused variant form: %d", res.Status)
	}
	rows := auditRows(owner.MustGet("/admin/audit?kind=item.variants", http.StatusOK).Body)
	if len(rows) != 1 {
		t.Fatalf("%d item.variants rows, want 1", len(rows))
	}
	if got := auditField(rows[0], "after", "variant AUD-M"); got != "M, stock 4" {
		t.Errorf("variant AUD-M recorded as %q", got)
	}
	if got := auditField(rows[0], "after", "options"); got != "Size" {
		t.Errorf("options recorded as %q", got)
	}

	if res := owner.upload("9", "p.png", bytes.NewReader(pngBytes(t, testPicture(400, 300)))); res.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %.200s", res.Status, res.Body)
	}
	owner.MustPost("/admin/items/9/images/1/delete", nil, http.StatusSeeOther)
	if n, m := a.auditCount("item.picture.add"), a.auditCount("item.picture.delete"); n != 1 || m != 1 {
		t.Errorf("%d picture additions and %d deletions recorded, want 1 each", n, m)
	}

	a.runImports()
	owner.awaitImport(owner.importCSV(importFile("AUDIMP", a.itemCategory(1), 3, 10)))
	if rows := auditRows(owner.MustGet("/admin/audit?kind=catalog.import", http.StatusOK).Body); len(rows) != 1 || auditField(rows[0], "after", "rows") != "3" {
		t.Errorf("import rows: %d", len(rows))
	}

	shopper := a.client()
	shopper.Register("aud")
	id := shopper.orderFor("aud", 5, 1)
	owner.MustPost("/admin/orders/"+itoa(id)+"/notes", url.Values{"note": {"Gift wrap"}}, http.StatusSeeOther)
	if rows := auditRows(owner.MustGet("/admin/audit?kind=order.note", http.StatusOK).Body); len(rows) != 1 || auditField(rows[0], "after", "note") != "Gift wrap" {
		t.Errorf("note rows: %d", len(rows))
	}

	owner.MustPost("/admin/home", url.Values{"hero_title": {"Autumn"}, "hero_text": {"New coats"}}, http.StatusSeeOther)
	if rows := auditRows(owner.MustGet("/admin/audit?kind=home.save", http.StatusOK).Body); len(rows) != 1 || auditField(rows[0], "after", "hero_title") != "Autumn" {
		t.Errorf("home rows: %d", len(rows))
	}

	shopper.MustPost("/items/12/reviews", url.Values{"rating": {"2"}, "body": {"Meh"}}, http.StatusSeeOther)
	ref := "12-" + itoa(a.userID("aud"))
	owner.MustPost("/admin/reviews/"+ref+"/hide", nil, http.StatusSeeOther)
	owner.MustPost("/admin/reviews/"+ref+"/unhide", nil, http.StatusSeeOther)
	if n, m := a.auditCount("review.hide"), a.auditCount("review.unhide"); n != 1 || m != 1 {
		t.Errorf("%d review hides and %d unhides recorded, want 1 each", n, m)
	}
	for _, kind := range []string{"item.archive", "item.variants", "order.note", "home.save", "review.hide"} {
		rows := auditRows(owner.MustGet("/admin/audit?kind="+kind, http.StatusOK).Body)
		if len(rows) == 0 {
			continue
		}
		if got := testids(rows[0], "audit-row", "data-actor"); len(got) != 1 || got[0] != "admin" {
			t.Errorf("%s: actor %v", kind, got)
		}
	}
}
