package orders_test

import (
	"errors"
	"sync"
	"testing"

	"storefront/store/cart"
	"storefront/store/orders"
	"storefront/store/pricing"
	"storefront/wiring/wiringtest"
)

// editErr is the reason of an edit's refusal, "" for none.
func editErr(err error) string {
	var ee *orders.EditError
	if errors.As(err, &ee) {
		return ee.Reason
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// TestEditOrderConcurrently: twelve staff add one of an item to one order
// at once (on PostgreSQL the edits truly overlap): every one applies on
// top of the others, the line ends twelve higher, the stock twelve lower
// and the order's total is its lines priced once. Twelve edits sent from
// the same version of the form: one applies, the others are refused as
// conflicts and change nothing.
func TestEditOrderConcurrently(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	owner, _ := wiringtest.Shopper(t, st, "edits")
	wiringtest.SetStock(t, st, 9, 100)
	wiringtest.SetStock(t, st, 10, 100)
	o, err := placeTestOrder(t, st, owner, []cart.Line{{ItemID: 9, Qty: 1}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	run := func(version int64) []error {
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = st.Orders.EditOrder(ctx, orders.EditRequest{OrderID: o.ID, Version: version, AddSKU: "sf-000010", AddQty: 1, Actor: "staff"})
			}()
		}
		wg.Wait()
		return errs
	}
	for _, err := range run(-1) {
		if err != nil {
			t.Fatalf("an edit with no version: %v", err)
		}
	}
	got, err := st.Orders.OrderAny(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Lines) != 2 || got.Lines[1].ItemID != 10 || got.Lines[1].Qty != n || wiringtest.StockOf(t, st, 10) != 100-n {
		t.Fatalf("after %d edits: lines %+v, stock %d", n, got.Lines, wiringtest.StockOf(t, st, 10))
	}
	q, _, err := st.Pricing.Quote(ctx, nil, pricing.Request{Lines: []int64{got.Lines[0].TotalCents(), got.Lines[1].TotalCents()},
		Country: "GB", Method: orders.ShippingStandard})
	if err != nil || q.Total != got.TotalCents || q.Tax != got.TaxCents || got.EditVersion != n {
		t.Fatalf("total %d (tax %d, version %d), priced afresh %d (tax %d): %v", got.TotalCents, got.TaxCents, got.EditVersion, q.Total, q.Tax, err)
	}

	applied := 0
	for _, err := range run(got.EditVersion) {
		switch editErr(err) {
		case "":
			applied++
		case orders.EditConflict:
		default:
			t.Fatalf("an edit from one version: %v", err)
		}
	}
	after, err := st.Orders.OrderAny(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if applied != 1 || after.Lines[1].Qty != n+1 || wiringtest.StockOf(t, st, 10) != 100-n-1 {
		t.Fatalf("%d of the same version applied; qty %d, stock %d", applied, after.Lines[1].Qty, wiringtest.StockOf(t, st, 10))
	}
	notes, err := st.Orders.Notes(ctx, o.ID)
	if err != nil || len(notes) != n+1 {
		t.Fatalf("%d notes for %d edits: %v", len(notes), n+1, err)
	}
}

// TestEditOrderRefusals: an edit that would oversell, an unknown SKU, a
// quantity out of range, an order with no line left, a shipped order:
// each refused with its reason, the order, its stock and its notes as
// they were.
func TestEditOrderRefusals(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	owner, _ := wiringtest.Shopper(t, st, "refused")
	wiringtest.SetStock(t, st, 9, 5)
	wiringtest.SetStock(t, st, 10, 2)
	o, err := placeTestOrder(t, st, owner, []cart.Line{{ItemID: 9, Qty: 2}})
	if err != nil {
		t.Fatal(err)
	}
	line := orders.LineRef{ItemID: 9}
	for _, c := range []struct {
		name string
		req  orders.EditRequest
		want string
	}{
		{"oversell a line", orders.EditRequest{Qty: map[orders.LineRef]int64{line: 6}}, orders.EditOversell},
		{"oversell an added item", orders.EditRequest{AddSKU: "SF-000010", AddQty: 3}, orders.EditOversell},
		{"unknown SKU", orders.EditRequest{AddSKU: "NO-SUCH", AddQty: 1}, orders.EditUnknownSKU},
		{"negative", orders.EditRequest{Qty: map[orders.LineRef]int64{line: -1}}, orders.EditBadQty},
		{"too many", orders.EditRequest{Qty: map[orders.LineRef]int64{line: orders.MaxEditQty + 1}}, orders.EditBadQty},
		{"add none", orders.EditRequest{AddSKU: "SF-000010", AddQty: 0}, orders.EditBadQty},
		{"a line it has not", orders.EditRequest{Qty: map[orders.LineRef]int64{{ItemID: 10}: 1}}, orders.EditBadQty},
		{"no line left", orders.EditRequest{Qty: map[orders.LineRef]int64{line: 0}}, orders.EditEmpty},
		{"nothing", orders.EditRequest{Qty: map[orders.LineRef]int64{line: 2}}, orders.EditNothing},
		{"old form", orders.EditRequest{Version: 3, Qty: map[orders.LineRef]int64{line: 1}}, orders.EditConflict},
	} {
		c.req.OrderID, c.req.Actor = o.ID, "staff"
		if c.req.Version == 0 {
			c.req.Version = -1
		}
		if _, err := st.Orders.EditOrder(ctx, c.req); editErr(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	if _, err := st.Orders.ShipOrder(ctx, o.ID, "1Z1", "admin:a"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Orders.EditOrder(ctx, orders.EditRequest{OrderID: o.ID, Version: -1, Qty: map[orders.LineRef]int64{line: 1}}); editErr(err) != orders.EditNotEditable {
		t.Errorf("a shipped order's edit: %v", err)
	}
	got, err := st.Orders.OrderAny(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	notes, _ := st.Orders.Notes(ctx, o.ID)
	if got.TotalCents != o.TotalCents || len(got.Lines) != 1 || got.Lines[0].Qty != 2 || got.EditVersion != 0 || len(notes) != 0 ||
		wiringtest.StockOf(t, st, 9) != 3 || wiringtest.StockOf(t, st, 10) != 2 {
		t.Fatalf("refused edits changed the order: %+v, notes %d, stock %d and %d", got, len(notes), wiringtest.StockOf(t, st, 9), wiringtest.StockOf(t, st, 10))
	}
}

// TestEditOrderDropsACodeBelowItsMinimum: an order placed with a code
// whose minimum it met loses the code (and gives its use back) when an
// edit takes it below the minimum; the delivery and tax follow the new
// lines.
func TestEditOrderDropsACodeBelowItsMinimum(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	owner, _ := wiringtest.Shopper(t, st, "coded")
	wiringtest.SetStock(t, st, 9, 10)
	var price int64
	if err := st.DB().QueryRowContext(ctx, `SELECT price_cents FROM items WHERE id = 9`).Scan(&price); err != nil {
		t.Fatal(err)
	}
	code := saveCode(t, st, pricing.Code{Code: "BIG10", Kind: pricing.KindPercent, Value: 1000, MinSubtotal: 2 * price})
	wiringtest.SetLine(t, st, owner, 9, 2)
	if err := st.Cart.SetCode(ctx, owner, "BIG10"); err != nil {
		t.Fatal(err)
	}
	o, err := st.Orders.Checkout(ctx, wiringtest.Buy(owner, -1))
	if err != nil || o.DiscountCode != "BIG10" {
		t.Fatalf("checkout with the code: %+v %v", o.DiscountCode, err)
	}
	e, err := st.Orders.EditOrder(ctx, orders.EditRequest{OrderID: o.ID, Version: 0, Qty: map[orders.LineRef]int64{{ItemID: 9}: 1}, Actor: "staff"})
	if err != nil {
		t.Fatal(err)
	}
	used, rows := codeUse(t, st, code.ID)
	q, _, _ := st.Pricing.Quote(ctx, nil, pricing.Request{Lines: []int64{price}, Country: "GB", Method: orders.ShippingStandard})
	if e.CodeDropped != "BIG10" || e.After.DiscountCode != "" || e.After.DiscountCents != 0 || used != 0 || rows != 0 ||
		e.After.TotalCents != q.Total || e.After.ShippingCents != q.Shipping || e.After.TaxCents != q.Tax {
		t.Fatalf("after the edit: code %q (dropped %q, uses %d/%d), total %d shipping %d tax %d; priced afresh %+v",
			e.After.DiscountCode, e.CodeDropped, used, rows, e.After.TotalCents, e.After.ShippingCents, e.After.TaxCents, q.Breakdown)
	}
}
