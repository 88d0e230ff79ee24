package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The merchant writes the home page: the headline, its text, the featured
// items by id or SKU (in order), whether articles show; the fixed demo
// text is gone, and no featured items means no empty "Featured" heading.
// Markup, unknown items and 10 KB of text get a 422 that changes nothing.
func TestAdminHomePage(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(3, 10)
	a.setStock(5, 10)
	var sku string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT sku FROM items WHERE id = 5`).Scan(&sku); err != nil {
		t.Fatal(err)
	}
	shopper := a.client()
	if home := shopper.Get("/").Body; strings.Contains(home, "more than a thousand") {
		t.Error("the home page still promises more than a thousand items")
	}
	admin := a.client()
	admin.signInAdmin()
	for _, bad := range []struct{ field, value, says string }{
		{"hero_text", "Made by the sea.\n<script>alert(1)</script>", "markup"},
		{"hero_title", strings.Repeat("x", 10<<10), "at most 120"},
		{"featured", "3, NO-SUCH-SKU", "No item has the id or SKU"},
	} {
		f := url.Values{"hero_title": {"Harbour Goods"}, "hero_text": {"Made by the sea."}, "featured": {"3"}}
		f.Set(bad.field, bad.value)
		res := admin.Post("/admin/home", f)
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(textOf(res.Body, "field-error"), bad.says) ||
			strings.Contains(res.Body, "<script>alert(1)") {
			t.Errorf("%s: %d %q", bad.field, res.Status, textOf(res.Body, "field-error"))
		}
	}
	if n := a.tableCount("home_page"); n != 0 {
		t.Fatalf("refusals saved %d rows", n)
	}
	form := url.Values{"hero_title": {"Harbour Goods"}, "hero_text": {"Made by the sea.\nSent from Portsmouth."}, "featured": {sku + ", 3"}}
	if res := admin.Post("/admin/home", form); res.Status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	home := shopper.Get("/").Body
	if got := textOf(home, "hero-title"); got != "Harbour Goods" {
		t.Errorf("headline %q", got)
	}
	if got := testids(home, "hero-text", ""); len(got) != 2 {
		t.Errorf("%d paragraphs, want 2", len(got))
	}
	cards := testids(home, "featured", "")
	if len(cards) != 1 || strings.Contains(home, `id="top-articles-h"`) {
		t.Errorf("featured %d, articles shown %v", len(cards), strings.Contains(home, `id="top-articles-h"`))
	}
	i5, i3 := strings.Index(home, `href="/items/5-`), strings.Index(home, `href="/items/3-`)
	if i5 < 0 || i3 < 0 || i5 > i3 {
		t.Errorf("featured order: item 5 at %d, item 3 at %d", i5, i3)
	}
	// No featured items: no Featured heading at all.
	form.Set("featured", "")
	form.Set("show_articles", "1")
	if res := admin.Post("/admin/home", form); res.Status != http.StatusSeeOther {
		t.Fatalf("save: %d", res.Status)
	}
	home = shopper.Get("/").Body
	if strings.Contains(home, `id="featured-h"`) || !strings.Contains(home, `id="top-articles-h"`) {
		t.Error("an empty featured list still shows its heading, or the articles are hidden")
	}
	steps := setupSteps(admin.MustGet("/admin", http.StatusOK).Body)
	if steps["home"] != "true" {
		t.Errorf("setup step home %q", steps["home"])
	}
}
