package handlers_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"storefront/wiring"
)

// The order and return emails name what was bought (each line's options
// and SKU), where it goes (the delivery method and the country by name),
// the carrier's link to follow the parcel (TRACKING_URL), where to send a
// return (SHOP_ADDRESS) and how the refund comes back (the way the order
// was paid), in the text part and the HTML part.
func TestOrderEmailsNameVariantsAndWhereThingsGo(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) {
		o.SeedVariants = true
		o.ShopAddress = "Storefront Returns, 1 Dock Road, London E1 1AA"
		o.TrackingURL = "https://track.example.com/p/{tracking}"
	}, nil)
	ids := a.variantsByValues(28)
	a.setVariant(ids["M/Black"], 5, 0)
	shopper := a.client()
	shopper.Register("vera")
	shopper.MustPost("/cart", url.Values{"item": {"28"}, "option-Size": {"M"}, "option-Colour": {"Black"}, "qty": {"2"}}, http.StatusSeeOther)
	res := shopper.checkout(nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	id := regexp.MustCompile(`orders/([0-9]+)`).FindStringSubmatch(res.Header.Get("Location"))[1]
	both := func(kind string, facts ...string) {
		t.Helper()
		got := a.mailsTo("vera@example.com", kind)
		if len(got) != 1 {
			t.Fatalf("%d %s messages", len(got), kind)
		}
		for _, f := range facts {
			if !strings.Contains(got[0].Text, f) {
				t.Errorf("%s: the text lacks %q:\n%s", kind, f, got[0].Text)
			}
			if !strings.Contains(got[0].HTML, strings.ReplaceAll(f, "&", "&amp;")) {
				t.Errorf("%s: the HTML lacks %q", kind, f)
			}
		}
	}
	both("order-placed", "Size: M, Colour: Black", "SKU SF-000028-M-BLACK", "United Kingdom", "Standard delivery to United Kingdom")

	admin := a.client()
	admin.signInAdmin()
	admin.MustPost("/admin/orders/"+id+"/status", url.Values{"status": {"shipped"}, "tracking": {"1Z 999/AB"}}, http.StatusSeeOther)
	both("order-shipped", "1Z 999/AB", "https://track.example.com/p/1Z%20999%2FAB", "Standard delivery to United Kingdom")
	deliver(t, admin, parseID(t, id))

	key := "28-" + ids["M/Black"]
	if r := shopper.Post("/orders/"+id+"/returns", url.Values{"line": {key}, "qty-" + key: {"1"}, "reason": {"Too big"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("ask a return: %d %s", r.Status, textOf(r.Body, "return-error"))
	}
	both("return-requested", "Size: M, Colour: Black", "SKU SF-000028-M-BLACK")
	list := admin.MustGet("/admin/returns", http.StatusOK).Body
	if got := testids(list, "return-line", "data-sku"); len(got) != 1 || got[0] != "SF-000028-M-BLACK" || !strings.Contains(list, "Size: M, Colour: Black") {
		t.Errorf("the admin's returns list names %v", got)
	}
	rid := testids(list, "admin-return-row", "data-return-id")[0]
	for _, step := range []string{"approve", "receive", "refund"} {
		admin.MustPost("/admin/returns/"+rid, url.Values{"action": {step}, "restock": {"1"}}, http.StatusSeeOther)
	}
	both("return-approved", "Send them to: Storefront Returns, 1 Dock Road, London E1 1AA", "return number, "+rid)
	both("return-refunded", "by bank transfer, to the account you paid the invoice from")
}
