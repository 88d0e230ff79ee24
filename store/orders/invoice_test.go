package orders_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"

	"storefront/store/cart"
	"storefront/store/orders"
	"storefront/wiring/wiringtest"
)

// Twenty shoppers check out at once; every third checkout fails after
// it took its invoice number (a listener writing in the checkout's
// transaction refuses it) and rolls back. The orders that were placed
// hold the numbers 1..n, each once: the failed ones gave theirs back.
func TestInvoiceNumbersHaveNoGaps(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	const shoppers = 20
	owners := make([]cart.Owner, shoppers)
	failing := map[int64]bool{}
	var before int64
	if err := st.DB().QueryRowContext(ctx, `SELECT COALESCE(MAX(invoice_number), 0) FROM orders`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	for i := range owners {
		var uid int64
		owners[i], uid = wiringtest.Shopper(t, st, fmt.Sprintf("buyer%02d", i))
		wiringtest.SetStock(t, st, int64(10+i), 5)
		wiringtest.SetLine(t, st, owners[i], int64(10+i), 1)
		if i%3 == 0 {
			failing[uid] = true
		}
	}
	refused := errors.New("refused by the test")
	st.Orders.OnPlacedTx(func(_ context.Context, _ *sql.Tx, o orders.Order) error {
		if failing[o.UserID] {
			return refused
		}
		return nil
	})
	var wg sync.WaitGroup
	errs := make([]error, shoppers)
	for i := range owners {
		wg.Go(func() {
			req := wiringtest.Buy(owners[i], -1)
			_, errs[i] = st.Orders.Checkout(ctx, req)
		})
	}
	wg.Wait()
	placed := 0
	for i, err := range errs {
		switch {
		case i%3 == 0 && !errors.Is(err, refused):
			t.Errorf("checkout %d: %v, want the listener's refusal", i, err)
		case i%3 != 0 && err != nil:
			t.Errorf("checkout %d: %v", i, err)
		case err == nil:
			placed++
		}
	}
	rows, err := st.DB().QueryContext(ctx, `SELECT invoice_number FROM orders WHERE invoice_number > $1`, before)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var nums []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		nums = append(nums, n)
	}
	sort.Slice(nums, func(i, j int) bool { return nums[i] < nums[j] })
	if len(nums) != placed {
		t.Fatalf("%d invoice numbers for %d orders", len(nums), placed)
	}
	for i, n := range nums {
		if n != before+int64(i)+1 {
			t.Fatalf("invoice numbers %v: a gap or a repeat after %d", nums, before)
		}
	}
	// The next order takes the next number.
	tok, _ := wiringtest.Shopper(t, st, "lastbuyer")
	wiringtest.SetStock(t, st, 40, 5)
	wiringtest.SetLine(t, st, tok, 40, 1)
	o, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, -1))
	if err != nil {
		t.Fatal(err)
	}
	if o.InvoiceNumber != before+int64(placed)+1 {
		t.Fatalf("next invoice number %d, want %d", o.InvoiceNumber, before+int64(placed)+1)
	}
}
