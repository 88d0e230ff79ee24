package orders_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"storefront/store/cart"
	"storefront/store/pricing"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// setPrice sets an item's price behind the shop's back, with stock.
func setPrice(t *testing.T, st *wiring.Services, id, cents, stock int64) {
	t.Helper()
	if _, err := st.DB().ExecContext(t.Context(), `UPDATE items SET price_cents = $1, stock = $2 WHERE id = $3`, cents, stock, id); err != nil {
		t.Fatal(err)
	}
}

// TestCodeCapRaceOnDifferentItems: 30 shoppers, each buying a different
// item (so no two checkouts queue on one stock row), race for a code
// with max_uses 5: the code's own guard lets exactly 5 orders carry it;
// the other 25 are refused as used up and change nothing.
func TestCodeCapRaceOnDifferentItems(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	code := saveCode(t, st, pricing.Code{Code: "FIVE", Kind: pricing.KindAmount, Value: 100, MaxUses: 5})
	const n = 30
	owners := make([]cart.Owner, n)
	for i := range owners {
		item := int64(100 + i)
		setPrice(t, st, item, 2000, 10)
		owners[i], _ = wiringtest.Shopper(t, st, fmt.Sprintf("apart%02d", i))
		withCode(t, st, owners[i], item, "five")
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = st.Orders.Checkout(ctx, wiringtest.Buy(owners[i], -1))
		}()
	}
	close(start)
	wg.Wait()
	won := 0
	for i, err := range errs {
		var ce *pricing.CodeError
		switch {
		case err == nil:
			won++
		case errors.As(err, &ce) && ce.Reason == pricing.ReasonUsedUp:
			if s := wiringtest.StockOf(t, st, int64(100+i)); s != 10 {
				t.Errorf("a refused checkout took stock of item %d: %d left", 100+i, s)
			}
		default:
			t.Errorf("checkout %d: %v", i, err)
		}
	}
	if used, rows := codeUse(t, st, code.ID); won != 5 || used != 5 || rows != 5 || countOrders(t, st) != 5 {
		t.Errorf("%d orders placed, used %d, %d use rows, %d orders; want 5 each", won, used, rows, countOrders(t, st))
	}
}

// TestCodePerCustomerCapByAddress: max_per_customer counts a member and a
// guest with one address as one customer, the address compared trimmed
// and in any case, both ways: a guest cannot use the member's address to
// use the code again, nor a member whose account has a guest's address.
func TestCodePerCustomerCapByAddress(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	saveCode(t, st, pricing.Code{Code: "ONCEEACH", Kind: pricing.KindPercent, Value: 1000, MaxPerCustomer: 1})
	wiringtest.SetStock(t, st, 7, 100)
	var ce *pricing.CodeError

	mia, miaID := wiringtest.Shopper(t, st, "mia")
	if err := st.Sessions.SetEmail(ctx, miaID, "Mia@Example.com"); err != nil {
		t.Fatal(err)
	}
	withCode(t, st, mia, 7, "ONCEEACH")
	if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(mia, -1)); err != nil {
		t.Fatalf("mia's first: %v", err)
	}
	g := cart.Owner{Token: "guest-as-mia"}
	withCode(t, st, g, 7, "onceeach")
	req := wiringtest.Buy(g, -1)
	req.Email = "  mia@example.COM "
	if _, err := st.Orders.Checkout(ctx, req); !errors.As(err, &ce) || ce.Reason != pricing.ReasonPerCustomer {
		t.Errorf("a guest with mia's address: %v, want the per-customer cap", err)
	}

	g2 := cart.Owner{Token: "guest-first"}
	withCode(t, st, g2, 7, "onceeach")
	req = wiringtest.Buy(g2, -1)
	req.Email = "Noor@Example.com"
	if _, err := st.Orders.Checkout(ctx, req); err != nil {
		t.Fatalf("noor as a guest: %v", err)
	}
	noor, noorID := wiringtest.Shopper(t, st, "noor")
	if err := st.Sessions.SetEmail(ctx, noorID, "noor@example.com"); err != nil {
		t.Fatal(err)
	}
	withCode(t, st, noor, 7, "onceeach")
	if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(noor, -1)); !errors.As(err, &ce) || ce.Reason != pricing.ReasonPerCustomer {
		t.Errorf("a member with the guest's address: %v, want the per-customer cap", err)
	}
	if _, err := st.Pricing.CheckCode(ctx, "onceeach", 1000, pricing.Member(noorID, "NOOR@example.com")); !errors.As(err, &ce) || ce.Reason != pricing.ReasonPerCustomer {
		t.Errorf("applying it on noor's cart: %v", err)
	}
	if countOrders(t, st) != 2 {
		t.Errorf("%d orders, want 2", countOrders(t, st))
	}
}

// TestFreeShippingCodeTakesNoUseOnFreeDelivery: a free-delivery code on an
// order that ships free anyway is not applied: the order records no code
// and no discount, the code's use is not taken (max_uses 1 stays free for
// an order it helps) and the code stays in the cart.
func TestFreeShippingCodeTakesNoUseOnFreeDelivery(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	code := saveCode(t, st, pricing.Code{Code: "SHIPFREE", Kind: pricing.KindFreeShipping, MaxUses: 1})
	setPrice(t, st, 7, 6000, 10)
	setPrice(t, st, 8, 2000, 10)
	a, _ := wiringtest.Shopper(t, st, "ada")
	withCode(t, st, a, 7, "shipfree")
	o, err := st.Orders.Checkout(ctx, wiringtest.Buy(a, -1))
	if err != nil {
		t.Fatal(err)
	}
	if o.ShippingCents != 0 || o.DiscountCents != 0 || o.DiscountCode != "" || o.TotalCents != 6000 {
		t.Errorf("an order over the threshold with the code: %+v", o)
	}
	if used, rows := codeUse(t, st, code.ID); used != 0 || rows != 0 {
		t.Fatalf("the code took a use for nothing: used %d, %d rows", used, rows)
	}
	if c, _ := st.Cart.Cart(ctx, a); c.Code != "shipfree" {
		t.Errorf("the unused code left the cart: %+v", c)
	}
	wiringtest.SetLine(t, st, a, 8, 1)
	o, err = st.Orders.Checkout(ctx, wiringtest.Buy(a, -1))
	if err != nil || o.DiscountCode != "SHIPFREE" || o.DiscountCents != o.ShippingCents || o.ShippingCents == 0 {
		t.Errorf("the code on an order below the threshold: %+v, %v", o, err)
	}
	if used, rows := codeUse(t, st, code.ID); used != 1 || rows != 1 {
		t.Errorf("used %d, %d rows; want 1", used, rows)
	}
}

// TestFreeDeliveryAtTheThresholdAtCheckout: goods worth exactly the free
// delivery threshold ship free; one cent less pays the standard rate.
func TestFreeDeliveryAtTheThresholdAtCheckout(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	a, _ := wiringtest.Shopper(t, st, "ada")
	for _, tc := range []struct{ price, shipping int64 }{{5000, 0}, {4999, 499}} {
		setPrice(t, st, 7, tc.price, 10)
		wiringtest.SetLine(t, st, a, 7, 1)
		o, err := st.Orders.Checkout(ctx, wiringtest.Buy(a, -1))
		if err != nil || o.ShippingCents != tc.shipping || o.TotalCents != tc.price+tc.shipping {
			t.Errorf("goods of %d: %+v, %v; want delivery %d", tc.price, o, err, tc.shipping)
		}
	}
}

// TestCodeValidFromFirstToLastDayAtCheckout: an order takes the code on
// its first day and on its last, and is refused the day after (the use is
// taken by the database's own check of the days too).
func TestCodeValidFromFirstToLastDayAtCheckout(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	saveCode(t, st, pricing.Code{Code: "WEEK", Kind: pricing.KindPercent, Value: 1000, Starts: "2026-05-04", Ends: "2026-05-10"})
	wiringtest.SetStock(t, st, 7, 100)
	a, _ := wiringtest.Shopper(t, st, "ada")
	for _, tc := range []struct {
		day    string
		reason string
	}{{"2026-05-03", pricing.ReasonNotStarted}, {"2026-05-04", ""}, {"2026-05-10", ""}, {"2026-05-11", pricing.ReasonExpired}} {
		at, _ := time.Parse(time.DateTime, tc.day+" 23:59:59")
		st.SetClock(func() time.Time { return at })
		withCode(t, st, a, 7, "week")
		o, err := st.Orders.Checkout(ctx, wiringtest.Buy(a, -1))
		var ce *pricing.CodeError
		switch {
		case tc.reason == "" && (err != nil || o.DiscountCode != "WEEK"):
			t.Errorf("%s: %+v, %v; want the code taken", tc.day, o, err)
		case tc.reason != "" && (!errors.As(err, &ce) || ce.Reason != tc.reason):
			t.Errorf("%s: %v, want %s", tc.day, err, tc.reason)
		}
	}
}
