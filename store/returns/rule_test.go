package returns_test

import (
	"context"
	"fmt"
	"testing"

	"storefront/store/cart"
	"storefront/store/orders"
	"storefront/store/pricing"
	"storefront/store/returns"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// Items the refund tests price themselves: no options, plenty of stock.
const itemA, itemB = 201, 202

// moneyShop is a shop with card payments against stripe (stripe-mock) and
// tax added at checkout or included in the prices, items A at 12.50 and B
// at 19.99, and one code of each kind.
func moneyShop(t *testing.T, stripe string, added bool) *wiring.Services {
	t.Helper()
	st := wiringtest.New(t, func(o *wiring.Options) {
		o.PricesExcludeTax = added
		o.Stripe.SecretKey, o.Stripe.WebhookSecret, o.Stripe.APIBase = "sk_test_returns", "whsec_returns", stripe
	})
	for id, price := range map[int64]int64{itemA: 1250, itemB: 1999} {
		if _, err := st.DB().ExecContext(t.Context(), `UPDATE items SET price_cents = $1, stock = 1000 WHERE id = $2`, price, id); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []pricing.Code{{Code: "PCT10", Kind: pricing.KindPercent, Value: 1000}, {Code: "OFF5", Kind: pricing.KindAmount, Value: 500},
		{Code: "SHIPFREE", Kind: pricing.KindFreeShipping}} {
		if _, err := st.Pricing.SaveCode(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// boughtAndDelivered places an order of lines with code (may be "")
// paid by method (a card order is paid through a provider's
// confirmation) and moves it to delivered.
func boughtAndDelivered(t *testing.T, st *wiring.Services, owner cart.Owner, method, code string, lines ...cart.Line) orders.Order {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	for _, l := range lines {
		wiringtest.SetLine(t, st, owner, l.ItemID, l.Qty)
	}
	if err := st.Cart.SetCode(ctx, owner, code); err != nil {
		t.Fatal(err)
	}
	req := wiringtest.Buy(owner, -1)
	req.Payment = method
	o, err := st.Orders.Checkout(ctx, req)
	if err != nil {
		t.Fatalf("checkout: %v", err)
	}
	if method == orders.PayCard {
		c := orders.PaymentConfirmation{Provider: "stripe", EventID: fmt.Sprintf("evt_%d", o.ID), OrderID: o.ID,
			AmountCents: o.TotalCents, Ref: fmt.Sprintf("pi_%d", o.ID), Method: orders.PayCard}
		if outcome, err := st.Orders.ConfirmPayment(ctx, c); err != nil || outcome != orders.PaymentApplied {
			t.Fatalf("pay: %q %v", outcome, err)
		}
	}
	if _, err := st.Orders.MoveOrder(ctx, o.ID, 0, orders.OrderDelivered, orders.AdminActor("a")); err != nil {
		t.Fatal(err)
	}
	if o, err = st.Orders.OrderAny(ctx, o.ID); err != nil {
		t.Fatal(err)
	}
	return o
}

// returnAndRefund asks to return qty of lines of order o, and has the
// admin approve, receive and refund it; the refund must go through.
func returnAndRefund(t *testing.T, st *wiring.Services, o orders.Order, qty map[returns.LineKey]int64) returns.Return {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	r, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: o.UserID, Qty: qty, Reason: "not for me"})
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	for _, a := range []string{returns.ActApprove, returns.ActReceive, returns.ActRefund} {
		if r, err = st.Returns.Act(ctx, r.ID, a, false, "admin:a"); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if r.Status != returns.Refunded {
		t.Fatalf("return %+v, want refunded", r)
	}
	return r
}

// deliveryPaid is what the shopper paid for the delivery of o, worked out
// by hand: its price, unless a free-delivery code took it off, plus, with
// tax added, its tax at GB's 20% rounded half up.
func deliveryPaid(o orders.Order, added bool) int64 {
	ship := o.ShippingCents
	if o.DiscountCode == "SHIPFREE" {
		ship = 0
	}
	if added {
		ship += (ship*20 + 50) / 100
	}
	return ship
}

// TestRefundRuleAcrossModes: returning everything bought gives back what
// was paid for the goods, which is the total less what the delivery cost,
// in one return or in two parts that add up to it to the cent; across the
// tax modes (included, added), the codes (none, percent, amount, free
// delivery), orders below and at or above the free-delivery threshold,
// and the payment methods (invoice, cash on delivery, card through
// Stripe). The order's refunded_cents is what the returns gave back.
func TestRefundRuleAcrossModes(t *testing.T) {
	mock := storetest.StripeMock(t)
	for _, added := range []bool{false, true} {
		t.Run(fmt.Sprintf("tax added %v", added), func(t *testing.T) {
			st := moneyShop(t, mock, added)
			owner, uid := wiringtest.Shopper(t, st, "rules")
			if err := st.Sessions.SetEmail(t.Context(), uid, "rules@example.com"); err != nil {
				t.Fatal(err)
			}
			for _, code := range []string{"", "PCT10", "OFF5", "SHIPFREE"} {
				for _, qa := range []int64{2, 4} { // 44.99 below the 50.00 threshold, 69.99 above it
					for _, method := range []string{orders.PayInvoice, orders.PayCOD, orders.PayCard} {
						for _, parts := range []bool{false, true} {
							name := fmt.Sprintf("%s/%d/%s/parts=%v", code, qa, method, parts)
							o := boughtAndDelivered(t, st, owner, method, code, cart.Line{ItemID: itemA, Qty: qa}, cart.Line{ItemID: itemB, Qty: 1})
							want := o.TotalCents - deliveryPaid(o, added)
							var got int64
							if parts {
								first := returnAndRefund(t, st, o, map[returns.LineKey]int64{{ItemID: itemA}: 1})
								share := want * 1250 / o.SubtotalCents
								if first.RefundCents < share-1 || first.RefundCents > share+1 {
									t.Errorf("%s: one unit of A gives back %d, its share is %d", name, first.RefundCents, share)
								}
								rest := returnAndRefund(t, st, o, map[returns.LineKey]int64{{ItemID: itemA}: qa - 1, {ItemID: itemB}: 1})
								got = first.RefundCents + rest.RefundCents
							} else {
								got = returnAndRefund(t, st, o, map[returns.LineKey]int64{{ItemID: itemA}: qa, {ItemID: itemB}: 1}).RefundCents
							}
							after, err := st.Orders.OrderAny(t.Context(), o.ID)
							if err != nil {
								t.Fatal(err)
							}
							if got != want || after.RefundedCents != want {
								t.Errorf("%s: returning everything gave back %d (ledger %d), want %d: total %d, delivery %d, discount %d, tax %d",
									name, got, after.RefundedCents, want, o.TotalCents, o.ShippingCents, o.DiscountCents, o.TaxCents)
							}
						}
					}
				}
			}
		})
	}
}

// TestFullReturnBelowThresholdRefundsGoodsOnly: the review's cases, one
// 20.00 item below the free-delivery threshold, returned in full: with
// delivery charged, 20.00 of 24.99 comes back; with a free-delivery code,
// the whole 20.00 paid (not 15.01); with GB tax added, 24.00 (the item
// and its tax) of 29.99, not the delivery's tax as well (25.00).
func TestFullReturnBelowThresholdRefundsGoodsOnly(t *testing.T) {
	for _, tc := range []struct {
		name        string
		added       bool
		code        string
		paid, wantB int64
	}{
		{"delivery charged", false, "", 2499, 2000},
		{"free-delivery code", false, "SHIPFREE", 2000, 2000},
		{"tax added, delivery charged", true, "", 2999, 2400},
		{"tax added, free-delivery code", true, "SHIPFREE", 2400, 2400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := moneyShop(t, "http://127.0.0.1:1", tc.added)
			if _, err := st.DB().ExecContext(t.Context(), `UPDATE items SET price_cents = 2000 WHERE id = $1`, itemA); err != nil {
				t.Fatal(err)
			}
			owner, _ := wiringtest.Shopper(t, st, "twenty")
			o := boughtAndDelivered(t, st, owner, orders.PayInvoice, tc.code, cart.Line{ItemID: itemA, Qty: 1})
			if o.TotalCents != tc.paid {
				t.Fatalf("the order cost %d, want %d", o.TotalCents, tc.paid)
			}
			if r := returnAndRefund(t, st, o, map[returns.LineKey]int64{{ItemID: itemA}: 1}); r.RefundCents != tc.wantB {
				t.Errorf("a full return gave back %d of %d paid, want %d", r.RefundCents, o.TotalCents, tc.wantB)
			}
		})
	}
}
