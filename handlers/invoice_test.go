package handlers_test

import (
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"storefront/handlers/web"
	"storefront/store/merchant"
)

// pdfText is the text pdftotext extracts from a PDF, in reading order.
// Without poppler-utils the test is skipped on a laptop, and fails where
// it must run (E2E or CI set).
func pdfText(t *testing.T, pdf string) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("E2E") != "" || os.Getenv("CI") != "" {
			t.Fatal("pdftotext (poppler-utils) is needed to read the PDFs")
		}
		t.Skip("pdftotext (poppler-utils) not installed")
	}
	cmd := exec.CommandContext(t.Context(), bin, "-layout", "-enc", "UTF-8", "-", "-")
	cmd.Stdin = strings.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

func TestInvoiceAndPackingSlip(t *testing.T) {
	a := newApp(t, nil, nil)
	if _, err := a.store.Merchant.SaveSettings(t.Context(), merchant.Settings{ShopName: "Żabka & Co", Currency: "EUR",
		ContactEmail: "shop@example.com", Address: "1 Rue de Rivoli\n75001 Paris"}); err != nil {
		t.Fatal(err)
	}
	buyer := a.client()
	buyer.Register("ines")
	id := buyer.orderFor("ines", 5, 2)
	o, err := a.store.Orders.OrderAny(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if o.InvoiceNumber == 0 || o.Currency != "EUR" {
		t.Fatalf("order %d: invoice number %d, currency %s", id, o.InvoiceNumber, o.Currency)
	}
	path := "/orders/" + itoa(id) + "/invoice.pdf"
	if !strings.Contains(buyer.MustGet("/orders/"+itoa(id), http.StatusOK).Body, `href="`+path+`"`) {
		t.Error("the order page does not link its invoice")
	}
	res := buyer.MustGet(path, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "application/pdf" || !strings.HasPrefix(res.Body, "%PDF-") {
		t.Fatalf("invoice: %q, starts %.8q", ct, res.Body)
	}
	text := pdfText(t, res.Body)
	eur := web.ViewCurrency("EUR")
	want := []string{"Invoice number " + itoa(o.InvoiceNumber), "Order #" + itoa(id), "Żabka & Co", "1 Rue de Rivoli", "75001 Paris",
		"ines", "Ada Lovelace", "1 Main Street", "Subtotal", eur.Format(o.SubtotalCents), "Delivery", eur.Format(o.ShippingCents),
		"Total", eur.Format(o.TotalCents), "Tax at"}
	for _, l := range o.Lines {
		want = append(want, l.Name, eur.Format(l.PriceCents), eur.Format(l.TotalCents()))
		if l.SKU != "" {
			want = append(want, "SKU "+l.SKU)
		}
		if l.Variant != "" {
			want = append(want, l.Variant)
		}
	}
	if o.TaxMode != "" {
		want = append(want, eur.Format(o.TaxCents))
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the invoice's text lacks %q:\n%s", w, text)
		}
	}

	// Anyone else: 404, signed in or not, with or without a made-up key.
	other := a.client()
	other.Register("olga")
	other.MustGet(path, http.StatusNotFound)
	a.client().MustGet(path, http.StatusNotFound)
	a.client().MustGet(path+"?key="+strings.Repeat("A", 22), http.StatusNotFound)
	other.MustGet("/admin/orders/"+itoa(id)+"/packing-slip.pdf", http.StatusForbidden)

	// Staff read the invoice and the packing slip, linked from the admin's
	// order page.
	admin := a.client()
	admin.signInAdmin()
	page := admin.MustGet("/admin/orders/"+itoa(id), http.StatusOK).Body
	if !strings.Contains(page, `href="/admin/orders/`+itoa(id)+`/packing-slip.pdf"`) || !strings.Contains(page, `href="`+path+`"`) {
		t.Error("the admin's order page does not link the invoice and the packing slip")
	}
	if !strings.Contains(pdfText(t, admin.MustGet(path, http.StatusOK).Body), "Invoice number "+itoa(o.InvoiceNumber)) {
		t.Error("staff's invoice lacks its number")
	}
	slip := pdfText(t, admin.MustGet("/admin/orders/"+itoa(id)+"/packing-slip.pdf", http.StatusOK).Body)
	for _, w := range []string{"Order #" + itoa(id), "Ada Lovelace", "1 Main Street", "London", "N1 1AA"} {
		if !strings.Contains(slip, w) {
			t.Errorf("the packing slip lacks %q:\n%s", w, slip)
		}
	}
	for _, l := range o.Lines {
		if !regexp.MustCompile(regexp.QuoteMeta(l.SKU) + `\s+` + itoa(l.Qty) + `\b`).MatchString(slip) {
			t.Errorf("the packing slip lacks %s × %d:\n%s", l.SKU, l.Qty, slip)
		}
	}
	if strings.Contains(slip, "€") || strings.Contains(slip, eur.Format(o.TotalCents)) {
		t.Errorf("the packing slip shows prices:\n%s", slip)
	}
	admin.MustGet("/admin/orders/999999/packing-slip.pdf", http.StatusNotFound)

	// A guest reads theirs through the key of the order's link.
	guest := a.client()
	a.setStock(8, 10)
	if res := guest.setQty("8", "1"); res.Status != http.StatusSeeOther {
		t.Fatalf("guest's cart: %d", res.Status)
	}
	placed := guest.checkout(nil)
	m := regexp.MustCompile(`/guest-orders/(\d+)\?key=([A-Za-z0-9_-]+)`).FindStringSubmatch(placed.Header.Get("Location"))
	if m == nil {
		t.Fatalf("guest checkout: %d to %q", placed.Status, placed.Header.Get("Location"))
	}
	gpath := "/orders/" + m[1] + "/invoice.pdf"
	if !strings.Contains(guest.MustGet(placed.Header.Get("Location"), http.StatusOK).Body, gpath+"?key="+m[2]) {
		t.Error("the guest's order page does not link its invoice")
	}
	if !strings.Contains(pdfText(t, guest.MustGet(gpath+"?key="+m[2], http.StatusOK).Body), "ada@example.com") {
		t.Error("the guest's invoice does not name the buyer")
	}
	guest.MustGet(gpath, http.StatusNotFound)
	buyer.MustGet(gpath, http.StatusNotFound)
}
