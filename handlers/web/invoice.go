package web

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/store/orders"
	"storefront/store/pricing"
	"storefront/views"
)

// InvoiceDoc is what the order's invoice and packing slip print: the
// shop's details as set now, and the order as it was stored (its lines,
// its totals in its own currency). customer names the buyer: the
// account's name, or a guest's email.
func (k *Kit) InvoiceDoc(o orders.Order, customer string) views.InvoiceDoc {
	shop := k.Shop()
	cur := ViewCurrency(o.Currency)
	d := views.InvoiceDoc{ShopName: shop.Name, ShopAddress: shop.Address, ShopEmail: shop.ContactEmail,
		Number: o.InvoiceNumber, OrderID: o.ID, Date: o.CreatedAt.UTC().Format("2 January 2006"),
		Customer: customer, ShipTo: o.Address.Lines(), Delivery: orders.ShippingName(o.Shipping),
		Subtotal: cur.Format(o.SubtotalCents), Shipping: cur.Format(o.ShippingCents), Total: cur.Format(o.TotalCents)}
	if o.Address.Phone != "" {
		d.ShipTo = append(d.ShipTo, "Phone: "+o.Address.Phone)
	}
	if o.Status == orders.OrderCancelled {
		d.Status = "Cancelled"
	}
	if o.DiscountCents > 0 {
		d.Discount, d.DiscountCode = cur.Format(o.DiscountCents), o.DiscountCode
	}
	for _, l := range o.Lines {
		d.Lines = append(d.Lines, views.InvoiceLine{Name: l.Name, Options: l.Variant, SKU: l.SKU, Qty: l.Qty,
			Price: cur.Format(l.PriceCents), Total: cur.Format(l.TotalCents())})
	}
	if o.TaxMode != "" {
		label := "Tax"
		if o.TaxRateBP > 0 || o.TaxCents == 0 {
			label = "Tax at " + RatePercent(o.TaxRateBP)
		}
		if o.TaxMode == pricing.TaxIncluded {
			label += " (included)"
			d.TaxNote = "Prices include tax at the rate of the delivery country."
		} else {
			d.TaxNote = "Tax at the rate of the delivery country is added to the prices."
		}
		d.TaxLines = []views.InvoiceTax{{Label: label, Amount: cur.Format(o.TaxCents)}}
	}
	if o.RefundedCents > 0 {
		d.Refunded = cur.Format(o.RefundedCents)
	}
	return d
}

// RatePercent writes a rate in hundredths of a percent: 2000 is "20%",
// 825 is "8.25%".
func RatePercent(bp int64) string {
	s := strconv.FormatInt(bp/100, 10)
	if frac := bp % 100; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%02d", frac), "0")
	}
	return s + "%"
}

// SendPDF answers with the PDF write makes, shown in the browser (not
// kept by any cache: it is one person's order) and saved as name.
func SendPDF(c echo.Context, name string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	NoStore(c)
	c.Response().Header().Set("Content-Disposition", `inline; filename="`+name+`"`)
	return c.Blob(http.StatusOK, "application/pdf", buf.Bytes())
}
