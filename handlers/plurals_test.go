package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"storefront/store/storetest"
)

// wrongPlural finds a count of one with its noun in the plural, as text.
var wrongPlural = regexp.MustCompile(`(?:^|[^0-9,.])1 (items|sessions|orders|reviews|views|likes|comments|articles|seconds|minutes|hours|days|pages|rows|keys|hits|points|followers)\b`)

// TestCountsReadRight: every count shown in words agrees with its noun:
// one item, one session, one order, one page (carts, checkout, orders,
// admin lists and messages), and no page says "1 items".
func TestCountsReadRight(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(8, 50)
	pages := map[string]string{}
	shopper := a.client()
	shopper.Register("uno")
	shopper.setQty("8", "1")
	pages["cart"] = shopper.MustGet("/cart", http.StatusOK).Body
	pages["checkout"] = shopper.MustGet("/checkout", http.StatusOK).Body
	res := shopper.checkout(nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d", res.Status)
	}
	pages["order"] = shopper.MustGet(res.Header.Get("Location"), http.StatusOK).Body
	for name, want := range map[string]string{
		"cart":     `Subtotal (<span data-subtotal-count>1</span><span data-subtotal-word> item</span>)`,
		"checkout": `Subtotal (1 item)`,
		"order":    `Total (1 item)`,
	} {
		if !strings.Contains(pages[name], want) {
			t.Errorf("%s does not read %q", name, want)
		}
	}

	admin := a.client()
	admin.signInAdmin()
	pages["admin orders"] = admin.MustGet("/admin/orders", http.StatusOK).Body
	if got := textOf(pages["admin orders"], "result-count"); got != "1 order" {
		t.Errorf("admin orders count %q, want 1 order", got)
	}
	it := storetest.Must(a.store.Catalog.Item(t.Context(), 8))(t)
	pages["admin items"] = admin.MustGet("/admin/items?q="+url.QueryEscape(it.Name), http.StatusOK).Body
	if got := textOf(pages["admin items"], "result-count"); got != "1 item" {
		t.Errorf("admin items count %q, want 1 item", got)
	}
	var done struct{ Message string }
	res = admin.Post("/admin/users/uno/ban", nil, "Accept", "application/json")
	if err := json.Unmarshal([]byte(res.Body), &done); err != nil || !strings.Contains(done.Message, "signed out of 1 session.") {
		t.Errorf("ban message %q (%v), want it to say 1 session", done.Message, err)
	}
	pages["ban message"] = done.Message
	viewer := a.client()
	for i := 0; i < 4 && viewer.Get("/items/8").Header.Get("X-Cache") != "HIT"; i++ {
	}
	res = admin.Post("/admin/cache/purge", url.Values{"item": {"8"}}, "Accept", "application/json")
	_ = json.Unmarshal([]byte(res.Body), &done)
	if !strings.Contains(done.Message, "1 cached page") {
		t.Errorf("purge message %q, want it to count 1 cached page", done.Message)
	}
	pages["purge message"] = done.Message
	pages["dashboard"] = admin.MustGet("/admin", http.StatusOK).Body
	pages["system"] = admin.MustGet("/admin/system", http.StatusOK).Body

	for name, body := range pages {
		if m := wrongPlural.FindString(body); m != "" {
			t.Errorf("%s reads %q", name, strings.TrimSpace(m))
		}
	}
}
