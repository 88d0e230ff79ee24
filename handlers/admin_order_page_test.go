package handlers_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The admin's order page says what to pack and what the order cost: each
// line (in admin-order-lines) with its options, SKU and line id, the
// discount, delivery (to which country), tax and total, and the tracking
// number once shipped. Its status form ships the order; a refused move
// (no tracking number) comes back to the page, 422, with the error beside
// the form and what was typed, and changes nothing.
func TestAdminOrderPageNamesVariantsAndShips(t *testing.T) {
	a := variantApp(t)
	ids := a.variantsByValues(28)
	a.setVariant(ids["M/Black"], 5, 0)
	a.setVariant(ids["XL/Amber"], 5, 0)
	a.newCode(url.Values{"code": {"PACK10"}, "kind": {"percent"}, "value": {"10"}})
	c := a.client()
	c.MustPost("/cart", url.Values{"item": {"28"}, "option-Size": {"M"}, "option-Colour": {"Black"}, "qty": {"2"}}, http.StatusSeeOther)
	c.MustPost("/cart", url.Values{"item": {"28"}, "option-Size": {"XL"}, "option-Colour": {"Amber"}, "qty": {"1"}}, http.StatusSeeOther)
	c.MustPost("/cart/discount", url.Values{"code": {"pack10"}}, http.StatusSeeOther)
	res := c.checkout(nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	id := regexp.MustCompile(`orders/([0-9]+)`).FindStringSubmatch(res.Header.Get("Location"))[1]
	admin := a.client()
	admin.signInAdmin()
	page := admin.MustGet("/admin/orders/"+id, http.StatusOK).Body
	lines := page[strings.Index(page, `data-testid="admin-order-lines"`):]
	lines = lines[:strings.Index(lines, "</table>")]
	keys := testids(lines, "admin-order-line", "data-line-id")
	skus := testids(lines, "admin-order-line", "data-sku")
	if strings.Join(keys, ",") != "28-"+ids["M/Black"]+",28-"+ids["XL/Amber"] && strings.Join(keys, ",") != "28-"+ids["XL/Amber"]+",28-"+ids["M/Black"] {
		t.Errorf("admin order lines %v", keys)
	}
	for _, want := range []string{"SF-000028-M-BLACK", "SF-000028-XL-AMBER", "Size: M, Colour: Black", "Size: XL, Colour: Amber"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the order's lines do not name %q (SKUs %v)", want, skus)
		}
	}
	for _, hook := range []string{"discount-line", "tax-line", "shipping-cost", "order-total", "subtotal", "order-status-form", "tracking-input", "order-tracking-none"} {
		if len(testids(page, hook, "")) != 1 {
			t.Errorf("the admin order page has no %s", hook)
		}
	}
	if got := rowText(page, "shipping-cost"); !strings.Contains(html.UnescapeString(page), "to United Kingdom") {
		t.Errorf("delivery %q does not name the country", got)
	}

	// Shipping without a tracking number: the page again, 422, the error
	// inline, nothing changed.
	bad := admin.Post("/admin/orders/"+id+"/status", url.Values{"status": {"shipped"}, "tracking": {"  "}, "next": {"/admin/orders/" + id}})
	if bad.Status != http.StatusUnprocessableEntity || len(testids(bad.Body, "order-status-form", "")) != 1 ||
		!strings.Contains(textOf(bad.Body, "field-error"), "tracking number") || len(testids(bad.Body, "admin-order-lines", "")) != 1 {
		t.Fatalf("shipping without tracking: %d, error %q", bad.Status, textOf(bad.Body, "field-error"))
	}
	if !strings.Contains(bad.Body, `aria-invalid="true" aria-describedby="move-error tracking-hint"`) || !strings.Contains(bad.Body, `<option value="shipped" selected>`) {
		t.Error("the refused form does not mark the tracking field or keep the chosen status")
	}
	if n, _ := strconv.ParseInt(id, 10, 64); a.orderStatus(n) == "shipped" {
		t.Fatal("a refused move shipped the order")
	}
	ok := admin.Post("/admin/orders/"+id+"/status", url.Values{"status": {"shipped"}, "tracking": {"1Z 999"}, "next": {"/admin/orders/" + id}})
	if ok.Status != http.StatusSeeOther || ok.Header.Get("Location") != "/admin/orders/"+id {
		t.Fatalf("ship: %d to %q", ok.Status, ok.Header.Get("Location"))
	}
	if got := textOf(admin.MustGet("/admin/orders/"+id, http.StatusOK).Body, "order-tracking"); got != "1Z 999" {
		t.Errorf("tracking on the admin's page %q", got)
	}
	// From the list (no next, or one off the site), a move goes back to
	// the list.
	if res := admin.Post("/admin/orders/"+id+"/status", url.Values{"status": {"delivered"}, "next": {"//evil.example/"}}); res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/admin/orders" {
		t.Errorf("deliver from the list: %d to %q", res.Status, res.Header.Get("Location"))
	}
}

// The order lines' CSV names each line's variant (SKU and options), with
// the order list's filters, one row per line; a hostile value is
// neutralised as in every export.
func TestOrderLinesCSVNamesVariants(t *testing.T) {
	a := variantApp(t)
	ids := a.variantsByValues(8)
	c := a.client()
	c.Register("linescsv")
	for _, size := range []string{"S", "XL"} {
		c.MustPost("/cart", url.Values{"item": {"8"}, "option-Size": {size}, "qty": {"1"}}, http.StatusSeeOther)
	}
	if res := c.checkout(nil); res.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d", res.Status)
	}
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE order_lines SET name = '=HYPERLINK("x")' WHERE variant_id = $1`, ids["XL"]); err != nil {
		t.Fatal(err)
	}
	admin := a.client()
	admin.signInAdmin()
	if !strings.Contains(admin.Get("/admin/orders?status=pending").Body, `href="/admin/order-lines.csv?status=pending"`) {
		t.Error("the order list does not link to its lines' export")
	}
	rows := csvDownload(t, admin.Get("/admin/order-lines.csv?status=pending"), "order-lines")
	header := rows[0]
	if strings.Join(header, ",") != "order,placed,status,sku,item,options,qty,price,total,name,shipping,"+
		"ship_line1,ship_line2,ship_city,ship_region,ship_postcode,ship_country,ship_phone" || len(rows) != 3 {
		t.Fatalf("rows %v", rows)
	}
	got := map[string]string{}
	for _, r := range rows[1:] {
		got[r[column(t, header, "sku")]] = r[column(t, header, "options")] + " | " + r[column(t, header, "item")]
	}
	if !strings.HasPrefix(got["SF-000008-S"], "Size: S | ") || got["SF-000008-XL"] != `Size: XL | '=HYPERLINK("x")` {
		t.Errorf("lines %v", got)
	}
	if rows := csvDownload(t, admin.Get("/admin/order-lines.csv?status=delivered"), "order-lines"); len(rows) != 1 {
		t.Errorf("no delivered orders, yet %v", rows)
	}
	if res := admin.Get("/admin/order-lines.csv?status=lost"); res.Status != http.StatusBadRequest {
		t.Errorf("unknown status: %d", res.Status)
	}
	if res := c.Get("/admin/order-lines.csv"); res.Status != http.StatusForbidden {
		t.Errorf("a shopper: %d", res.Status)
	}
}

// The admin's forms describe their fields by element ids (the hints shown
// beneath them), never by sentences, and no page repeats an id: the
// discount, shipping and tax forms, the options editor and the order page.
func TestAdminFormsDescribeFieldsByID(t *testing.T) {
	a := variantApp(t)
	admin := a.client()
	admin.signInAdmin()
	c := a.client()
	c.MustPost("/cart", url.Values{"item": {"7"}, "qty": {"1"}}, http.StatusSeeOther)
	res := c.checkout(nil)
	order := regexp.MustCompile(`orders/([0-9]+)`).FindStringSubmatch(res.Header.Get("Location"))[1]
	idRE := regexp.MustCompile(`\sid="([^"]*)"`)
	describedRE := regexp.MustCompile(`aria-describedby="([^"]*)"`)
	for _, path := range []string{"/admin/discounts", "/admin/shipping", "/admin/tax", "/admin/items/28/variants", "/admin/orders/" + order} {
		page := admin.MustGet(path, http.StatusOK).Body
		ids := map[string]int{}
		for _, m := range idRE.FindAllStringSubmatch(page, -1) {
			ids[m[1]]++
		}
		for id, n := range ids {
			if n > 1 {
				t.Errorf("%s: the id %q is used %d times", path, id, n)
			}
		}
		described := describedRE.FindAllStringSubmatch(page, -1)
		if len(described) == 0 {
			t.Errorf("%s: no field is described", path)
		}
		for _, m := range described {
			for _, ref := range strings.Fields(m[1]) {
				if ids[ref] != 1 {
					t.Errorf("%s: aria-describedby=%q names %q, which is no element's id", path, m[1], ref)
				}
			}
		}
	}
	// The options editor names its columns after the item's options.
	editor := admin.MustGet("/admin/items/28/variants", http.StatusOK).Body
	if got := listText(editor, "option-column"); strings.Join(got, ",") != "Size,Colour,Option 3" {
		t.Errorf("the options editor's columns are %v, want Size, Colour and one for a new option", got)
	}
}

// listText is the text of every element with the testid, in order.
func listText(body, id string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`data-testid="`+regexp.QuoteMeta(id)+`"[^>]*>([^<]*)<`).FindAllStringSubmatch(body, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}
