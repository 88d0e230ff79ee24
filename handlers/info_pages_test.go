package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func pageForm(title, slug, body string) url.Values {
	return url.Values{"title": {title}, "slug": {slug}, "body": {body}}
}

// The merchant writes a returns policy: it is served at /pages/<slug> as
// escaped paragraphs with its web addresses linked, linked from every
// page's footer (cached pages included), listed in the sitemaps; it is
// edited, moved and deleted; an unknown slug is a 404.
func TestInfoPages(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	shopper := a.client()
	shopper.Get("/items/7") // cached before the page exists: its footer must change

	body := "Send it back within 30 days.\nWe pay the postage.\n\nQuestions? See https://help.example.com/returns. Or write to us & we answer."
	if res := admin.Post("/admin/pages", pageForm("Returns policy", "returns", body)); res.Status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	page := shopper.MustGet("/pages/returns", http.StatusOK).Body
	mustContain(t, page, "<title>Returns policy · ", "<p>Send it back within 30 days.<br>We pay the postage.</p>",
		`<a href="https://help.example.com/returns" rel="nofollow ugc noopener">https://help.example.com/returns</a>.`, "write to us &amp; we answer")
	for _, path := range []string{"/", "/items/7", "/articles"} {
		if got := testids(shopper.Get(path).Body, "footer-page", "href"); len(got) != 1 || got[0] != "/pages/returns" {
			t.Errorf("%s footer links %v", path, got)
		}
	}
	if urls := readSitemaps(t, shopper, 50_000); !urls[shopURL+"/pages/returns"] {
		t.Error("the sitemaps lack the page")
	}
	mustContain(t, admin.MustGet("/admin/pages", http.StatusOK).Body, `data-slug="returns"`)

	t.Run("bad input", func(t *testing.T) {
		for name, f := range map[string]url.Values{
			"slash":      pageForm("Evil", "a/b", "Text."),
			"dots":       pageForm("Evil", "../admin", "Text."),
			"upper":      pageForm("Evil", "Returns Policy", "Text."),
			"taken":      pageForm("Again", "returns", "Text."),
			"markup":     pageForm("Evil", "evil", "Hello <script>alert(1)</script>"),
			"link tag":   pageForm("Evil", "evil", `<a href="javascript:alert(1)">x</a>`),
			"title tags": pageForm("<b>Bold</b>", "evil", "Text."),
			"10 KB":      pageForm("Long", "long", strings.Repeat("word ", 2001)),
			"no text":    pageForm("Empty", "empty", "  "),
			"no title":   pageForm("", "notitle", "Text."),
		} {
			res := admin.Post("/admin/pages", f)
			if res.Status != http.StatusUnprocessableEntity || textOf(res.Body, "field-error") == "" {
				t.Errorf("%s: %d %q", name, res.Status, textOf(res.Body, "field-error"))
			}
		}
		if rows := testids(admin.MustGet("/admin/pages", http.StatusOK).Body, "admin-page-row", "data-slug"); len(rows) != 1 {
			t.Errorf("refused forms left pages %v", rows)
		}
		// Editing with bad input changes nothing either.
		if res := admin.Post("/admin/pages/returns", pageForm("Returns", "returns", "<p>hi</p>")); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("bad edit: %d", res.Status)
		}
		mustContain(t, shopper.MustGet("/pages/returns", http.StatusOK).Body, "Send it back within 30 days.")
	})

	shopper.MustGet("/pages/nothing", http.StatusNotFound)
	shopper.MustGet("/pages/returns/more", http.StatusNotFound)
	admin.MustGet("/admin/pages/nothing", http.StatusNotFound)
	if res := admin.Post("/admin/pages/nothing", pageForm("X", "x", "Text.")); res.Status != http.StatusNotFound {
		t.Errorf("editing a missing page: %d", res.Status)
	}

	// Move it to another slug: the old address is gone, the footer follows.
	if res := admin.Post("/admin/pages/returns", pageForm("Returns", "returns-policy", "Thirty days.")); res.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	shopper.MustGet("/pages/returns", http.StatusNotFound)
	mustContain(t, shopper.MustGet("/pages/returns-policy", http.StatusOK).Body, "<p>Thirty days.</p>")
	if got := testids(shopper.Get("/items/7").Body, "footer-page", "href"); len(got) != 1 || got[0] != "/pages/returns-policy" {
		t.Errorf("footer after the move %v", got)
	}

	if res := admin.Post("/admin/pages/returns-policy/delete", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.Status)
	}
	shopper.MustGet("/pages/returns-policy", http.StatusNotFound)
	if got := testids(shopper.Get("/").Body, "footer-page", "href"); len(got) != 0 {
		t.Errorf("footer after the delete %v", got)
	}
	if res := admin.Post("/admin/pages/returns-policy/delete", nil); res.Status != http.StatusNotFound {
		t.Errorf("deleting twice: %d", res.Status)
	}
	// A member (not an admin) may not write pages.
	member := a.client()
	member.Register("pagewriter")
	if res := member.Post("/admin/pages", pageForm("Mine", "mine", "Text.")); res.Status != http.StatusForbidden {
		t.Errorf("a member's page: %d", res.Status)
	}
}
