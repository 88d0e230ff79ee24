package orders_test

import (
	"errors"
	"fmt"
	"testing"

	"storefront/store/cart"
	"storefront/store/keys"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

func countOrders(t *testing.T, st *wiring.Services) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM orders`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func queueLen(t *testing.T, st *wiring.Services) int64 {
	t.Helper()
	n, err := st.Redis().XLen(t.Context(), keys.OrderQueue).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCheckoutPlacesOrder(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	tok, uid := wiringtest.Shopper(t, st, "alice")
	wiringtest.SetStock(t, st, 7, 5)
	wiringtest.SetStock(t, st, 8, 3)
	wiringtest.SetLine(t, st, tok, 7, 2)
	wiringtest.SetLine(t, st, tok, 8, 3)
	rows, _ := st.Catalog.CatalogRows(ctx, []int64{7, 8})
	sub := 2*rows[7].PriceCents + 3*rows[8].PriceCents
	want := sub + st.Orders.Shipping().Cost(orders.ShippingStandard, sub)

	o, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, want))
	if err != nil {
		t.Fatalf("checkout: %v", err)
	}
	if o.ID == 0 || o.Status != orders.OrderPending || o.TotalCents != want || o.ItemCount != 5 {
		t.Errorf("order %+v", o)
	}
	if s := wiringtest.StockOf(t, st, 7); s != 3 {
		t.Errorf("stock of 7 is %d, want 3", s)
	}
	if s := wiringtest.StockOf(t, st, 8); s != 0 {
		t.Errorf("stock of 8 is %d, want 0", s)
	}
	if c := storetest.Must(st.Cart.Cart(ctx, tok))(t); len(c.Lines) != 0 {
		t.Errorf("cart not emptied: %+v", c)
	}
	if n := queueLen(t, st); n != 1 {
		t.Errorf("queue holds %d entries, want 1", n)
	}

	// Prices are snapshots: a later price change does not alter the order.
	if _, err := st.DB().ExecContext(ctx, `UPDATE items SET price_cents = price_cents + 1000 WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	got, err := st.Orders.Order(ctx, uid, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalCents != want || len(got.Lines) != 2 || got.Lines[0].PriceCents != rows[7].PriceCents ||
		got.Lines[0].Name != rows[7].Name || got.Lines[1].Qty != 3 || got.ItemCount != 5 {
		t.Errorf("order read back %+v", got)
	}
}

func TestCheckoutRefusalChangesNothing(t *testing.T) {
	tests := []struct {
		name   string
		stock  int64 // of item 8
		qty    int64
		item   int64
		reason string
		avail  int64
	}{
		{"more than stock", 2, 3, 8, orders.ProblemShort, 2},
		{"sold out", 0, 1, 8, orders.ProblemSoldOut, 0},
		{"gone from the catalog", 5, 1, 999999, orders.ProblemGone, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := wiringtest.New(t)
			ctx := t.Context()
			tok, _ := wiringtest.Shopper(t, st, "alice")
			wiringtest.SetStock(t, st, 7, 5)
			wiringtest.SetStock(t, st, 8, 5)
			wiringtest.SetLine(t, st, tok, 7, 1)
			wiringtest.SetLine(t, st, tok, tc.item, tc.qty) // the shop validated these when they were added
			wiringtest.SetStock(t, st, 8, tc.stock)         // then stock moved
			before := storetest.Must(st.Cart.Cart(ctx, tok))(t)

			_, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, -1))
			var ce *orders.CheckoutError
			if !errors.As(err, &ce) || len(ce.Problems) != 1 {
				t.Fatalf("err %v, want one line problem", err)
			}
			p := ce.Problems[0]
			if p.ItemID != tc.item || p.Reason != tc.reason || p.Available != tc.avail || p.Wanted != tc.qty {
				t.Errorf("problem %+v", p)
			}
			if s := wiringtest.StockOf(t, st, 7); s != 5 {
				t.Errorf("stock of the good line moved to %d", s)
			}
			if countOrders(t, st) != 0 || queueLen(t, st) != 0 {
				t.Error("an order was written or queued")
			}
			if after := storetest.Must(st.Cart.Cart(ctx, tok))(t); len(after.Lines) != len(before.Lines) {
				t.Errorf("cart changed: %+v -> %+v", before, after)
			}
		})
	}
}

func TestCheckoutPriceChanged(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	tok, _ := wiringtest.Shopper(t, st, "alice")
	wiringtest.SetStock(t, st, 7, 5)
	wiringtest.SetLine(t, st, tok, 7, 2)
	rows, _ := st.Catalog.CatalogRows(ctx, []int64{7})
	rates := st.Orders.Shipping()
	seen := 2*rows[7].PriceCents + rates.Cost(orders.ShippingStandard, 2*rows[7].PriceCents)
	if _, err := st.DB().ExecContext(ctx, `UPDATE items SET price_cents = price_cents + 100 WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	_, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, seen))
	now := 2*rows[7].PriceCents + 200 + rates.Cost(orders.ShippingStandard, 2*rows[7].PriceCents+200)
	var ce *orders.CheckoutError
	if !errors.As(err, &ce) || !ce.PriceChanged || ce.Total != now {
		t.Fatalf("err %+v, want a price change to %d", err, now)
	}
	if wiringtest.StockOf(t, st, 7) != 5 || countOrders(t, st) != 0 {
		t.Error("a refused checkout changed something")
	}
	if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, ce.Total)); err != nil {
		t.Fatalf("checkout at the new total: %v", err)
	}
}

func TestCheckoutEmptyAndBusy(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	tok, _ := wiringtest.Shopper(t, st, "alice")
	if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, -1)); !errors.Is(err, orders.ErrEmptyCart) {
		t.Errorf("empty cart: %v", err)
	}
	wiringtest.SetLine(t, st, tok, 7, 1)
	// Another checkout of this session holds the lock (a double click).
	if err := st.Redis().Set(ctx, keys.CheckoutLock(tok.UserID, tok.Token), "other", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, -1)); !errors.Is(err, orders.ErrCheckoutBusy) {
		t.Errorf("second checkout: %v, want ErrCheckoutBusy", err)
	}
	if countOrders(t, st) != 0 {
		t.Error("order placed while another checkout was running")
	}
	st.Redis().Del(ctx, keys.CheckoutLock(tok.UserID, tok.Token))
	if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, -1)); err != nil {
		t.Errorf("checkout after the lock is gone: %v", err)
	}
	if n := storetest.Must(st.Redis().Exists(ctx, keys.CheckoutLock(tok.UserID, tok.Token)).Result())(t); n != 0 {
		t.Error("checkout left its lock behind")
	}
}

func TestOrdersAreTheShoppers(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	a, aid := wiringtest.Shopper(t, st, "alice")
	_, bid := wiringtest.Shopper(t, st, "bob")
	var ids []int64
	for _, item := range []int64{7, 8, 9} {
		wiringtest.SetStock(t, st, item, 5)
		wiringtest.SetLine(t, st, a, item, 1)
		o, err := st.Orders.Checkout(ctx, wiringtest.Buy(a, -1))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.ID)
	}
	list, total, err := st.Orders.Orders(ctx, aid, 2, 0)
	if err != nil || total != 3 || len(list) != 2 || list[0].ID != ids[2] || list[1].ID != ids[1] || list[0].ItemCount != 1 {
		t.Fatalf("orders %+v total %d err %v; want newest first", list, total, err)
	}
	if list, _, _ := st.Orders.Orders(ctx, aid, 2, 2); len(list) != 1 || list[0].ID != ids[0] {
		t.Errorf("second page %+v", list)
	}
	if _, err := st.Orders.Order(ctx, bid, ids[0]); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("bob reads alice's order: %v", err)
	}
	if list, total, _ := st.Orders.Orders(ctx, bid, 10, 0); len(list) != 0 || total != 0 {
		t.Errorf("bob's orders %+v", list)
	}
}

// A guest's order belongs to GuestUserID and is read only by GuestOrder;
// a shopper's order never is, and the shopper's last address is offered.
func TestGuestOrdersAndLastAddress(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	wiringtest.SetStock(t, st, 7, 5)
	g := cart.Owner{Token: "guest-token"}
	if err := st.Sessions.CreateSession(ctx, g.Token, 0); err != nil {
		t.Fatal(err)
	}
	wiringtest.SetLine(t, st, g, 7, 1)
	req := wiringtest.Buy(g, -1)
	req.Email, req.Shipping, req.Payment = "guest@example.com", orders.ShippingExpress, orders.PayCOD
	o, err := st.Orders.Checkout(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Orders.GuestOrder(ctx, o.ID)
	if err != nil || got.UserID != orders.GuestUserID || got.Email != "guest@example.com" || got.Address != req.Address ||
		got.Shipping != orders.ShippingExpress || got.Payment != orders.PayCOD || got.ShippingCents != orders.DefaultShipping.Express ||
		got.TotalCents != got.SubtotalCents+got.ShippingCents || len(got.Lines) != 1 {
		t.Fatalf("guest order %+v, %v", got, err)
	}
	if _, err := st.Orders.Order(ctx, orders.GuestUserID, o.ID); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("Order served a guest order: %v", err)
	}

	acct, uid := wiringtest.Shopper(t, st, "alice")
	if _, ok, err := st.Orders.LastAddress(ctx, uid); ok || err != nil {
		t.Errorf("a new shopper has a last address (%v)", err)
	}
	wiringtest.SetLine(t, st, acct, 7, 1)
	mine, err := st.Orders.Checkout(ctx, wiringtest.Buy(acct, -1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Orders.GuestOrder(ctx, mine.ID); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("GuestOrder served a shopper's order: %v", err)
	}
	if a, ok, err := st.Orders.LastAddress(ctx, uid); !ok || err != nil || a != wiringtest.Buy(acct, -1).Address {
		t.Errorf("last address %+v %v %v", a, ok, err)
	}
}

// Each order counts once per item: a buyer, and a shared order with each
// other item in it, under the item's hash tag.
func TestOrdersCountBoughtTogether(t *testing.T) {
	st := wiringtest.New(t)
	ctx, rdb := t.Context(), st.Redis()
	acct, _ := wiringtest.Shopper(t, st, "alice")
	for _, order := range [][]int64{{7, 8, 9}, {7, 8}, {9}} {
		for _, id := range order {
			wiringtest.SetStock(t, st, id, 5)
			wiringtest.SetLine(t, st, acct, id, 1)
		}
		if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(acct, -1)); err != nil {
			t.Fatal(err)
		}
	}
	for item, want := range map[int64]map[string]float64{7: {"8": 2, "9": 1}, 8: {"7": 2, "9": 1}, 9: {"7": 1, "8": 1}} {
		got := map[string]float64{}
		for _, z := range rdb.ZRangeWithScores(ctx, keys.AlsoBought(item), 0, -1).Val() {
			got[z.Member.(string)] = z.Score
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("item %d bought with %v, want %v", item, got, want)
		}
	}
	for item, want := range map[int64]string{7: "2", 8: "2", 9: "2"} {
		if got := rdb.HGet(ctx, keys.ItemCounts(item), "buyers").Val(); got != want {
			t.Errorf("item %d buyers %q, want %s", item, got, want)
		}
	}
}
