package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"storefront/store/orders"
	"storefront/views"
)

// illinois is a guest's checkout form to Chicago, Illinois, with a phone.
func illinois(total string) url.Values {
	return url.Values{"email": {"ivy@example.com"}, "name": {"Ivy Park"}, "line1": {"233 S Wacker Dr"}, "city": {"Chicago"},
		"region": {"IL"}, "postcode": {"60606"}, "country": {"US"}, "phone": {"+1 (312) 555-0199"},
		"shipping": {"standard"}, "payment": {"invoice"}, "total": {total}}
}

// nigeria is a guest's checkout form to Lagos: no region, no phone.
func nigeria(total string) url.Values {
	return url.Values{"email": {"ngozi@example.com"}, "name": {"Ngozi Okafor"}, "line1": {"12 Awolowo Road"}, "city": {"Lagos"},
		"postcode": {"101233"}, "country": {"NG"}, "shipping": {"standard"}, "payment": {"invoice"}, "total": {total}}
}

// reviewed posts "Update the review" with the form's country and returns
// the page and the total it shows.
func (c *client) reviewed(f url.Values) (string, string) {
	c.a.t.Helper()
	r := url.Values{}
	for k, v := range f {
		r[k] = v
	}
	r.Set("review", "1")
	res := c.Post("/checkout", r)
	m := totalInput.FindStringSubmatch(res.Body)
	if res.Status != http.StatusOK || m == nil {
		c.a.t.Fatalf("review for %s: %d", f.Get("country"), res.Status)
	}
	return res.Body, m[1]
}

// TestCheckoutToIllinoisAndNigeria: the checkout offers every ISO 3166
// country and shows no delivery before one is chosen; a US address needs
// a state from the list (checked on the server), and the order, its page,
// its email and the admin's page carry the state and the phone; Nigeria,
// in no zone, is priced as the rest of the world, and is refused once no
// zone takes it; bad phones and regions are 422s that place nothing.
func TestCheckoutToIllinoisAndNigeria(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 20)
	price := a.priceOf(7)
	ivy := a.client()
	ivy.setQty("7", "1")

	first := ivy.MustGet("/checkout", http.StatusOK).Body
	if n := strings.Count(first, `<option value="`) - strings.Count(first, `<optgroup`); n < len(orders.Countries) || len(orders.Countries) != 249 {
		t.Errorf("%d options for %d countries", n, len(orders.Countries))
	}
	mustContain(t, first, `<option value="" selected>Choose a country</option>`, `<option value="NG">Nigeria</option>`,
		`<option value="AE">United Arab Emirates</option>`, `<option value="PH">Philippines</option>`,
		`<optgroup label="United States">`, `<optgroup label="Canada">`, `<optgroup label="Australia">`, `name="phone"`)
	if zone := testids(first, "delivery-zone", "data-zone"); len(zone) != 1 || zone[0] != "" || strings.Contains(rowText(first, "delivery-zone"), "United States") {
		t.Errorf("before a country the review names a delivery zone: %v %q", zone, rowText(first, "delivery-zone"))
	}
	if got := textOf(first, "shipping-cost"); got != "Choose a country" || textOf(first, "order-total") != views.DefaultShop.Currency.Format(price) {
		t.Errorf("before a country: delivery %q total %q, want no delivery and %s", got, textOf(first, "order-total"), views.DefaultShop.Currency.Format(price))
	}

	page, total := ivy.reviewed(illinois(""))
	if zone := testids(page, "delivery-zone", "data-zone"); len(zone) != 1 || zone[0] != "United States" {
		t.Errorf("US review zone %v", zone)
	}
	mustContain(t, page, `<label for="region">State</label>`, `<option value="IL" selected>Illinois</option>`, `<option value="DC">District of Columbia</option>`)
	if strings.Contains(page, `<optgroup`) || strings.Contains(page, `value="ON"`) {
		t.Error("the US review still offers other countries' regions")
	}
	for name, edit := range map[string]func(url.Values){
		"no state":          func(f url.Values) { f.Del("region") },
		"Ontario in the US": func(f url.Values) { f.Set("region", "ON") },
		"made-up state":     func(f url.Values) { f.Set("region", "XX") },
		"letters in phone":  func(f url.Values) { f.Set("phone", "call me maybe") },
		"short phone":       func(f url.Values) { f.Set("phone", "12") },
		"long phone":        func(f url.Values) { f.Set("phone", strings.Repeat("9", 16)) },
		"markup phone":      func(f url.Values) { f.Set("phone", "<b>555</b>") },
	} {
		f := illinois(total)
		edit(f)
		res := ivy.Post("/checkout", f)
		field := "region"
		if strings.Contains(name, "phone") {
			field = "phone"
		}
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `id="`+field+`-error"`) {
			t.Errorf("%s: %d, want 422 with the %s's message", name, res.Status, field)
		}
		if a.orderCount() != 0 {
			t.Fatalf("%s placed an order", name)
		}
	}
	res := ivy.Post("/checkout", illinois(total))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("Illinois: %d %q", res.Status, textOf(res.Body, "field-error"))
	}
	order := ivy.MustGet(res.Header.Get("Location"), http.StatusOK).Body
	mustContain(t, order, "Chicago, IL 60606", "United States", "Phone: +1 (312) 555-0199")
	var region, phone string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT ship_region, ship_phone FROM orders WHERE email = 'ivy@example.com'`).Scan(&region, &phone); err != nil ||
		region != "IL" || phone != "+1 (312) 555-0199" {
		t.Errorf("order row region %q phone %q (%v)", region, phone, err)
	}
	mails := a.mailsTo("ivy@example.com", "order-placed")
	if len(mails) != 1 || !strings.Contains(mails[0].Text, "Chicago, IL 60606") || !strings.Contains(mails[0].Text, "Phone: +1 (312) 555-0199") {
		t.Errorf("the confirmation does not carry the state and phone: %+v", mails)
	}
	admin := a.client()
	admin.signInAdmin()
	id := testids(admin.MustGet("/admin/orders", http.StatusOK).Body, "admin-order-row", "data-order-id")
	if len(id) == 0 {
		t.Fatal("no order on the admin's list")
	}
	mustContain(t, admin.MustGet("/admin/orders/"+id[0], http.StatusOK).Body, "Chicago, IL 60606", "Phone: +1 (312) 555-0199")

	// Nigeria: no zone names it, so the rest of the world's rates; a
	// region sent with it (the form offers every region until a country is
	// chosen) is dropped.
	ngozi := a.client()
	ngozi.setQty("7", "1")
	page, total = ngozi.reviewed(nigeria(""))
	if zone := testids(page, "delivery-zone", "data-zone"); len(zone) != 1 || zone[0] != "Rest of world" || textOf(page, "shipping-cost") != views.DefaultShop.Currency.Format(1499) {
		t.Errorf("Nigeria review: zone %v delivery %q", zone, textOf(page, "shipping-cost"))
	}
	if strings.Contains(page, `name="region"`) {
		t.Error("the Nigerian review asks for a region")
	}
	f := nigeria(total)
	f.Set("region", "IL")
	if res := ngozi.Post("/checkout", f); res.Status != http.StatusSeeOther {
		t.Fatalf("Nigeria: %d %q", res.Status, textOf(res.Body, "field-error"))
	}
	var country string
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT ship_country, ship_region, shipping_cents FROM orders WHERE email = 'ngozi@example.com'`).
		Scan(&country, &region, new(int64)); err != nil || country != "NG" || region != "" {
		t.Errorf("Nigerian order country %q region %q (%v)", country, region, err)
	}

	// The exports feed a shipping tool: every delivery field, the phone,
	// and (in the lines' export) each line's SKU beside the address.
	orderRows := csvDownload(t, admin.Get("/admin/orders.csv"), "orders")
	lineRows := csvDownload(t, admin.Get("/admin/order-lines.csv"), "order-lines")
	for _, want := range []struct {
		email, name string
		fields      map[string]string
	}{
		{"ivy@example.com", "Ivy Park", map[string]string{"ship_line1": "233 S Wacker Dr", "ship_city": "Chicago", "ship_region": "IL",
			"ship_postcode": "60606", "ship_country": "US", "ship_phone": "'+1 (312) 555-0199", "shipping": "standard"}},
		{"ngozi@example.com", "Ngozi Okafor", map[string]string{"ship_line1": "12 Awolowo Road", "ship_city": "Lagos", "ship_region": "",
			"ship_postcode": "101233", "ship_country": "NG", "ship_phone": "", "shipping": "standard"}},
	} {
		var orderID string
		for _, r := range orderRows[1:] {
			if r[column(t, orderRows[0], "email")] == want.email {
				orderID = r[0]
				for col, v := range want.fields {
					if got := r[column(t, orderRows[0], col)]; got != v {
						t.Errorf("orders.csv %s %s = %q, want %q", want.email, col, got, v)
					}
				}
			}
		}
		lines := 0
		for _, r := range lineRows[1:] {
			if r[0] != orderID {
				continue
			}
			lines++
			if r[column(t, lineRows[0], "sku")] == "" || r[column(t, lineRows[0], "name")] != want.name {
				t.Errorf("order-lines.csv row %v", r)
			}
			for col, v := range want.fields {
				if got := r[column(t, lineRows[0], col)]; got != v {
					t.Errorf("order-lines.csv %s %s = %q, want %q", want.email, col, got, v)
				}
			}
		}
		if orderID == "" || lines != 1 {
			t.Errorf("%s: order %q with %d lines in the exports", want.email, orderID, lines)
		}
	}

	// Once "Rest of world" names countries of its own, nothing takes
	// Nigeria: the review and the order say so, and nothing is placed.
	zones := testids(admin.MustGet("/admin/shipping", http.StatusOK).Body, "admin-zone-row", "data-zone-id")
	admin.MustPost("/admin/shipping", url.Values{"id": {zones[2]}, "name": {"Rest of world"}, "countries": {"AR, BR"},
		"standard": {"14.99"}, "express": {"29.99"}, "free_over": {"150"}}, http.StatusSeeOther)
	late := a.client()
	late.setQty("7", "1")
	page, _ = late.reviewed(nigeria(""))
	if !strings.Contains(page, "We do not deliver to Nigeria") || testids(page, "delivery-zone", "data-zone")[0] != "" {
		t.Errorf("the review of a country no zone takes: %q", textOf(page, "field-error"))
	}
	n := a.orderCount()
	if res := late.Post("/checkout", nigeria(views.DefaultShop.Currency.Format(price)[1:])); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "We do not deliver to Nigeria") {
		t.Errorf("an order to a country no zone takes: %d", res.Status)
	}
	if a.orderCount() != n {
		t.Error("an order to a country no zone takes was placed")
	}
}
