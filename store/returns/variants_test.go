package returns_test

import (
	"errors"
	"testing"

	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/orders"
	"storefront/store/returns"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

// An order with two sizes of one item: each size is its own line to
// return, what is left is counted per size, and receiving with restock
// puts the units back on the size they were sold from (the item's summed
// stock follows).
func TestReturnsAreByVariant(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	set := catalog.VariantSet{Options: []string{"Size"}, Variants: []catalog.Variant{
		{SKU: "R-7-S", Values: []string{"S"}, Stock: 10},
		{SKU: "R-7-M", Values: []string{"M"}, Stock: 10},
	}}
	if err := st.Catalog.SaveVariants(ctx, 7, set); err != nil {
		t.Fatal(err)
	}
	vs := storetest.Must(st.Catalog.Variants(ctx, 7))(t)
	small, medium := vs[0], vs[1]
	owner, uid := wiringtest.Shopper(t, st, "sizes")
	if err := st.Sessions.SetEmail(ctx, uid, "sizes@example.com"); err != nil {
		t.Fatal(err)
	}
	for _, v := range []catalog.Variant{small, medium} {
		if _, err := st.Cart.SetLine(ctx, owner, cart.Line{ItemID: 7, VariantID: v.ID, Qty: 2}); err != nil {
			t.Fatal(err)
		}
	}
	o, err := st.Orders.Checkout(ctx, wiringtest.Buy(owner, -1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Orders.MoveOrder(ctx, o.ID, 0, orders.OrderDelivered, orders.AdminActor("a")); err != nil {
		t.Fatal(err)
	}
	stock := func(id int64) int64 {
		t.Helper()
		var n int64
		if err := st.DB().QueryRowContext(ctx, `SELECT stock FROM item_variants WHERE id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	itemStock := func() int64 {
		t.Helper()
		var n int64
		if err := st.DB().QueryRowContext(ctx, `SELECT stock FROM items WHERE id = 7`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	mKey := returns.LineKey{ItemID: 7, VariantID: medium.ID}
	if k, ok := returns.ParseLineKey(mKey.String()); !ok || k != mKey {
		t.Fatalf("key %q reads back as %+v", mKey.String(), k)
	}
	// The whole of M, none of S: then M has nothing left, S still 2.
	r, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{mKey: 2}, Reason: "too big"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{mKey: 1}, Reason: "again"}); !errors.Is(err, returns.ErrTooMany) {
		t.Fatalf("a third M: %v, want too many", err)
	}
	if _, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 7}: 1}, Reason: "x"}); !errors.Is(err, returns.ErrUnknownLine) {
		t.Fatalf("the item without a variant: %v, want unknown line", err)
	}
	left := storetest.Must(st.Returns.Returnable(ctx, o.ID))(t)
	if left[mKey].Qty != 0 || left[returns.LineKey{ItemID: 7, VariantID: small.ID}].Qty != 2 {
		t.Fatalf("left %+v", left)
	}
	sBefore, mBefore, itemBefore := stock(small.ID), stock(medium.ID), itemStock()
	for _, a := range []string{returns.ActApprove, returns.ActReceive} {
		if r, err = st.Returns.Act(ctx, r.ID, a, true, "admin:root"); err != nil {
			t.Fatal(err)
		}
	}
	if stock(medium.ID) != mBefore+2 || stock(small.ID) != sBefore || itemStock() != itemBefore+2 {
		t.Errorf("after restock: S %d M %d item %d; want S %d M %d item %d", stock(small.ID), stock(medium.ID), itemStock(),
			sBefore, mBefore+2, itemBefore+2)
	}
	if len(r.Lines) != 1 || r.Lines[0].VariantID != medium.ID || r.Lines[0].SKU != "R-7-M" || r.Lines[0].Variant != "Size: M" {
		t.Errorf("return lines %+v, want M named by its SKU and options", r.Lines)
	}
	// The admin's list names what comes back: its SKU and options.
	latest := storetest.Must(st.Returns.Latest(ctx, 10))(t)
	if len(latest) != 1 || len(latest[0].Lines) != 1 || latest[0].Lines[0].SKU != "R-7-M" || latest[0].Lines[0].Variant != "Size: M" {
		t.Errorf("latest returns %+v, want M named by its SKU and options", latest)
	}
}
