package handlers_test

import (
	"net/http"
	"net/url"
	"testing"
)

// itemEdit is the admin's item form for item 7 with the price as typed.
func itemEdit(price string) url.Values {
	return url.Values{"name": {"Harbour Lamp"}, "price": {price}, "stock": {"5"}, "category": {"Home"}, "description": {"Bright."}}
}

// Every form where the admin types money reads it in the shop's currency:
// "1500" is ¥1,500 in a shop selling in yen, where "15.5" is a 422 that
// changes nothing; in dollars "12.5" is $12.50 and "12.345" a 422. Forms
// show amounts back the way they read them.
func TestAdminAmountsInTheShopCurrency(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	zoneCount := func() (n int64) {
		if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM shipping_zones`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("USD", func(t *testing.T) {
		if res := admin.Post("/admin/items/7", itemEdit("12.5")); res.Status != http.StatusSeeOther {
			t.Fatalf("price 12.5: %d %s", res.Status, textOf(res.Body, "field-error"))
		}
		if got := a.priceOf(7); got != 1250 {
			t.Errorf("price %d, want 1250 cents", got)
		}
		mustContain(t, admin.MustGet("/admin/items/7", http.StatusOK).Body, `value="12.50"`)
		if res := admin.Post("/admin/items/7", itemEdit("12.345")); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("price 12.345: %d", res.Status)
		}
		if got := a.priceOf(7); got != 1250 {
			t.Errorf("a refused price changed it to %d", got)
		}
	})

	if res := admin.Post("/admin/settings", settingsForm("Harbour Goods", "JPY")); res.Status != http.StatusSeeOther {
		t.Fatalf("settings: %d", res.Status)
	}
	t.Run("JPY", func(t *testing.T) {
		if res := admin.Post("/admin/items/7", itemEdit("1500")); res.Status != http.StatusSeeOther {
			t.Fatalf("price 1500: %d %s", res.Status, textOf(res.Body, "field-error"))
		}
		if got := a.priceOf(7); got != 1500 {
			t.Errorf("price %d, want 1500 yen", got)
		}
		if got := textOf(a.client().Get("/items/7").Body, "item-price"); got != "¥1,500" {
			t.Errorf("item page shows %q, want ¥1,500", got)
		}
		mustContain(t, admin.MustGet("/admin/items/7", http.StatusOK).Body, `value="1500"`, "such as 1234")
		res := admin.Post("/admin/items/7", itemEdit("15.5"))
		if res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("price 15.5 in yen: %d", res.Status)
		}
		mustContain(t, textOf(res.Body, "field-error"), "JPY", "without decimals")
		if got := a.priceOf(7); got != 1500 {
			t.Errorf("a refused price changed it to %d", got)
		}

		if res := admin.Post("/admin/items/28/variants", variantForm([4]string{"JPY-S", "S", "15.5", "3"})); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("variant price 15.5 in yen: %d", res.Status)
		}
		if res := admin.Post("/admin/discounts", url.Values{"code": {"YEN1"}, "kind": {"amount"}, "value": {"5.5"}}); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("discount 5.5 in yen: %d", res.Status)
		}
		if res := admin.Post("/admin/discounts", url.Values{"code": {"YEN2"}, "kind": {"amount"}, "value": {"500"}, "min_subtotal": {"50.5"}}); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("minimum 50.5 in yen: %d", res.Status)
		}
		a.newCode(url.Values{"code": {"YEN3"}, "kind": {"amount"}, "value": {"500"}, "min_subtotal": {"3000"}})
		var value, minimum int64
		if err := a.store.DB().QueryRowContext(t.Context(), `SELECT value, min_subtotal FROM discount_codes WHERE code = 'YEN3'`).Scan(&value, &minimum); err != nil || value != 500 || minimum != 3000 {
			t.Errorf("code YEN3 holds %d off over %d (%v), want 500 over 3000", value, minimum, err)
		}

		zones := zoneCount()
		zone := url.Values{"name": {"Japan"}, "countries": {"JP"}, "standard": {"4.99"}, "express": {"1500"}, "free_over": {"10000"}}
		if res := admin.Post("/admin/shipping", zone); res.Status != http.StatusUnprocessableEntity || zoneCount() != zones {
			t.Errorf("rate 4.99 in yen: %d", res.Status)
		}
		zone.Set("standard", "500")
		if res := admin.Post("/admin/shipping", zone); res.Status != http.StatusSeeOther {
			t.Fatalf("zone in yen: %d %s", res.Status, res.Body)
		}
		var standard, freeOver int64
		if err := a.store.DB().QueryRowContext(t.Context(), `SELECT standard_cents, free_over FROM shipping_zones WHERE name = 'Japan'`).Scan(&standard, &freeOver); err != nil || standard != 500 || freeOver != 10000 {
			t.Errorf("zone holds %d, free over %d (%v)", standard, freeOver, err)
		}
		mustContain(t, admin.MustGet("/admin/shipping", http.StatusOK).Body, `value="500"`, `value="10000"`)
	})
}
