package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestAdminEditsTags: the merchant types an item's tags on its form; a
// rule collection by tag then lists it on the next page, the form shows
// them again and the audit log records the change. Bad tags are refused
// with 422 and change nothing; a form without the field keeps them.
func TestAdminEditsTags(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	admin.MustPost("/admin/collections", url.Values{"title": {"Autumn"}, "kind": {"rule"}, "tag": {"autumn"}}, http.StatusSeeOther)
	shopper := a.client()
	if cards := testids(shopper.MustGet("/collections/autumn", http.StatusOK).Body, "item-card", "data-item-id"); contains(cards, "5") {
		t.Fatal("item 5 is in the autumn collection before it has the tag")
	}

	form := func(tags string) url.Values {
		it, err := a.store.Catalog.Item(t.Context(), 5)
		if err != nil {
			t.Fatal(err)
		}
		return url.Values{"name": {it.Name}, "price": {"12.00"}, "stock": {"7"}, "category": {it.Category},
			"description": {it.Description}, "tags": {tags}}
	}
	admin.MustPost("/admin/items/5", form("Autumn, Gift  warm-coats"), http.StatusSeeOther)
	if cards := testids(shopper.MustGet("/collections/autumn", http.StatusOK).Body, "item-card", "data-item-id"); !contains(cards, "5") {
		t.Errorf("item 5 is not in the autumn collection after tagging: %v", cards)
	}
	page := admin.MustGet("/admin/items/5", http.StatusOK).Body
	mustContain(t, page, `name="tags"`, `value="autumn, gift, warm-coats"`)
	rows := auditRows(admin.MustGet("/admin/audit?kind=item.edit", http.StatusOK).Body)
	if len(rows) != 1 || auditField(rows[0], "after", "tags") != "autumn,gift,warm-coats" {
		t.Errorf("audit rows %d, tags after %q", len(rows), auditField(rows[0], "after", "tags"))
	}

	for _, bad := range []string{strings.Repeat("t ", 21), "autumn, " + strings.Repeat("x", 40), "!!!"} {
		res := admin.Post("/admin/items/5", form(bad))
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(textOf(res.Body, "field-error"), "tag") {
			t.Errorf("tags %.30q: %d %q", bad, res.Status, textOf(res.Body, "field-error"))
		}
	}
	if tags, err := a.store.Catalog.Tags(t.Context(), 5); err != nil || strings.Join(tags, ",") != "autumn,gift,warm-coats" {
		t.Errorf("tags after refused forms: %v %v", tags, err)
	}

	// The price helper posts the form without the field: the tags stay.
	if got := admin.editPrice(5, "13.00"); got != http.StatusSeeOther {
		t.Fatalf("price change: %d", got)
	}
	if tags, _ := a.store.Catalog.Tags(t.Context(), 5); len(tags) != 3 {
		t.Errorf("a form without tags changed them to %v", tags)
	}
	admin.MustPost("/admin/items/5", form(""), http.StatusSeeOther)
	if cards := testids(shopper.MustGet("/collections/autumn", http.StatusOK).Body, "item-card", "data-item-id"); contains(cards, "5") {
		t.Error("item 5 stays in the autumn collection after its tags were cleared")
	}
}
