package orders_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"storefront/store/cart"
	"storefront/store/orders"
	"storefront/store/pricing"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// saveCode creates a discount code or fails the test.
func saveCode(t *testing.T, st *wiring.Services, c pricing.Code) pricing.Code {
	t.Helper()
	saved, err := st.Pricing.SaveCode(t.Context(), c)
	if err != nil {
		t.Fatalf("save code %+v: %v", c, err)
	}
	return saved
}

// codeUse is a code's used counter and its rows in discount_uses.
func codeUse(t *testing.T, st *wiring.Services, id int64) (used, rows int64) {
	t.Helper()
	db := st.DB()
	if err := db.QueryRowContext(t.Context(), `SELECT used FROM discount_codes WHERE id = $1`, id).Scan(&used); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM discount_uses WHERE code_id = $1`, id).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	return used, rows
}

// withCode puts item in owner's cart and applies code to it.
func withCode(t *testing.T, st *wiring.Services, owner cart.Owner, item int64, code string) {
	t.Helper()
	wiringtest.SetLine(t, st, owner, item, 1)
	if err := st.Cart.SetCode(t.Context(), owner, code); err != nil {
		t.Fatal(err)
	}
}

// With max_uses 5, 30 shoppers checking out at once with the code: exactly
// 5 orders carry it, the other 25 are refused as used up and change
// nothing (no order, no stock taken, the code kept in their cart).
func TestCodeCapHoldsUnderConcurrentCheckouts(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	code := saveCode(t, st, pricing.Code{Code: "FIVE", Kind: pricing.KindPercent, Value: 1000, MaxUses: 5})
	wiringtest.SetStock(t, st, 7, 1000)
	const n = 30
	owners := make([]cart.Owner, n)
	for i := range owners {
		owners[i], _ = wiringtest.Shopper(t, st, fmt.Sprintf("racer%02d", i))
		withCode(t, st, owners[i], 7, "five")
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, n)
	placed := make([]orders.Order, n)
	for i := range owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			placed[i], errs[i] = st.Orders.Checkout(ctx, wiringtest.Buy(owners[i], -1))
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
			if placed[i].DiscountCode != "FIVE" || placed[i].DiscountCents <= 0 {
				t.Errorf("order %+v does not carry the code", placed[i])
			}
			if c, _ := st.Cart.Cart(ctx, owners[i]); c.Code != "" || len(c.Lines) != 0 {
				t.Errorf("winner's cart keeps %+v", c)
			}
		case errors.As(err, &ce) && ce.Reason == pricing.ReasonUsedUp:
			if c, _ := st.Cart.Cart(ctx, owners[i]); c.Code != "five" || len(c.Lines) != 1 {
				t.Errorf("refused cart changed: %+v", c)
			}
		default:
			t.Errorf("checkout %d: %v", i, err)
		}
	}
	if won != 5 {
		t.Errorf("%d orders placed, want 5", won)
	}
	var carrying int
	if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE discount_code = 'FIVE'`).Scan(&carrying); err != nil {
		t.Fatal(err)
	}
	if carrying != 5 || countOrders(t, st) != 5 {
		t.Errorf("%d orders carry the code, %d orders in all; want 5 and 5", carrying, countOrders(t, st))
	}
	if used, rows := codeUse(t, st, code.ID); used != 5 || rows != 5 {
		t.Errorf("used %d, use rows %d; want 5", used, rows)
	}
	if s := wiringtest.StockOf(t, st, 7); s != 995 {
		t.Errorf("stock %d, want 995", s)
	}
}

// A cancelled order gives its use back in the cancel's transaction: the
// last use is free again for someone else.
func TestCancelGivesTheCodeBack(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	code := saveCode(t, st, pricing.Code{Code: "ONCE", Kind: pricing.KindAmount, Value: 500, MaxUses: 1})
	wiringtest.SetStock(t, st, 7, 10)
	a, aid := wiringtest.Shopper(t, st, "alice")
	b, _ := wiringtest.Shopper(t, st, "bob")
	withCode(t, st, a, 7, "ONCE")
	withCode(t, st, b, 7, "once")
	o, err := st.Orders.Checkout(ctx, wiringtest.Buy(a, -1))
	if err != nil || o.DiscountCents != 500 {
		t.Fatalf("alice: %+v %v", o, err)
	}
	var ce *pricing.CodeError
	if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(b, -1)); !errors.As(err, &ce) || ce.Reason != pricing.ReasonUsedUp {
		t.Fatalf("bob with the code used up: %v", err)
	}
	if _, err := st.Orders.MoveOrder(ctx, o.ID, aid, orders.OrderCancelled, orders.ActorShopper); err != nil {
		t.Fatal(err)
	}
	if used, rows := codeUse(t, st, code.ID); used != 0 || rows != 0 {
		t.Errorf("after the cancel used %d, rows %d", used, rows)
	}
	got, err := st.Orders.OrderAny(ctx, o.ID)
	if err != nil || got.DiscountCode != "ONCE" || got.DiscountCents != 500 {
		t.Errorf("the cancelled order keeps its breakdown: %+v %v", got, err)
	}
	if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(b, -1)); err != nil {
		t.Errorf("bob after the give-back: %v", err)
	}
	if used, rows := codeUse(t, st, code.ID); used != 1 || rows != 1 {
		t.Errorf("used %d, rows %d", used, rows)
	}
}

// max_per_customer counts an account's orders, and a guest's by email in
// any case, however many sessions; concurrent checkouts of one account
// (two devices) take at most the cap.
func TestCodePerCustomerCap(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	saveCode(t, st, pricing.Code{Code: "MINE", Kind: pricing.KindFreeShipping, MaxPerCustomer: 1})
	wiringtest.SetStock(t, st, 7, 100)
	var ce *pricing.CodeError

	a, uid := wiringtest.Shopper(t, st, "alice")
	withCode(t, st, a, 7, "MINE")
	if o, err := st.Orders.Checkout(ctx, wiringtest.Buy(a, -1)); err != nil || o.DiscountCents != o.ShippingCents || o.ShippingCents == 0 {
		t.Fatalf("first: %+v %v", o, err)
	}
	withCode(t, st, a, 7, "MINE")
	if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(a, -1)); !errors.As(err, &ce) || ce.Reason != pricing.ReasonPerCustomer {
		t.Errorf("second for alice: %v", err)
	}
	if _, err := st.Pricing.CheckCode(ctx, "mine", 100, pricing.Member(uid, "")); !errors.As(err, &ce) || ce.Reason != pricing.ReasonPerCustomer {
		t.Errorf("applying it again: %v", err)
	}

	for i, email := range []string{"Guest@Example.com", "guest@example.COM"} {
		g := cart.Owner{Token: fmt.Sprintf("guest-token-%d", i)}
		withCode(t, st, g, 7, "mine")
		req := wiringtest.Buy(g, -1)
		req.Email = email
		_, err := st.Orders.Checkout(ctx, req)
		if i == 0 && err != nil {
			t.Fatalf("guest's first: %v", err)
		}
		if i == 1 && (!errors.As(err, &ce) || ce.Reason != pricing.ReasonPerCustomer) {
			t.Errorf("guest's second, another session: %v", err)
		}
	}

	// Eight guest sessions of one email check out at once (each cart has
	// its own checkout lock, so they really race in the database) with a
	// cap of 2: exactly 2 orders carry the code.
	saveCode(t, st, pricing.Code{Code: "TWICE", Kind: pricing.KindPercent, Value: 500, MaxPerCustomer: 2})
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 8 {
		g := cart.Owner{Token: fmt.Sprintf("racing-guest-%d", i)}
		withCode(t, st, g, 7, "twice")
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			req := wiringtest.Buy(g, -1)
			req.Email = "racer@example.com"
			if _, err := st.Orders.Checkout(ctx, req); err != nil && (!errors.As(err, new(*pricing.CodeError))) {
				t.Errorf("racing guest: %v", err)
			}
		}()
	}
	close(start)
	wg.Wait()
	var n int
	if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE email = 'racer@example.com' AND discount_code = 'TWICE'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 || countOrders(t, st) != 4 {
		t.Errorf("%d orders with TWICE for the email (want 2), %d orders in all (want 4)", n, countOrders(t, st))
	}
}

// A code in the cart that cannot be used refuses the checkout with the
// reason and changes nothing.
func TestCheckoutRefusesABadCode(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	saveCode(t, st, pricing.Code{Code: "OLD", Kind: pricing.KindPercent, Value: 1000, Ends: "2001-01-01"})
	saveCode(t, st, pricing.Code{Code: "SOON", Kind: pricing.KindPercent, Value: 1000, Starts: "2999-01-01"})
	saveCode(t, st, pricing.Code{Code: "BIG", Kind: pricing.KindPercent, Value: 1000, MinSubtotal: 99_999_999})
	wiringtest.SetStock(t, st, 7, 10)
	a, _ := wiringtest.Shopper(t, st, "alice")
	for code, reason := range map[string]string{"OLD": pricing.ReasonExpired, "SOON": pricing.ReasonNotStarted,
		"BIG": pricing.ReasonMinimum, "NOPE": pricing.ReasonUnknown, "NO PE": pricing.ReasonMalformed} {
		withCode(t, st, a, 7, code)
		var ce *pricing.CodeError
		if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(a, -1)); !errors.As(err, &ce) || ce.Reason != reason {
			t.Errorf("%s: %v, want %s", code, err, reason)
		}
	}
	if countOrders(t, st) != 0 || wiringtest.StockOf(t, st, 7) != 10 {
		t.Errorf("a refused code changed something: %d orders, stock %d", countOrders(t, st), wiringtest.StockOf(t, st, 7))
	}
}

// Delivery is priced by the zone of the address's country and tax by its
// rate; the order stores the breakdown.
func TestCheckoutZonesAndTax(t *testing.T) {
	for _, added := range []bool{false, true} {
		t.Run(fmt.Sprintf("tax added %v", added), func(t *testing.T) {
			st := wiringtest.New(t, func(o *wiring.Options) { o.PricesExcludeTax = added })
			ctx := t.Context()
			wiringtest.SetStock(t, st, 7, 10)
			rows, _ := st.Catalog.CatalogRows(ctx, []int64{7})
			price := rows[7].PriceCents
			a, _ := wiringtest.Shopper(t, st, "alice")
			for _, tc := range []struct {
				country string
				bp      int64
				rates   pricing.Rates
			}{{"GB", 2000, pricing.DefaultRates}, {"US", 0, pricing.DefaultRates}, {"JP", 1000, pricing.Rates{Standard: 1499, Express: 2999, FreeOver: 15000}}, {"AR", 0, pricing.Rates{Standard: 1499, Express: 2999, FreeOver: 15000}}} {
				wiringtest.SetLine(t, st, a, 7, 1)
				req := wiringtest.Buy(a, -1)
				req.Address.Country = tc.country
				o, err := st.Orders.Checkout(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				want := pricing.Compute([]int64{price}, nil, tc.rates, orders.ShippingStandard, tc.bp, !added)
				got, err := st.Orders.OrderAny(ctx, o.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.SubtotalCents != price || got.ShippingCents != want.Shipping || got.TaxCents != want.Tax || got.TotalCents != want.Total ||
					got.TaxMode != want.TaxMode || (tc.bp > 0) != (got.TaxCents > 0) {
					t.Errorf("%s: order %+v, want %+v", tc.country, got, want)
				}
			}
		})
	}
}
