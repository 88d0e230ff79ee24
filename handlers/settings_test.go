package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"storefront/views"
)

// settingsForm is a complete, valid settings form.
func settingsForm(name, currency string) url.Values {
	return url.Values{"shop_name": {name}, "currency": {currency}, "contact_email": {"hello@harbour.example"},
		"address": {"1 Quay Street\nPortsmouth PO1 2AB"}}
}

// The admin's settings reach every page (title, header, footer, prices,
// the cached item page included), the checkout's order and its email; an
// order keeps the currency it was placed in when the shop's changes.
func TestShopSettingsReachPagesOrdersAndEmails(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	price := a.priceOf(7)
	shopper := a.client()
	if before := shopper.Get("/items/7").Body; !strings.Contains(before, views.DefaultShop.Currency.Format(price)) {
		t.Fatalf("the item page before: no %s", views.DefaultShop.Currency.Format(price))
	}
	admin := a.client()
	admin.signInAdmin()
	if page := admin.Get("/admin/settings"); page.Status != http.StatusOK || !strings.Contains(page.Body, `value="Storefront"`) {
		t.Fatalf("settings page %d", page.Status)
	}
	if res := admin.Post("/admin/settings", settingsForm("Harbour Goods", "EUR")); res.Status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	eur := views.Currency{Code: "EUR", Symbol: "€", Digits: 2}
	home := shopper.Get("/").Body
	mustContain(t, home, "<title>Home · Harbour Goods</title>", `data-testid="shop-name">Harbour Goods<`, "1 Quay Street, Portsmouth PO1 2AB",
		`href="mailto:hello@harbour.example"`)
	if strings.Contains(home, "Storefront") {
		t.Error("the home page still says Storefront")
	}
	item := shopper.Get("/items/7").Body // cached before the change: purged with it
	if got := textOf(item, "item-price"); got != eur.Format(price) {
		t.Errorf("item price %q, want %s", got, eur.Format(price))
	}
	mustContain(t, item, "· Harbour Goods</title>")

	shopper.setQty("7", "1")
	placed := shopper.checkout(nil)
	if placed.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d %s", placed.Status, textOf(placed.Body, "field-error"))
	}
	var id int64
	var currency string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT id, currency FROM orders`).Scan(&id, &currency); err != nil || currency != "EUR" {
		t.Fatalf("order currency %q %v", currency, err)
	}
	orderURL := placed.Header.Get("Location")
	total := textOf(shopper.Get(orderURL).Body, "order-total")
	if !strings.HasPrefix(total, "€") {
		t.Errorf("order total %q, want euros", total)
	}
	mails := a.mailsTo("ada@example.com", "order-placed")
	if len(mails) != 1 || !strings.Contains(mails[0].Text, total) || !strings.Contains(mails[0].Text, "Harbour Goods") ||
		!strings.Contains(mails[0].HTML, "Harbour Goods") || strings.Contains(mails[0].Text+mails[0].HTML, "Storefront") ||
		!strings.Contains(mails[0].Text, "1 Quay Street, Portsmouth PO1 2AB") {
		t.Errorf("confirmation %+v", mails)
	}

	// Yen have no decimals; the order placed in euros stays in euros.
	if res := admin.Post("/admin/settings", settingsForm("Harbour Goods", "JPY")); res.Status != http.StatusSeeOther {
		t.Fatalf("save: %d", res.Status)
	}
	jpy := views.Currency{Code: "JPY", Symbol: "¥", Digits: 0}
	if got := textOf(shopper.Get("/items/7").Body, "item-price"); got != jpy.Format(price) || strings.Contains(got, ".") {
		t.Errorf("item price in yen %q, want %s", got, jpy.Format(price))
	}
	if got := textOf(shopper.Get(orderURL).Body, "order-total"); got != total {
		t.Errorf("the order's total became %q, was %q", got, total)
	}
	if got := textOf(admin.Get("/admin/orders/"+itoa(id)).Body, "order-total"); got != total {
		t.Errorf("the admin's order page shows %q, want %q", got, total)
	}
}

// Bad settings get a 422 that says why, on the form as typed, and change
// nothing: the pages still show the shop as it was.
func TestShopSettingsRefuseBadInput(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	for _, c := range []struct {
		name, field, value, says string
	}{
		{"10 KB name", "shop_name", strings.Repeat("x", 10<<10), "at most 80 characters"},
		{"markup", "shop_name", "<script>alert(1)</script>", "markup"},
		{"bad currency", "currency", "XYZ", "not an ISO 4217 currency"},
		{"bad email", "contact_email", "shop at example", "one plain address"},
		{"10 KB address", "address", strings.Repeat("y ", 5<<10), "at most 500 characters"},
		{"address markup", "address", "1 Quay\n<img src=x onerror=alert(1)>", "markup"},
	} {
		f := settingsForm("Harbour Goods", "EUR")
		f.Set(c.field, c.value)
		res := admin.Post("/admin/settings", f)
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(textOf(res.Body, "field-error"), c.says) {
			t.Errorf("%s: %d %q, want 422 saying %q", c.name, res.Status, textOf(res.Body, "field-error"), c.says)
		}
		if strings.Contains(res.Body, "<script>alert(1)") || strings.Contains(res.Body, "<img src=x") {
			t.Errorf("%s: the form echoes markup unescaped", c.name)
		}
		js := admin.Post("/admin/settings", f, "Accept", "application/json")
		if js.Status != http.StatusUnprocessableEntity || !strings.Contains(js.Body, `"field":"`+c.field+`"`) {
			t.Errorf("%s as JSON: %d %s", c.name, js.Status, js.Body)
		}
	}
	if home := a.client().Get("/").Body; !strings.Contains(home, "· Storefront</title>") || strings.Contains(home, "€") {
		t.Error("a refused form changed the shop")
	}
	if n := a.tableCount("shop_settings"); n != 0 {
		t.Errorf("%d settings rows after refusals", n)
	}
	// Only the admin may see or change them.
	if res := a.client().Post("/admin/settings", settingsForm("Mine", "EUR")); res.Status == http.StatusSeeOther && a.tableCount("shop_settings") != 0 {
		t.Error("a guest changed the settings")
	}
}
