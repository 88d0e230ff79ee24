package stripepay_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/stripepay"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// paidCardOrder places a card order and pays it through a signed event.
func paidCardOrder(t *testing.T, st *wiring.Services, name, pi string) orders.Order {
	t.Helper()
	o := cardOrder(t, st, name, 7, 2)
	payload := completed("evt_"+name, o.ID, o.TotalCents, "paid", pi)
	if outcome, err := st.Card.HandleWebhook(t.Context(), payload, sign(payload, whsec)); err != nil || outcome != orders.PaymentApplied {
		t.Fatalf("pay: %q, %v", outcome, err)
	}
	o, err := st.Orders.OrderAny(t.Context(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// refundRows counts an order's refunds and sums them.
func refundRows(t *testing.T, st *wiring.Services, id int64) (n, cents int64) {
	t.Helper()
	if err := st.DB().QueryRowContext(context.WithoutCancel(t.Context()), `SELECT COUNT(*), COALESCE(SUM(cents), 0) FROM order_refunds WHERE order_id = $1`, id).
		Scan(&n, &cents); err != nil {
		t.Fatal(err)
	}
	return n, cents
}

// TestCardRefundNeverExceedsPayment: refunds through the order's payment
// method go to Stripe for the order's PaymentIntent; many at once never
// give back more than was paid; too much is ErrRefundTooLarge with
// nothing changed; an unpaid card order has nothing to refund.
func TestCardRefundNeverExceedsPayment(t *testing.T) {
	st, requests := cardShop(t)
	ctx := t.Context()
	wiringtest.SetStock(t, st, 7, 100)
	o := paidCardOrder(t, st, "ada", "pi_refund")
	card := st.Card

	if _, err := card.Refund(ctx, o, o.TotalCents+1, "admin:root"); !errors.Is(err, orders.ErrRefundTooLarge) {
		t.Fatalf("refund above the payment: %v", err)
	}
	for _, bad := range []int64{0, -5} {
		if _, err := card.Refund(ctx, o, bad, "admin:root"); !errors.Is(err, platform.ErrInvalid) {
			t.Errorf("refund of %d: %v", bad, err)
		}
	}
	if n, sum := refundRows(t, st, o.ID); n != 0 || sum != 0 || len(refundCalls(requests())) != 0 {
		t.Fatalf("refused refunds left %d rows (%d cents) and %d Stripe calls", n, sum, len(refundCalls(requests())))
	}

	// Many refunds of a slice at once: exactly as many as fit apply.
	const slice = 100
	var ok64 atomic.Int64
	var wg sync.WaitGroup
	tries := int(o.TotalCents/slice) + 8
	for range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := card.Refund(ctx, o, slice, "admin:root")
			switch {
			case err == nil:
				ok64.Add(1)
			case !errors.Is(err, orders.ErrRefundTooLarge):
				t.Errorf("refund: %v", err)
			}
		}()
	}
	wg.Wait()
	want := o.TotalCents / slice
	if ok64.Load() != want {
		t.Errorf("%d refunds of %d applied for a payment of %d, want %d", ok64.Load(), slice, o.TotalCents, want)
	}
	n, sum := refundRows(t, st, o.ID)
	after, err := st.Orders.OrderAny(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n != want || sum != want*slice || after.RefundedCents != sum || sum > after.PaidCents {
		t.Errorf("refunds: %d rows of %d cents, order says %d refunded of %d paid", n, sum, after.RefundedCents, after.PaidCents)
	}
	calls := refundCalls(requests())
	if int64(len(calls)) != want {
		t.Errorf("%d refunds asked of Stripe, want %d", len(calls), want)
	}
	for _, c := range calls {
		if c.Form.Get("payment_intent") != "pi_refund" || c.Form.Get("amount") != strconv.Itoa(slice) || c.Header.Get("Idempotency-Key") == "" {
			t.Errorf("refund asked as %v (idempotency key %q)", c.Form, c.Header.Get("Idempotency-Key"))
		}
	}

	// The rest, to the cent, still fits; one more cent does not.
	if rest := o.TotalCents - sum; rest > 0 {
		if _, err := st.Orders.RefundOrder(ctx, o.ID, rest, "admin:root"); err != nil {
			t.Errorf("refunding the rest (%d): %v", rest, err)
		}
	}
	if _, err := st.Orders.RefundOrder(ctx, o.ID, 1, "admin:root"); !errors.Is(err, orders.ErrRefundTooLarge) {
		t.Errorf("a cent past the payment: %v", err)
	}

	// A card order never paid has nothing to give back.
	unpaid := cardOrder(t, st, "bob", 7, 1)
	if _, err := card.Refund(ctx, unpaid, 1, "admin:root"); !errors.Is(err, orders.ErrRefundTooLarge) || !errors.Is(err, stripepay.ErrNotPaid) {
		t.Errorf("refund of an unpaid card order: %v", err)
	}
	if n, _ := refundRows(t, st, unpaid.ID); n != 0 {
		t.Errorf("the unpaid order has %d refunds", n)
	}
}

// TestOfflineRefundIsRecorded: invoice and cash on delivery refunds are
// recorded, up to the order's total, done at once.
func TestOfflineRefundIsRecorded(t *testing.T) {
	st, requests := cardShop(t)
	ctx := t.Context()
	tok, _ := wiringtest.Shopper(t, st, "ada")
	wiringtest.SetStock(t, st, 7, 10)
	wiringtest.SetLine(t, st, tok, 7, 1)
	o, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, -1))
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Orders.RefundOrder(ctx, o.ID, o.TotalCents-1, "admin:root")
	if err != nil || r.ID == 0 || r.Ref != "" || !r.Done() {
		t.Fatalf("invoice refund: %+v, %v", r, err)
	}
	if _, err := st.Orders.RefundOrder(ctx, o.ID, 2, "admin:root"); !errors.Is(err, orders.ErrRefundTooLarge) {
		t.Errorf("past the total: %v", err)
	}
	if n, sum := refundRows(t, st, o.ID); n != 1 || sum != o.TotalCents-1 {
		t.Errorf("refunds %d rows, %d cents; want the one recorded", n, sum)
	}
	list, err := st.Orders.Refunds(ctx, o.ID)
	if err != nil || len(list) != 1 || list[0].Cents != o.TotalCents-1 || list[0].Actor != "admin:root" {
		t.Errorf("refund list %+v, %v", list, err)
	}
	if len(refundCalls(requests())) != 0 {
		t.Error("an invoice refund went to Stripe")
	}
	if _, err := st.Orders.RefundOrder(ctx, o.ID+1000, 1, "admin:root"); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("refund of an unknown order: %v", err)
	}
}
