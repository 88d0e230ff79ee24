package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"storefront/store/pricing"
)

// A discount code can be retired: checkouts refuse it (even on a cart
// that applied it before), the admin's list hides it unless asked, the
// order that used it still shows it, and bringing it back makes it work
// again.
func TestRetireDiscountCode(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	a.newCode(url.Values{"code": {"Save10"}, "kind": {"percent"}, "value": {"10"}})
	buyer := a.client()
	buyer.setQty("7", "1")
	if res := buyer.Post("/cart/discount", url.Values{"code": {"save10"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("apply: %d", res.Status)
	}
	placed := buyer.checkout(nil)
	if placed.Status != http.StatusSeeOther {
		t.Fatalf("place: %d %s", placed.Status, textOf(placed.Body, "field-error"))
	}
	orderURL := placed.Header.Get("Location")
	late := a.client() // applied the code before it was retired
	late.setQty("7", "1")
	if res := late.Post("/cart/discount", url.Values{"code": {"SAVE10"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("apply: %d", res.Status)
	}

	admin := a.client()
	admin.signInAdmin()
	if res := admin.Post("/admin/discounts/Save10/retire", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("retire: %d", res.Status)
	}
	if got := a.codeUsed(admin, "Save10"); got != "" {
		t.Errorf("the retired code is on the default list (used %q)", got)
	}
	all := admin.Get("/admin/discounts?retired=1").Body
	if codes, retired := testids(all, "admin-discount-row", "data-code"), testids(all, "admin-discount-row", "data-retired"); len(codes) != 1 || codes[0] != "Save10" || retired[0] != "true" {
		t.Errorf("with retired: codes %v retired %v", codes, retired)
	}
	if got := testids(buyer.Get(orderURL).Body, "discount-line", "data-code"); len(got) != 1 || got[0] != "Save10" {
		t.Errorf("the order that used the code shows %v", got)
	}
	other := a.client()
	other.setQty("7", "1")
	res := other.Post("/cart/discount", url.Values{"code": {"save10"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "no longer offered") {
		t.Errorf("applying a retired code: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	before := a.orderCount()
	if res := late.checkout(nil); res.Status == http.StatusSeeOther {
		if got := testids(late.Get(res.Header.Get("Location")).Body, "discount-line", "data-code"); len(got) != 0 {
			t.Errorf("an order took the retired code: %v", got)
		}
	} else if !strings.Contains(res.Body, "no longer offered") {
		t.Errorf("checkout with the retired code: %d without the reason", res.Status)
	} else if a.orderCount() != before {
		t.Error("a refused checkout placed an order")
	}
	if res := admin.Post("/admin/discounts/NOPE/retire", nil); res.Status != http.StatusNotFound {
		t.Errorf("retiring an unknown code: %d", res.Status)
	}
	if res := a.client().Post("/admin/discounts/Save10/restore", nil); strings.HasPrefix(res.Header.Get("Location"), "/admin") {
		t.Errorf("a guest brought a code back: %d to %s", res.Status, res.Header.Get("Location"))
	}
	if res := other.Post("/cart/discount", url.Values{"code": {"save10"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("the code works after a guest's restore: %d", res.Status)
	}
	if res := admin.Post("/admin/discounts/save10/restore", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("restore: %d", res.Status)
	}
	if res := other.Post("/cart/discount", url.Values{"code": {"save10"}}); res.Status != http.StatusSeeOther {
		t.Errorf("the code brought back: %d", res.Status)
	}
}

// A shipping zone can be retired: it prices no delivery (its countries
// fall to the zone without countries), the admin's page hides it unless
// asked, and it comes back unless a zone in use took one of its countries
// since (422, nothing changed).
func TestRetireShippingZone(t *testing.T) {
	a := newApp(t, nil, nil)
	ctx := t.Context()
	zoneOf := func(country string) string {
		t.Helper()
		q, _, err := a.store.Pricing.Quote(ctx, nil, pricing.Request{Lines: []int64{1000}, Country: country, Method: pricing.MethodStandard})
		if err != nil {
			t.Fatal(err)
		}
		return q.Zone.Name
	}
	if got := zoneOf("DE"); got != "Europe" {
		t.Fatalf("DE is in %q", got)
	}
	admin := a.client()
	admin.signInAdmin()
	page := admin.Get("/admin/shipping").Body
	ids, countries := testids(page, "admin-zone-row", "data-zone-id"), testids(page, "admin-zone-row", "data-countries")
	europe := ""
	for i, c := range countries {
		if strings.Contains(c, "DE") {
			europe = ids[i]
		}
	}
	if europe == "" {
		t.Fatalf("no zone with DE among %v", countries)
	}
	if res := admin.Post("/admin/shipping/"+europe+"/retire", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("retire: %d", res.Status)
	}
	if got := zoneOf("DE"); got != "Rest of world" {
		t.Errorf("DE is priced by %q once Europe is retired", got)
	}
	if strings.Contains(admin.Get("/admin/shipping").Body, `data-zone-id="`+europe+`"`) {
		t.Error("the retired zone is on the default page")
	}
	if !strings.Contains(admin.Get("/admin/shipping?retired=1").Body, `data-testid="zone-retired" data-zone-id="`+europe+`"`) {
		t.Error("the retired zone is not shown as retired with ?retired=1")
	}
	// Germany gets a zone of its own; Europe cannot come back over it.
	form := url.Values{"id": {""}, "name": {"Germany"}, "countries": {"DE"}, "standard": {"3.00"}, "express": {"9.00"}, "free_over": {"40.00"}}
	if res := admin.Post("/admin/shipping", form); res.Status != http.StatusSeeOther {
		t.Fatalf("new zone over a retired zone's country: %d %s", res.Status, textOf(res.Body, "form-alert"))
	}
	res := admin.Post("/admin/shipping/"+europe+"/restore", nil)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "DE is in the zone Germany") {
		t.Errorf("restore over Germany: %d", res.Status)
	}
	if got := zoneOf("FR"); got != "Rest of world" {
		t.Errorf("a refused restore changed FR's zone to %q", got)
	}
	if res := admin.Post("/admin/shipping/999999/retire", nil); res.Status != http.StatusNotFound {
		t.Errorf("retiring an unknown zone: %d", res.Status)
	}
	var germany string
	if err := a.store.DB().QueryRowContext(ctx, `SELECT id FROM shipping_zones WHERE name = 'Germany'`).Scan(&germany); err != nil {
		t.Fatal(err)
	}
	admin.MustPost("/admin/shipping/"+germany+"/retire", nil, http.StatusSeeOther)
	admin.MustPost("/admin/shipping/"+europe+"/restore", nil, http.StatusSeeOther)
	if got := zoneOf("DE"); got != "Europe" {
		t.Errorf("DE is priced by %q once Europe is back", got)
	}
}
