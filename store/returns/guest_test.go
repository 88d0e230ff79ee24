package returns_test

import (
	"errors"
	"testing"

	"storefront/store/cart"
	"storefront/store/platform"
	"storefront/store/returns"
	"storefront/wiring/wiringtest"
)

// TestGuestAsksForAReturn: a guest's delivered order is returned through
// a Guest request (the HTTP layer checked the order's signed link); a
// Guest request for a member's order, or a member's request for a
// guest's, is platform.ErrNotFound and changes nothing.
func TestGuestAsksForAReturn(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	member, _ := delivered(t, st, "retmember", cart.Line{ItemID: 3, Qty: 1})
	guest := cart.Owner{Token: "guest-token-ret"}
	wiringtest.SetStock(t, st, 4, 50)
	guestOrder := boughtAndDelivered(t, st, guest, "invoice", "", cart.Line{ItemID: 4, Qty: 2})
	one := func(item int64) map[returns.LineKey]int64 { return map[returns.LineKey]int64{{ItemID: item}: 1} }
	before := count(t, st, `SELECT COUNT(*) FROM returns`)
	if _, err := st.Returns.Ask(ctx, returns.Request{OrderID: member.ID, Guest: true, Qty: one(3), Reason: "not mine"}); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("a guest request for a member's order: %v", err)
	}
	if _, err := st.Returns.Ask(ctx, returns.Request{OrderID: guestOrder.ID, UserID: member.UserID, Qty: one(4), Reason: "not mine"}); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("a member's request for a guest's order: %v", err)
	}
	if n := count(t, st, `SELECT COUNT(*) FROM returns`); n != before {
		t.Fatalf("refused requests made %d returns", n-before)
	}
	r, err := st.Returns.Ask(ctx, returns.Request{OrderID: guestOrder.ID, Guest: true, Qty: one(4), Reason: "Too many"})
	if err != nil || r.Status != returns.Requested || r.UserID != 0 {
		t.Fatalf("the guest's return: %+v %v", r, err)
	}
}
