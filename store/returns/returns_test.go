package returns_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"storefront/store/cart"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/returns"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// delivered places a member's order for lines and moves it to delivered;
// the shop's clock stands still at now (moved by the test).
func delivered(t *testing.T, st *wiring.Services, name string, lines ...cart.Line) (orders.Order, int64) {
	t.Helper()
	owner, uid := wiringtest.Shopper(t, st, name)
	if err := st.Sessions.SetEmail(t.Context(), uid, name+"@example.com"); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		wiringtest.SetStock(t, st, l.ItemID, 50)
		wiringtest.SetLine(t, st, owner, l.ItemID, l.Qty)
	}
	o, err := st.Orders.Checkout(t.Context(), wiringtest.Buy(owner, -1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Orders.MoveOrder(t.Context(), o.ID, 0, orders.OrderDelivered, orders.AdminActor("a")); err != nil {
		t.Fatal(err)
	}
	o, err = st.Orders.OrderAny(t.Context(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	return o, uid
}

// count runs a COUNT(*) query, failing on a read error.
func count(t *testing.T, st *wiring.Services, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := st.DB().QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func returnMails(t *testing.T, st *wiring.Services) int64 {
	return count(t, st, `SELECT COUNT(*) FROM outbox WHERE kind LIKE 'return-%'`)
}

// TestReturnFromRequestToRefund: a return asked, approved, received with
// the stock back and refunded through the order's payment method for the
// lines' price paid; an email at each step; the order's refund ledger
// holds the refund.
func TestReturnFromRequestToRefund(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	o, uid := delivered(t, st, "ret1", cart.Line{ItemID: 3, Qty: 2}, cart.Line{ItemID: 4, Qty: 1})
	r, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 3}: 1}, Reason: "Too small"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != returns.Requested || len(r.Lines) != 1 || r.Lines[0].Qty != 1 || returnMails(t, st) != 1 {
		t.Fatalf("asked: %+v, %d mails", r, returnMails(t, st))
	}
	stock := wiringtest.StockOf(t, st, 3)
	for _, a := range []string{returns.ActApprove, returns.ActReceive} {
		if r, err = st.Returns.Act(ctx, r.ID, a, true, "admin:root"); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if r.Status != returns.Received || !r.Restocked || wiringtest.StockOf(t, st, 3) != stock+1 {
		t.Fatalf("received: %+v, stock %d (was %d)", r, wiringtest.StockOf(t, st, 3), stock)
	}
	r, err = st.Returns.Act(ctx, r.ID, returns.ActRefund, false, "admin:root")
	if err != nil {
		t.Fatal(err)
	}
	price := o.Lines[0].PriceCents
	if r.Status != returns.Refunded || r.RefundCents != price || !r.Restocked {
		t.Fatalf("refunded: %+v, want %d", r, price)
	}
	refunds, err := st.Orders.Refunds(ctx, o.ID)
	if err != nil || len(refunds) != 1 || refunds[0].Cents != price {
		t.Fatalf("ledger %+v %v", refunds, err)
	}
	if n := returnMails(t, st); n != 4 {
		t.Fatalf("%d return mails, want 4 (requested, approved, received, refunded)", n)
	}
	if n := count(t, st, `SELECT COUNT(*) FROM outbox WHERE kind = 'return-refunded' AND to_addr = 'ret1@example.com'`); n != 1 {
		t.Fatalf("refunded mail to the shopper: %d", n)
	}
	list, err := st.Returns.ForOrder(ctx, o.ID)
	if err != nil || len(list) != 1 || list[0].Status != returns.Refunded || list[0].Lines[0].Name == "" {
		t.Fatalf("for order: %+v %v", list, err)
	}
}

// TestAskRefusals: each refusal is its own error and changes nothing (no
// return, no line, no email).
func TestAskRefusals(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	now := time.Unix(time.Now().Unix(), 0)
	st.SetClock(func() time.Time { return now })
	o, uid := delivered(t, st, "ret2", cart.Line{ItemID: 3, Qty: 2})
	_, other := wiringtest.Shopper(t, st, "ret2other")
	if _, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 3}: 1}, Reason: "one back"}); err != nil {
		t.Fatal(err)
	}
	// A second order, not delivered.
	owner2 := cart.Owner{UserID: uid, Token: "token-ret2"}
	wiringtest.SetStock(t, st, 4, 50)
	wiringtest.SetLine(t, st, owner2, 4, 1)
	pending, err := st.Orders.Checkout(ctx, wiringtest.Buy(owner2, -1))
	if err != nil {
		t.Fatal(err)
	}
	before := count(t, st, `SELECT COUNT(*) FROM returns`)
	lines := count(t, st, `SELECT COUNT(*) FROM return_lines`)
	mails := returnMails(t, st)
	ok := map[returns.LineKey]int64{{ItemID: 3}: 1}
	for name, c := range map[string]struct {
		req  returns.Request
		want error
	}{
		"not delivered": {returns.Request{OrderID: pending.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 4}: 1}, Reason: "x"}, returns.ErrNotDelivered},
		"no line":       {returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{}, Reason: "x"}, returns.ErrNoLines},
		"zero":          {returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 3}: 0}, Reason: "x"}, returns.ErrQty},
		"negative":      {returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 3}: -1}, Reason: "x"}, returns.ErrQty},
		"too many":      {returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 3}: 2}, Reason: "x"}, returns.ErrTooMany},
		"absurd":        {returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 3}: 1 << 60}, Reason: "x"}, returns.ErrTooMany},
		"unknown line":  {returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 999}: 1}, Reason: "x"}, returns.ErrUnknownLine},
		"no reason":     {returns.Request{OrderID: o.ID, UserID: uid, Qty: ok, Reason: "  "}, returns.ErrReason},
		"long reason":   {returns.Request{OrderID: o.ID, UserID: uid, Qty: ok, Reason: string(make([]byte, 501))}, returns.ErrReason},
		"control":       {returns.Request{OrderID: o.ID, UserID: uid, Qty: ok, Reason: "bad\x00reason"}, returns.ErrReason},
		"another's":     {returns.Request{OrderID: o.ID, UserID: other, Qty: ok, Reason: "x"}, platform.ErrNotFound},
		"no order":      {returns.Request{OrderID: 1 << 40, UserID: uid, Qty: ok, Reason: "x"}, platform.ErrNotFound},
	} {
		if _, err := st.Returns.Ask(ctx, c.req); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	// The window: open on its last second, closed after it.
	st.SetClock(func() time.Time { return now.Add(st.Returns.Window() + time.Second) })
	if _, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: ok, Reason: "late"}); !errors.Is(err, returns.ErrWindowOver) {
		t.Errorf("after the window: %v", err)
	}
	if b, l, m := count(t, st, `SELECT COUNT(*) FROM returns`), count(t, st, `SELECT COUNT(*) FROM return_lines`), returnMails(t, st); b != before || l != lines || m != mails {
		t.Fatalf("a refusal changed something: returns %d->%d, lines %d->%d, mails %d->%d", before, b, lines, l, mails, m)
	}
	st.SetClock(func() time.Time { return now.Add(st.Returns.Window()) })
	if _, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: ok, Reason: "just in time"}); err != nil {
		t.Fatalf("last second of the window: %v", err)
	}
}

// TestReturnMoves: wrong transitions are *MoveError and change nothing; a
// rejected return's quantities may be asked again; receiving without
// restock leaves the stock.
func TestReturnMoves(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	o, uid := delivered(t, st, "ret3", cart.Line{ItemID: 5, Qty: 1})
	ask := returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 5}: 1}, Reason: "changed my mind"}
	r, err := st.Returns.Ask(ctx, ask)
	if err != nil {
		t.Fatal(err)
	}
	var me *returns.MoveError
	for _, a := range []string{returns.ActReceive, returns.ActRefund} {
		if _, err := st.Returns.Act(ctx, r.ID, a, false, "admin:a"); !errors.As(err, &me) || me.From != returns.Requested {
			t.Fatalf("%s a requested return: %v", a, err)
		}
	}
	if _, err := st.Returns.Act(ctx, r.ID, "destroy", false, "admin:a"); !errors.Is(err, platform.ErrInvalid) {
		t.Fatalf("unknown action: %v", err)
	}
	if _, err := st.Returns.Act(ctx, 1<<40, returns.ActApprove, false, "admin:a"); !errors.Is(err, platform.ErrNotFound) {
		t.Fatalf("missing return: %v", err)
	}
	if _, err := st.Returns.Act(ctx, r.ID, returns.ActReject, false, "admin:a"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Returns.Act(ctx, r.ID, returns.ActApprove, false, "admin:a"); !errors.As(err, &me) || me.From != returns.Rejected {
		t.Fatalf("approve a rejected return: %v", err)
	}
	if got, err := st.Returns.Get(ctx, r.ID); err != nil || got.Status != returns.Rejected {
		t.Fatalf("after refused moves: %+v %v", got, err)
	}
	r2, err := st.Returns.Ask(ctx, ask)
	if err != nil {
		t.Fatalf("ask again after a rejection: %v", err)
	}
	stock := wiringtest.StockOf(t, st, 5)
	for _, a := range []string{returns.ActApprove, returns.ActReceive} {
		if r2, err = st.Returns.Act(ctx, r2.ID, a, false, "admin:a"); err != nil {
			t.Fatal(err)
		}
	}
	if r2.Restocked || wiringtest.StockOf(t, st, 5) != stock {
		t.Fatalf("received without restock: %+v, stock %d -> %d", r2, stock, wiringtest.StockOf(t, st, 5))
	}
}

// TestRefundNeverExceedsPayment: when the order's payment was already
// given back by hand, the return's refund is refused (ErrRefundTooLarge),
// the return stays received and nothing more is refunded.
func TestRefundNeverExceedsPayment(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	o, uid := delivered(t, st, "ret4", cart.Line{ItemID: 6, Qty: 1})
	if _, err := st.Orders.RefundOrder(ctx, o.ID, o.TotalCents, "admin:a"); err != nil {
		t.Fatal(err)
	}
	r, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 6}: 1}, Reason: "broken"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{returns.ActApprove, returns.ActReceive} {
		if _, err = st.Returns.Act(ctx, r.ID, a, false, "admin:a"); err != nil {
			t.Fatal(err)
		}
	}
	mails := returnMails(t, st)
	if _, err := st.Returns.Act(ctx, r.ID, returns.ActRefund, false, "admin:a"); !errors.Is(err, orders.ErrRefundTooLarge) {
		t.Fatalf("refund past the payment: %v", err)
	}
	got, err := st.Returns.Get(ctx, r.ID)
	if err != nil || got.Status != returns.Received || got.RefundCents != 0 || returnMails(t, st) != mails {
		t.Fatalf("after the refused refund: %+v %v, mails %d->%d", got, err, mails, returnMails(t, st))
	}
	if n := count(t, st, `SELECT COUNT(*) FROM order_refunds WHERE order_id = $1`, o.ID); n != 1 {
		t.Fatalf("%d refunds, want only the first", n)
	}
}

// TestConcurrentAsksForLastUnit: many requests at once for the last
// returnable unit (on PostgreSQL they truly overlap): one succeeds.
func TestConcurrentAsksForLastUnit(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	o, uid := delivered(t, st, "ret5", cart.Line{ItemID: 7, Qty: 2})
	if _, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 7}: 1}, Reason: "first"}); err != nil {
		t.Fatal(err)
	}
	const n = 12
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 7}: 1}, Reason: "last one"})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, returns.ErrTooMany):
			t.Fatalf("ask: %v", err)
		}
	}
	if got := count(t, st, `SELECT COALESCE(SUM(qty), 0) FROM return_lines rl JOIN returns r ON r.id = rl.return_id WHERE r.order_id = $1`, o.ID); ok != 1 || got != 2 {
		t.Fatalf("%d asks succeeded, %d units asked for; want 1 and 2", ok, got)
	}
}

// TestConcurrentRefunds: many refunds of one received return at once
// give the money back once.
func TestConcurrentRefunds(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	o, uid := delivered(t, st, "ret6", cart.Line{ItemID: 8, Qty: 3})
	r, err := st.Returns.Ask(ctx, returns.Request{OrderID: o.ID, UserID: uid, Qty: map[returns.LineKey]int64{{ItemID: 8}: 2}, Reason: "two too many"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{returns.ActApprove, returns.ActReceive} {
		if _, err = st.Returns.Act(ctx, r.ID, a, true, "admin:a"); err != nil {
			t.Fatal(err)
		}
	}
	const n = 10
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := st.Returns.Act(ctx, r.ID, returns.ActRefund, false, "admin:a")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		var me *returns.MoveError
		switch {
		case err == nil:
			ok++
		case !errors.As(err, &me):
			t.Fatalf("refund: %v", err)
		}
	}
	refunds, err := st.Orders.Refunds(ctx, o.ID)
	if err != nil || ok != 1 || len(refunds) != 1 || refunds[0].Cents != 2*o.Lines[0].PriceCents {
		t.Fatalf("%d refunds applied, ledger %+v %v", ok, refunds, err)
	}
	if n := count(t, st, `SELECT COUNT(*) FROM outbox WHERE kind = 'return-refunded'`); n != 1 {
		t.Fatalf("%d refunded mails", n)
	}
}
