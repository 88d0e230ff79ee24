package store_test

import (
	"errors"
	"sync"
	"testing"

	"storefront/store"
	"storefront/wiring/wiringtest"
)

// placeTestOrder runs the checkout transaction alone for an account (the
// one place these tests call it).
func placeTestOrder(t *testing.T, st *store.Store, uid int64, lines []store.CartLine, expect int64) (store.Order, error) {
	t.Helper()
	return store.PlaceOrder(t.Context(), st, wiringtest.Buy(store.CartOwner{UserID: uid}, expect), lines)
}

// TestCheckoutTransactionRefusesArchivedAndBanned: the checkout
// transaction itself (without the pre-check, which a racing archive or
// ban can pass) refuses an archived item and a banned account, and
// changes nothing.
func TestCheckoutTransactionRefusesArchivedAndBanned(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	_, uid := wiringtest.Shopper(t, st, "arch")
	wiringtest.SetStock(t, st, 7, 5)
	if _, err := st.SetItemArchived(ctx, 7, true); err != nil {
		t.Fatal(err)
	}
	_, err := placeTestOrder(t, st, uid, []store.CartLine{{ItemID: 7, Qty: 1}}, -1)
	var ce *store.CheckoutError
	if !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Reason != store.ProblemGone {
		t.Fatalf("archived: %v", err)
	}
	if _, err := st.SetItemArchived(ctx, 7, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.BanUser(ctx, "arch"); err != nil {
		t.Fatal(err)
	}
	if _, err := placeTestOrder(t, st, uid, []store.CartLine{{ItemID: 7, Qty: 1}}, -1); !errors.Is(err, store.ErrBanned) {
		t.Fatalf("banned: %v", err)
	}
	if countOrders(t, st) != 0 || wiringtest.StockOf(t, st, 7) != 5 {
		t.Fatalf("a refused checkout changed something: %d orders, stock %d", countOrders(t, st), wiringtest.StockOf(t, st, 7))
	}
}

// TestMoveOrderConcurrentCancels: many cancels of one order at once (on
// PostgreSQL they truly overlap): one applies, the stock comes back once.
func TestMoveOrderConcurrentCancels(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	_, uid := wiringtest.Shopper(t, st, "twice")
	wiringtest.SetStock(t, st, 9, 10)
	wiringtest.SetStock(t, st, 10, 10)
	o, err := placeTestOrder(t, st, uid, []store.CartLine{{ItemID: 9, Qty: 3}, {ItemID: 10, Qty: 1}}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := st.MoveOrder(ctx, o.ID, 0, store.OrderCancelled, store.AdminActor("a"))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		var me *store.MoveError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &me) && me.From == store.OrderCancelled:
		default:
			t.Fatalf("cancel: %v", err)
		}
	}
	if ok != 1 || wiringtest.StockOf(t, st, 9) != 10 || wiringtest.StockOf(t, st, 10) != 10 {
		t.Fatalf("%d cancels applied; stock %d and %d", ok, wiringtest.StockOf(t, st, 9), wiringtest.StockOf(t, st, 10))
	}
	ev, err := st.OrderEvents(ctx, o.ID)
	if err != nil || len(ev) != 1 || ev[0].Status != store.OrderCancelled {
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
		if got := store.CanMoveOrder(c.from, c.to); got != c.ok {
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
	_, uid := wiringtest.Shopper(t, st, "racer")
	wiringtest.SetStock(t, st, 14, 100)
	for round := 0; round < 8; round++ {
		o, err := placeTestOrder(t, st, uid, []store.CartLine{{ItemID: 14, Qty: 2}}, -1)
		if err != nil {
			t.Fatal(err)
		}
		before := wiringtest.StockOf(t, st, 14)
		var wg sync.WaitGroup
		var cancelErr, shipErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, cancelErr = st.MoveOrder(ctx, o.ID, uid, store.OrderCancelled, store.ActorShopper)
		}()
		go func() {
			defer wg.Done()
			_, shipErr = st.MoveOrder(ctx, o.ID, 0, store.OrderShipped, store.AdminActor("a"))
		}()
		wg.Wait()
		got, err := st.OrderAny(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch got.Status {
		case store.OrderCancelled:
			var me *store.MoveError
			if cancelErr != nil || !errors.As(shipErr, &me) || wiringtest.StockOf(t, st, 14) != before+2 {
				t.Fatalf("round %d: cancelled, cancel %v, ship %v, stock %d", round, cancelErr, shipErr, wiringtest.StockOf(t, st, 14))
			}
		case store.OrderShipped:
			var me *store.MoveError
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

// TestCreateItemConcurrently: admins creating items at once get distinct
// ids and slugs, every one stored.
func TestCreateItemConcurrently(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	var wg sync.WaitGroup
	ids := make(chan int64, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			it, err := st.CreateItem(ctx, store.NewItem{Name: "Same Name", PriceCents: 100, Stock: 1, Category: "Home"})
			if err != nil {
				t.Error(err)
				return
			}
			ids <- it.ID
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("id %d twice", id)
		}
		seen[id] = true
	}
	if len(seen) != 8 {
		t.Fatalf("%d items created, want 8", len(seen))
	}
}
