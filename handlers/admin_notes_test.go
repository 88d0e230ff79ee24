package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// noteCount reads how many notes an order has, straight from the table.
func (a *app) noteCount(orderID int64) int {
	a.t.Helper()
	var n int
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT COUNT(*) FROM order_notes WHERE order_id = $1`, orderID).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// TestOrderNotes: the admin opens an order from the list, adds notes
// (kept with who and when, shown escaped, oldest first); empty, blank,
// over-long and unprintable notes are a 422 with the note kept in the
// form, a missing order a 404, a shopper a 403, and none of them adds a
// note. Twenty admins' notes at once are all kept.
func TestOrderNotes(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(5, 10)
	shopper := a.client()
	shopper.Register("nora")
	id := shopper.orderFor("nora", 5, 2)
	admin := a.client()
	admin.signInAdmin()

	list := admin.Get("/admin/orders")
	if !strings.Contains(list.Body, `href="/admin/orders/`+itoa(id)+`"`) {
		t.Fatal("the admin's order list does not link to the order's admin page")
	}
	page := admin.MustGet("/admin/orders/"+itoa(id), http.StatusOK)
	mustContain(t, page.Body, "nora", "No notes yet.", `action="/admin/orders/`+itoa(id)+`/notes"`)
	if n := len(testids(page.Body, "order-note", "data-note-id")); n != 0 {
		t.Fatalf("%d notes on a new order", n)
	}

	for _, body := range []string{"Called the customer: <b>leave at the door</b>", "Second note\non two lines"} {
		if res := admin.Post("/admin/orders/"+itoa(id)+"/notes", url.Values{"note": {body}}); res.Status != http.StatusSeeOther {
			t.Fatalf("add note: %d %.200s", res.Status, res.Body)
		}
	}
	page = admin.Get("/admin/orders/" + itoa(id))
	if authors := testids(page.Body, "order-note", "data-author"); len(authors) != 2 || authors[0] != "admin" {
		t.Fatalf("note authors %v", authors)
	}
	if strings.Contains(page.Body, "<b>leave") || !strings.Contains(page.Body, "&lt;b&gt;leave at the door&lt;/b&gt;") {
		t.Error("a note is not escaped")
	}
	if i, j := strings.Index(page.Body, "Called the customer"), strings.Index(page.Body, "Second note"); i < 0 || j < i {
		t.Error("notes are not oldest first")
	}
	if !strings.Contains(page.Body, "UTC") {
		t.Error("a note does not say when")
	}

	// Refused: nothing added, the note as typed back in the form.
	for name, body := range map[string]string{"empty": "", "blank": "  \n ", "too long": strings.Repeat("x", 2001), "control": "bell \x07"} {
		res := admin.Post("/admin/orders/"+itoa(id)+"/notes", url.Values{"note": {body}})
		if res.Status != http.StatusUnprocessableEntity || textOf(res.Body, "field-error") == "" {
			t.Errorf("%s note: %d, want 422 with why", name, res.Status)
		}
		if name == "too long" && !strings.Contains(res.Body, strings.Repeat("x", 2001)) {
			t.Error("a refused note is not kept in the form")
		}
		if n := a.noteCount(id); n != 2 {
			t.Fatalf("%s note: %d notes, want 2", name, n)
		}
	}
	if res := admin.Post("/admin/orders/"+itoa(id)+"/notes", url.Values{"note": {strings.Repeat("é", 2000)}}); res.Status != http.StatusSeeOther {
		t.Errorf("a note of 2,000 characters: %d", res.Status)
	}
	if res := admin.Post("/admin/orders/999999/notes", url.Values{"note": {"lost"}}); res.Status != http.StatusNotFound {
		t.Errorf("note on a missing order: %d", res.Status)
	}
	if res := admin.Get("/admin/orders/999999"); res.Status != http.StatusNotFound {
		t.Errorf("missing order's page: %d", res.Status)
	}
	if res := shopper.Post("/admin/orders/"+itoa(id)+"/notes", url.Values{"note": {"mine"}}); res.Status != http.StatusForbidden {
		t.Errorf("a shopper adding a note: %d", res.Status)
	}
	if res := shopper.Get("/admin/orders/" + itoa(id)); res.Status != http.StatusForbidden {
		t.Errorf("a shopper on the admin's order page: %d", res.Status)
	}
	if strings.Contains(shopper.Get("/orders/"+itoa(id)).Body, "Called the customer") {
		t.Error("the shopper sees the admin's notes")
	}
	if n := a.noteCount(id); n != 3 {
		t.Fatalf("%d notes, want 3", n)
	}

	// Many at once: every note kept, each once.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, err := admin.Try("POST", "/admin/orders/"+itoa(id)+"/notes", url.Values{"note": {"note " + itoa(int64(i))}}); err != nil || res.Status != http.StatusSeeOther {
				t.Errorf("concurrent note %d: %v %d", i, err, res.Status)
			}
		}()
	}
	wg.Wait()
	if n := a.noteCount(id); n != 23 {
		t.Fatalf("%d notes after 20 at once, want 23", n)
	}
	if n := len(testids(admin.Get("/admin/orders/"+itoa(id)).Body, "order-note", "data-note-id")); n != 23 {
		t.Errorf("the page shows %d notes, want 23", n)
	}
}
