package orders_test

import (
	"errors"
	"sync"
	"testing"

	"storefront/store/cart"
	"storefront/store/orders"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// placeTestOrder checks out lines for a shopper's cart.
func placeTestOrder(t *testing.T, st *wiring.Services, owner cart.Owner, lines []cart.Line) (orders.Order, error) {
	t.Helper()
	for _, l := range lines {
		wiringtest.SetLine(t, st, owner, l.ItemID, l.Qty)
	}
	return st.Orders.Checkout(t.Context(), wiringtest.Buy(owner, -1))
}

// TestMoveOrderConcurrentCancels: many cancels of one order at once (on
// PostgreSQL they truly overlap): one applies, the stock comes back once.
func TestMoveOrderConcurrentCancels(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	owner, _ := wiringtest.Shopper(t, st, "twice")
	wiringtest.SetStock(t, st, 9, 10)
	wiringtest.SetStock(t, st, 10, 10)
	o, err := placeTestOrder(t, st, owner, []cart.Line{{ItemID: 9, Qty: 3}, {ItemID: 10, Qty: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := st.Orders.MoveOrder(ctx, o.ID, 0, orders.OrderCancelled, orders.AdminActor("a"))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		var me *orders.MoveError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &me) && me.From == orders.OrderCancelled:
		default:
			t.Fatalf("cancel: %v", err)
		}
	}
	if ok != 1 || wiringtest.StockOf(t, st, 9) != 10 || wiringtest.StockOf(t, st, 10) != 10 {
		t.Fatalf("%d cancels applied; stock %d and %d", ok, wiringtest.StockOf(t, st, 9), wiringtest.StockOf(t, st, 10))
	}
	ev, err := st.Orders.OrderEvents(ctx, o.ID)
	if err != nil || len(ev) != 1 || ev[0].Status != orders.OrderCancelled {
		t.Fatalf("events %v %v", ev, err)
	}
}

// TestCanMoveOrder is the lifecycle's table: forward only, cancel until
// shipped.
func TestCanMoveOrder(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"pending", "processed", true}, {"processed", "paid", true}, {"paid", "shipped", true},
		{"shipped", "delivered", true}, {"processed", "shipped", true}, {"pending", "paid", true},
		{"paid", "processed", false}, {"shipped", "paid", false}, {"delivered", "shipped", false},
		{"paid", "paid", false}, {"pending", "cancelled", true}, {"processed", "cancelled", true},
		{"paid", "cancelled", true}, {"shipped", "cancelled", false}, {"delivered", "cancelled", false},
		{"cancelled", "paid", false}, {"cancelled", "cancelled", false}, {"paid", "lost", false},
	} {
		if got := orders.CanMoveOrder(c.from, c.to); got != c.ok {
			t.Errorf("%s -> %s: %v, want %v", c.from, c.to, got, c.ok)
		}
	}
}

// TestCancelRacesShipping: the shopper cancels while an admin ships, many
// times: the order ends either shipped with its stock sold, or cancelled
// with the stock back; never both, and the timeline has the one move.
func TestCancelRacesShipping(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	owner, uid := wiringtest.Shopper(t, st, "racer")
	wiringtest.SetStock(t, st, 14, 100)
	for round := 0; round < 8; round++ {
		o, err := placeTestOrder(t, st, owner, []cart.Line{{ItemID: 14, Qty: 2}})
		if err != nil {
			t.Fatal(err)
		}
		before := wiringtest.StockOf(t, st, 14)
		var wg sync.WaitGroup
		var cancelErr, shipErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, cancelErr = st.Orders.MoveOrder(ctx, o.ID, uid, orders.OrderCancelled, orders.ActorShopper)
		}()
		go func() {
			defer wg.Done()
			_, shipErr = st.Orders.MoveOrder(ctx, o.ID, 0, orders.OrderShipped, orders.AdminActor("a"))
		}()
		wg.Wait()
		got, err := st.Orders.OrderAny(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch got.Status {
		case orders.OrderCancelled:
			var me *orders.MoveError
			if cancelErr != nil || !errors.As(shipErr, &me) || wiringtest.StockOf(t, st, 14) != before+2 {
				t.Fatalf("round %d: cancelled, cancel %v, ship %v, stock %d", round, cancelErr, shipErr, wiringtest.StockOf(t, st, 14))
			}
		case orders.OrderShipped:
			var me *orders.MoveError
			if shipErr != nil || !errors.As(cancelErr, &me) || wiringtest.StockOf(t, st, 14) != before {
				t.Fatalf("round %d: shipped, cancel %v, ship %v, stock %d", round, cancelErr, shipErr, wiringtest.StockOf(t, st, 14))
			}
		default:
			t.Fatalf("round %d: status %s", round, got.Status)
		}
		if len(got.Events) != 1 || got.Events[0].Status != got.Status {
			t.Fatalf("round %d: events %v", round, got.Events)
		}
	}
}

// TestAdminMoveRacesFulfilment: an admin marks new orders delivered while
// fulfilment processes them. Fulfilment's step is the machine's, not a
// decision: the admin's move must apply either way, never fail with
// "cannot move from processed".
func TestAdminMoveRacesFulfilment(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	owner, _ := wiringtest.Shopper(t, st, "racer")
	wiringtest.SetStock(t, st, 9, 100)
	const n = 30
	ids := make([]int64, n)
	for i := range ids {
		o, err := placeTestOrder(t, st, owner, []cart.Line{{ItemID: 9, Qty: 1}})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = o.ID
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for _, id := range ids {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := st.Orders.FulfilOrder(ctx, id)
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := st.Orders.MoveOrder(ctx, id, 0, orders.OrderDelivered, orders.AdminActor("a"))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("move: %v", err)
		}
	}
	for _, id := range ids {
		o, err := st.Orders.OrderAny(ctx, id)
		if err != nil || o.Status != orders.OrderDelivered {
			t.Fatalf("order %d is %q, want delivered: %v", id, o.Status, err)
		}
	}
}
