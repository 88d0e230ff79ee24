package views

import (
	"context"
	"strconv"
	"strings"
)

// AdminOrderData is the admin's page of one order: what to pack (each
// line with its options, SKU and picture), where it goes, what it cost
// (discount, delivery, tax), its tracking, the control that moves it on,
// its timeline and the admin's notes.
type AdminOrderData struct {
	ID       int64
	Shopper  string // the account's name; "" for a guest
	Email    string
	Status   string
	Placed   string
	Address  []string // the delivery address, line by line
	Country  string   // the delivery country's name
	Shipping string   // the delivery method
	Payment  string
	Tracking string // the carrier's tracking number, once shipped
	Lines    []AdminOrderLine
	// ItemCount is the quantity ordered; SubtotalCents the lines' total,
	// before Discount (nil: none), ShippingCents and Tax (nil: placed
	// before tax was recorded).
	ItemCount     int64
	SubtotalCents int64
	Discount      *DiscountLine
	ShippingCents int64
	Tax           *TaxLine
	TotalCents    int64
	PaidCents     int64
	RefundedCents int64
	// Moves are the statuses the admin may move the order to (none: it
	// moves no further). MoveTo and MoveTracking are the status form as
	// typed after a refusal, MoveError why it was refused.
	Moves        []string
	MoveTo       string
	MoveTracking string
	MoveError    string
	// Editable says the order's lines may still change (it has not
	// shipped); EditVersion is the version the edit form sends back,
	// DueCents what an edit asked the shopper to pay (0: nothing).
	// EditQty, EditSKU and EditAddQty are the form as typed after a
	// refusal, EditError why it was refused.
	Editable    bool
	EditVersion int64
	DueCents    int64
	MaxEditQty  int
	EditQty     map[string]string
	EditSKU     string
	EditAddQty  string
	EditError   string
	Events      []AdminOrderEvent
	Notes       []AdminOrderNote
	Note        string // the note as typed, after a refusal
	NoteError   string
	MaxNote     int
}

// deliveryLabel is the order's delivery row: its method and country,
// "Delivery (Standard delivery to United Kingdom)".
func (d AdminOrderData) deliveryLabel() string {
	where := d.Shipping
	if d.Country != "" {
		where = strings.TrimSpace(where + " to " + d.Country)
	}
	if where == "" {
		return "Delivery"
	}
	return "Delivery (" + where + ")"
}

// editQty is the quantity the edit form shows for line l: as typed after
// a refusal, else the line's.
func (d AdminOrderData) editQty(l AdminOrderLine) string {
	if v, ok := d.EditQty[l.Key]; ok {
		return v
	}
	return i64(l.Qty)
}

// AdminOrderLine is one line of an order on the admin's page: what to
// pick from the shelf.
type AdminOrderLine struct {
	// Key names the line (item, or item-variant), as returns do.
	Key       string
	ItemID    int64
	VariantID int64
	SKU       string
	// Variant is the options sold ("Size: M, Colour: Black"), "" for an
	// item without options.
	Variant    string
	Name       string
	Qty        int64
	PriceCents int64
	// Picture is the variant's own picture, else the item's main one.
	Picture Picture
}

// TotalCents is the line's sale price times its quantity.
func (l AdminOrderLine) TotalCents() int64 { return l.PriceCents * l.Qty }

// AdminOrderEvent is one step of an order's timeline.
type AdminOrderEvent struct{ Status, Actor, At string }

// AdminOrderNote is one of the admin's notes on an order.
type AdminOrderNote struct {
	ID     int64
	Author string
	Body   string
	At     string
}

// ImportData is the catalog import's form and, after a post, why the file
// was refused (Message, and each wrong row).
type ImportData struct {
	Message  string
	Problems []ImportProblem
	More     int // wrong rows not listed
	MaxBytes string
}

// ImportJobData is a catalog import's page: its state (queued, running,
// done, failed), progress while it runs, the result when done, why when
// it failed.
type ImportJobData struct {
	ID                      int64
	State                   string
	Phase                   string // checking or applying while it runs
	Total, Checked, Applied int
	Created, Updated        int
	Unchanged               int
	Result                  string // a done import's counts, in words
	Message                 string // why a failed import failed
	Problems                []ImportProblem
	More                    int
	Admin                   string
	Started                 string // when it was uploaded
}

// ImportProblem is one wrong row of an import: its number in the file
// (the header is row 1; 0 for the file as a whole) and why.
type ImportProblem struct {
	Row    int
	Reason string
}

// SalesData is the admin's sales page.
type SalesData struct {
	Period    string // the period the chart and best sellers are for
	Periods   []SalesPeriod
	Chart     SalesChart
	Top       []SalesSeller
	Low       []SalesLow
	LowAt     int64
	UpdatedAt string
}

// SalesPeriod is one period's totals.
type SalesPeriod struct {
	Key          string // today, 7d, 30d
	Label        string
	Since        string
	RevenueCents int64
	Orders       int64
	AverageCents int64
	Sessions     int64
	Conversion   string
	RefundCents  int64
}

// SalesSeller is a best seller of the period.
type SalesSeller struct {
	ItemID       int64
	Name         string
	Units        int64
	RevenueCents int64
}

// SalesLow is an item running out.
type SalesLow struct {
	ItemID int64
	Name   string
	Stock  int64
}

// SalesChart is the period's takings as bars, drawn as inline SVG on the
// server (no script): one bar per hour or day.
type SalesChart struct {
	Title  string
	Desc   string
	Width  int
	Height int
	Bars   []SalesBar
	Empty  bool
}

// SalesBar is one bar in SVG user units, with its label and value.
type SalesBar struct {
	X, Y, W, H float64
	Label      string // the hour or day
	Value      string // the takings and orders, in words
	Cents      int64
	Orders     int64
}

// salesChartHeight is the bar area's height; labels go below it.
const salesChartHeight = 160

// NewSalesChart lays out bars of takings (in cents) under their labels.
func NewSalesChart(ctx context.Context, title string, labels []string, cents, orders []int64) SalesChart {
	ch := SalesChart{Title: title, Width: 720, Height: salesChartHeight + 24, Empty: true}
	var top int64
	for _, c := range cents {
		top = max(top, c)
	}
	slot := float64(ch.Width) / float64(max(1, len(labels)))
	var total, count int64
	for i, l := range labels {
		b := SalesBar{X: float64(i)*slot + slot*0.1, W: slot * 0.8, Label: l, Cents: cents[i], Orders: orders[i],
			Value: Money(ctx, cents[i]) + " from " + Counted(orders[i], "order", "orders")}
		if top > 0 {
			b.H = float64(cents[i]) / float64(top) * salesChartHeight
		}
		b.Y = salesChartHeight - b.H
		if cents[i] > 0 {
			ch.Empty = false
		}
		total += cents[i]
		count += orders[i]
		ch.Bars = append(ch.Bars, b)
	}
	ch.Desc = title + ": " + Money(ctx, total) + " from " + Counted(count, "order", "orders") + " in all."
	return ch
}

// Percent formats a ratio as a percentage with one decimal.
func Percent(r float64) string {
	return strconv.FormatFloat(r*100, 'f', 1, 64) + "%"
}

// f1 formats an SVG coordinate.
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// labelEvery says which bars get a printed label: all of a few, every
// few of many.
func labelEvery(n int) int {
	if n <= 8 {
		return 1
	}
	return (n + 7) / 8
}

// ordersCSVURL is the CSV export of the admin's order list with the same
// filters.
func ordersCSVURL(q, status string) string {
	return "/admin/orders.csv" + strings.TrimPrefix(ordersURL(q, status), "/admin/orders")
}

// orderLinesCSVURL is the CSV export of the lines of the admin's order
// list with the same filters.
func orderLinesCSVURL(q, status string) string {
	return "/admin/order-lines.csv" + strings.TrimPrefix(ordersURL(q, status), "/admin/orders")
}
