package views

import (
	"fmt"
	"io"
	"strings"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
)

// InvoiceDoc is what an invoice or a packing slip prints: the shop's
// details, the order's delivery address and lines, and (invoices only)
// the amounts the order stored, already written in its currency.
type InvoiceDoc struct {
	ShopName    string
	ShopAddress []string
	ShopEmail   string
	Number      int64 // the invoice number
	OrderID     int64
	Date        string
	Status      string
	Customer    string // the buyer: account or email
	ShipTo      []string
	Delivery    string // the delivery method
	Lines       []InvoiceLine
	// The totals, as the order stored them.
	Subtotal, Discount, DiscountCode, Shipping, Total string
	// TaxLines are the tax per rate ("VAT 20%" and its amount); TaxNote
	// says whether prices include it.
	TaxLines []InvoiceTax
	TaxNote  string
	Refunded string // "" for none
}

// InvoiceLine is one line of an order as printed.
type InvoiceLine struct {
	Name, Options, SKU string
	Qty                int64
	Price, Total       string
}

// InvoiceTax is the tax at one rate.
type InvoiceTax struct{ Label, Amount string }

// newPDF is an A4 page set up with the Go fonts, which carry the Latin,
// Greek and Cyrillic letters and the currency signs a shop's name, its
// items and its money may use (the PDF core fonts know only Latin-1).
func newPDF(title string) *fpdf.Fpdf {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.AddUTF8FontFromBytes("go", "", goregular.TTF)
	pdf.AddUTF8FontFromBytes("go", "B", gobold.TTF)
	pdf.SetTitle(title, true)
	pdf.SetMargins(18, 18, 18)
	pdf.SetAutoPageBreak(true, 18)
	pdf.AliasNbPages("")
	pdf.SetFooterFunc(func() {
		pdf.SetY(-14)
		pdf.SetFont("go", "", 8)
		pdf.CellFormat(0, 5, fmt.Sprintf("%s · page %d of {nb}", title, pdf.PageNo()), "", 0, "C", false, 0, "")
	})
	pdf.AddPage()
	return pdf
}

// header prints the shop's details on the left and the document's on the
// right.
func (d InvoiceDoc) header(pdf *fpdf.Fpdf, title string, facts []string) {
	pdf.SetFont("go", "B", 16)
	pdf.CellFormat(100, 8, d.ShopName, "", 0, "L", false, 0, "")
	pdf.SetFont("go", "B", 14)
	pdf.CellFormat(0, 8, title, "", 1, "R", false, 0, "")
	pdf.SetFont("go", "", 9)
	left := append(append([]string{}, d.ShopAddress...), d.ShopEmail)
	y := pdf.GetY()
	for _, l := range left {
		if l != "" {
			pdf.CellFormat(100, 4.5, l, "", 2, "L", false, 0, "")
		}
	}
	yl := pdf.GetY()
	pdf.SetXY(118, y)
	for _, f := range facts {
		pdf.CellFormat(0, 4.5, f, "", 2, "R", false, 0, "")
	}
	pdf.SetY(max(yl, pdf.GetY()) + 6)
}

// address prints a labelled block of lines.
func address(pdf *fpdf.Fpdf, label string, lines []string) {
	pdf.SetFont("go", "B", 9)
	pdf.CellFormat(0, 5, label, "", 1, "L", false, 0, "")
	pdf.SetFont("go", "", 9)
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			pdf.CellFormat(0, 4.5, l, "", 1, "L", false, 0, "")
		}
	}
	pdf.Ln(4)
}

// lineText is a line's name with its options and SKU under it.
func lineText(l InvoiceLine) string {
	s := l.Name
	if l.Options != "" {
		s += "\n" + l.Options
	}
	if l.SKU != "" {
		s += "\nSKU " + l.SKU
	}
	return s
}

// row prints one table row whose first column may wrap.
func row(pdf *fpdf.Fpdf, widths []float64, cells []string, aligns string) {
	lines := pdf.SplitText(cells[0], widths[0])
	h := 4.5 * float64(max(1, len(lines)))
	if pdf.GetY()+h > 297-24 {
		pdf.AddPage()
	}
	x, y := pdf.GetX(), pdf.GetY()
	pdf.MultiCell(widths[0], 4.5, cells[0], "", "L", false)
	cx := x + widths[0]
	for i := 1; i < len(cells); i++ {
		pdf.SetXY(cx, y)
		pdf.CellFormat(widths[i], 4.5, cells[i], "", 0, string(aligns[i]), false, 0, "")
		cx += widths[i]
	}
	pdf.SetXY(x, y+h+1.5)
}

// InvoicePDF writes the order's invoice.
func InvoicePDF(w io.Writer, d InvoiceDoc) error {
	title := fmt.Sprintf("Invoice number %d", d.Number)
	pdf := newPDF(title)
	facts := []string{title, fmt.Sprintf("Order #%d", d.OrderID), "Date " + d.Date}
	if d.Status != "" {
		facts = append(facts, d.Status)
	}
	d.header(pdf, "INVOICE", facts)
	address(pdf, "Bill to", append([]string{d.Customer}, d.ShipTo...))
	if d.Delivery != "" {
		address(pdf, "Delivery", []string{d.Delivery})
	}
	widths := []float64{92, 14, 34, 34}
	pdf.SetFont("go", "B", 9)
	row(pdf, widths, []string{"Item", "Qty", "Unit price", "Amount"}, "LRRR")
	pdf.Line(18, pdf.GetY()-1, 192, pdf.GetY()-1)
	pdf.SetFont("go", "", 9)
	for _, l := range d.Lines {
		row(pdf, widths, []string{lineText(l), fmt.Sprint(l.Qty), l.Price, l.Total}, "LRRR")
	}
	pdf.Line(18, pdf.GetY(), 192, pdf.GetY())
	pdf.Ln(2)
	total := func(label, amount string, bold bool) {
		style := ""
		if bold {
			style = "B"
		}
		pdf.SetFont("go", style, 9)
		pdf.CellFormat(140, 5, label, "", 0, "R", false, 0, "")
		pdf.CellFormat(0, 5, amount, "", 1, "R", false, 0, "")
	}
	total("Subtotal", d.Subtotal, false)
	if d.Discount != "" {
		label := "Discount"
		if d.DiscountCode != "" {
			label += " (" + d.DiscountCode + ")"
		}
		total(label, "-"+d.Discount, false)
	}
	total("Delivery", d.Shipping, false)
	for _, t := range d.TaxLines {
		total(t.Label, t.Amount, false)
	}
	total("Total", d.Total, true)
	if d.Refunded != "" {
		total("Refunded", "-"+d.Refunded, false)
	}
	if d.TaxNote != "" {
		pdf.Ln(3)
		pdf.SetFont("go", "", 8)
		pdf.MultiCell(0, 4, d.TaxNote, "", "R", false)
	}
	return output(pdf, w)
}

// PackingSlipPDF writes the order's packing slip: what goes in the
// parcel and where it goes, without prices.
func PackingSlipPDF(w io.Writer, d InvoiceDoc) error {
	title := fmt.Sprintf("Packing slip for order #%d", d.OrderID)
	pdf := newPDF(title)
	d.header(pdf, "PACKING SLIP", []string{fmt.Sprintf("Order #%d", d.OrderID), "Date " + d.Date})
	address(pdf, "Deliver to", d.ShipTo)
	if d.Delivery != "" {
		address(pdf, "Delivery", []string{d.Delivery})
	}
	widths := []float64{124, 30, 20}
	pdf.SetFont("go", "B", 9)
	row(pdf, widths, []string{"Item", "SKU", "Qty"}, "LLR")
	pdf.Line(18, pdf.GetY()-1, 192, pdf.GetY()-1)
	pdf.SetFont("go", "", 9)
	var n int64
	for _, l := range d.Lines {
		name := l.Name
		if l.Options != "" {
			name += "\n" + l.Options
		}
		row(pdf, widths, []string{name, l.SKU, fmt.Sprint(l.Qty)}, "LLR")
		n += l.Qty
	}
	pdf.Line(18, pdf.GetY(), 192, pdf.GetY())
	pdf.Ln(2)
	pdf.SetFont("go", "B", 9)
	pdf.CellFormat(0, 5, fmt.Sprintf("%d items", n), "", 1, "R", false, 0, "")
	return output(pdf, w)
}

func output(pdf *fpdf.Fpdf, w io.Writer) error {
	if err := pdf.Error(); err != nil {
		return fmt.Errorf("pdf: %w", err)
	}
	if err := pdf.Output(w); err != nil {
		return fmt.Errorf("pdf: %w", err)
	}
	return nil
}
