package orders_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// redisClock moves the time Redis uses for stream idle times: miniredis's
// clock is set, a real server is waited for.
type redisClock struct {
	mr  *miniredis.Miniredis
	now time.Time
}

func newRedisClock(t *testing.T) *redisClock {
	c := &redisClock{mr: storetest.Miniredis(t), now: time.Now()}
	if c.mr != nil {
		c.mr.SetTime(c.now)
	}
	return c
}

func (c *redisClock) advance(d time.Duration) {
	if c.mr == nil {
		time.Sleep(d)
		return
	}
	c.now = c.now.Add(d)
	c.mr.SetTime(c.now)
}

// placeOrder checks out one unit of item for a new shopper.
func placeOrder(t *testing.T, st *wiring.Services, name string, item int64) orders.Order {
	t.Helper()
	tok, _ := wiringtest.Shopper(t, st, name)
	wiringtest.SetStock(t, st, item, 100)
	wiringtest.SetLine(t, st, tok, item, 1)
	o, err := st.Orders.Checkout(t.Context(), wiringtest.Buy(tok, -1))
	if err != nil {
		t.Fatalf("checkout: %v", err)
	}
	return o
}

func orderOf(t *testing.T, st *wiring.Services, o orders.Order) orders.Order {
	t.Helper()
	got, err := st.Orders.Order(t.Context(), o.UserID, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func poll(t *testing.T, f *orders.Fulfilment) orders.PollResult {
	t.Helper()
	res, err := f.Poll(t.Context())
	if err != nil {
		t.Fatalf("poll: %v", err)
	}
	return res
}

func fastQueue(o *wiring.Options) { o.OrderPoll = 10 * time.Millisecond }

func TestFulfilmentProcessesOrders(t *testing.T) {
	st := wiringtest.New(t, fastQueue)
	o := placeOrder(t, st, "alice", 7)
	if got := orderOf(t, st, o); got.Status != orders.OrderPending || !got.ProcessedAt.IsZero() {
		t.Fatalf("new order %+v", got)
	}
	res := poll(t, st.Orders.Fulfilment("w1"))
	if res.Handled != 1 || res.Fulfilled != 1 {
		t.Errorf("poll %+v", res)
	}
	if got := orderOf(t, st, o); got.Status != orders.OrderProcessed || got.ProcessedAt.IsZero() {
		t.Errorf("order after fulfilment %+v", got)
	}
	if n := queueLen(t, st); n != 0 {
		t.Errorf("%d entries left in the queue", n)
	}
	var found bool
	for _, w := range st.Workers() {
		found = found || w.Name() == keys.WorkerFulfilment
	}
	if !found {
		t.Error("the fulfilment worker is not registered")
	}
}

// A worker that takes an order and dies leaves it pending in the group;
// after the visibility timeout, and not before, another worker takes it
// over and processes it.
func TestFulfilmentReclaimsFromADeadWorker(t *testing.T) {
	vis := 3 * time.Second // a real server is waited for
	if storetest.Backend() == platform.ModeMiniredis {
		vis = time.Minute // miniredis's clock is moved instead
	}
	st := wiringtest.New(t, fastQueue, func(o *wiring.Options) { o.OrderVisibility = vis })
	clock := newRedisClock(t)
	o := placeOrder(t, st, "alice", 7)

	ids, err := takeOrders(t, st, "worker-a", 10)
	if err != nil || len(ids) != 1 || ids[0] != o.ID {
		t.Fatalf("worker-a claimed orders %v, %v; want only %d", ids, err, o.ID)
	}
	// worker-a dies here, without processing or acknowledging.

	b := st.Orders.Fulfilment("worker-b")
	if res := poll(t, b); res.Reclaimed != 0 || res.Fulfilled != 0 {
		t.Fatalf("worker-b took a live worker's order early: %+v", res)
	}
	if n, _ := queuePending(t, st); n != 1 {
		t.Errorf("%d pending entries, want 1", n)
	}
	clock.advance(vis + 200*time.Millisecond)
	res := poll(t, b)
	if res.Reclaimed != 1 || res.Fulfilled != 1 || res.Handled != 1 {
		t.Errorf("after the timeout: %+v", res)
	}
	if got := orderOf(t, st, o); got.Status != orders.OrderProcessed {
		t.Errorf("order %+v", got)
	}
	if n, _ := queuePending(t, st); n != 0 {
		t.Errorf("%d entries still pending", n)
	}
	if n := queueLen(t, st); n != 0 {
		t.Errorf("%d entries left in the queue", n)
	}
}

// Processing an order twice (a duplicate entry, a redelivery) changes
// nothing the second time.
func TestFulfilmentIsIdempotent(t *testing.T) {
	st := wiringtest.New(t, fastQueue)
	ctx := t.Context()
	o := placeOrder(t, st, "alice", 7)
	w := st.Orders.Fulfilment("w1")
	poll(t, w)
	first := orderOf(t, st, o)

	st.SetClock(func() time.Time { return time.Now().Add(time.Hour) })
	for range 2 {
		if err := enqueue(t, st, o.ID); err != nil {
			t.Fatal(err)
		}
	}
	res := poll(t, w)
	if res.Handled != 2 || res.Fulfilled != 0 {
		t.Errorf("duplicates: %+v", res)
	}
	if changed, err := st.Orders.FulfilOrder(ctx, o.ID); err != nil || changed {
		t.Errorf("FulfilOrder again = %v, %v", changed, err)
	}
	again := orderOf(t, st, o)
	if again.Status != orders.OrderProcessed || !again.ProcessedAt.Equal(first.ProcessedAt) {
		t.Errorf("order changed by a second processing: %+v -> %+v", first, again)
	}
	// An entry naming no order is dropped, not retried forever.
	if err := enqueue(t, st, 987654); err != nil {
		t.Fatal(err)
	}
	if res := poll(t, w); res.Handled != 1 || res.Fulfilled != 0 || queueLen(t, st) != 0 {
		t.Errorf("unknown order: %+v", res)
	}
}

// An order committed but never queued (a crash between the commit and the
// XADD) is fulfilled by the sweep once it is old enough.
func TestFulfilmentSweepFindsUnqueuedOrders(t *testing.T) {
	st := wiringtest.New(t, fastQueue, func(o *wiring.Options) { o.OrderSweepAge = time.Minute })
	ctx := t.Context()
	o := placeOrder(t, st, "alice", 7)
	if err := st.Redis().Del(ctx, keys.OrderQueue).Err(); err != nil { // the push never happened
		t.Fatal(err)
	}
	w := st.Orders.Fulfilment("w1")
	if res := poll(t, w); res.Fulfilled != 0 {
		t.Fatalf("a fresh order was swept: %+v", res)
	}
	st.SetClock(func() time.Time { return time.Now().Add(2 * time.Minute) })
	n, err := w.Sweep(ctx)
	if err != nil || n != 1 {
		t.Fatalf("sweep = %d, %v; want 1", n, err)
	}
	if got := orderOf(t, st, o); got.Status != orders.OrderProcessed {
		t.Errorf("order %+v", got)
	}
	if n, _ := w.Sweep(ctx); n != 0 {
		t.Errorf("second sweep processed %d", n)
	}
}

// The queue survives its key being deleted under a running worker (a
// flush, a restart without persistence): the group is recreated and
// entries added meanwhile are delivered.
func TestFulfilmentRecreatesItsGroup(t *testing.T) {
	st := wiringtest.New(t, fastQueue)
	ctx := t.Context()
	w := st.Orders.Fulfilment("w1")
	poll(t, w)
	o := placeOrder(t, st, "alice", 7)
	if err := st.Redis().Del(ctx, keys.OrderQueue).Err(); err != nil {
		t.Fatal(err)
	}
	if err := enqueue(t, st, o.ID); err != nil {
		t.Fatal(err)
	}
	if res := poll(t, w); res.Fulfilled != 1 {
		t.Errorf("poll after the stream was recreated: %+v", res)
	}
}

// Several workers (instances) share the queue: every order is processed
// and nothing is left behind.
func TestFulfilmentWorkersShareTheQueue(t *testing.T) {
	st := wiringtest.New(t, fastQueue)
	ctx := t.Context()
	tok, _ := wiringtest.Shopper(t, st, "alice")
	wiringtest.SetStock(t, st, 7, 100)
	var placed []orders.Order
	for range 20 {
		wiringtest.SetLine(t, st, tok, 7, 1)
		o, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, -1))
		if err != nil {
			t.Fatal(err)
		}
		placed = append(placed, o)
	}
	runCtx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.Orders.Fulfilment(fmt.Sprintf("instance-%d", i)).Run(runCtx)
		}()
	}
	deadline := time.Now().Add(2 * time.Minute)
	recorded := func() bool {
		v, _ := st.Redis().HGet(ctx, keys.Worker(keys.WorkerFulfilment), "result").Result()
		return v != ""
	}
	// The worker records its run after the batch it processed, and the
	// sweep may mark an order processed before its queue entry is read and
	// deleted, so wait for all three before stopping the workers.
	for processed := 0; (processed < len(placed) || !recorded() || queueLen(t, st) != 0) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE status = 'processed'`).Scan(&processed); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	wg.Wait()
	for _, o := range placed {
		if got := orderOf(t, st, o); got.Status != orders.OrderProcessed {
			t.Errorf("order %d is %s", o.ID, got.Status)
		}
	}
	if n := queueLen(t, st); n != 0 {
		t.Errorf("%d entries left in the queue", n)
	}
	if !recorded() {
		t.Error("the worker recorded no run")
	}
}

// enqueue pushes an order id onto the fulfilment queue, as a checkout
// does (a duplicate delivery, or one the checkout never made).
func enqueue(t *testing.T, st *wiring.Services, id int64) error {
	t.Helper()
	return st.Redis().XAdd(t.Context(), &redis.XAddArgs{Stream: keys.OrderQueue, Values: []string{"order", strconv.FormatInt(id, 10)}}).Err()
}

// takeOrders reads up to n new queue entries as the consumer named
// consumer and neither processes nor acknowledges them: a worker that dies
// right after taking.
func takeOrders(t *testing.T, st *wiring.Services, consumer string, n int64) ([]int64, error) {
	t.Helper()
	ctx, rdb := t.Context(), st.Redis()
	if err := rdb.XGroupCreateMkStream(ctx, keys.OrderQueue, keys.OrderQueueGroup, "0").Err(); err != nil && !strings.Contains(err.Error(), "BUSYGROUP") {
		return nil, err
	}
	streams, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: keys.OrderQueueGroup, Consumer: consumer, Streams: []string{keys.OrderQueue, ">"}, Count: n, Block: -1,
	}).Result()
	if err == redis.Nil {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, st := range streams {
		for _, m := range st.Messages {
			id, err := strconv.ParseInt(fmt.Sprint(m.Values["order"]), 10, 64)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// queuePending is how many queue entries are taken but not acknowledged.
func queuePending(t *testing.T, st *wiring.Services) (int64, error) {
	t.Helper()
	p, err := st.Redis().XPending(t.Context(), keys.OrderQueue, keys.OrderQueueGroup).Result()
	if err != nil {
		return 0, err
	}
	return p.Count, nil
}
