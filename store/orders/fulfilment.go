package orders

// The fulfilment queue.
//
// Placed orders go onto a Redis Stream read by one consumer group, each
// instance being a consumer. We chose a Stream over a list with LMOVE
// because the group's pending entries list already records, per entry,
// which consumer took it, when, and how many times it was delivered:
// XAUTOCLAIM hands entries idle longer than the visibility timeout to a
// live worker in one command, so a worker that died mid-way loses nothing
// and we keep no bookkeeping of our own (with lists we would need a
// processing list per instance, a registry of instances to scan and a
// timestamp per taken entry). It is also a single key, so it needs no hash
// tag on Cluster, and several instances reading one group never get the
// same new entry.
//
// Delivery is at least once: an order is marked processed, then acked. The
// mark is a conditional UPDATE ... WHERE status = 'pending', so a second
// delivery changes nothing. The window between the database commit and the
// XADD is covered by a sweep that fulfils orders still pending after
// OrderSweepAge straight from the database.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/workers"
)

// Defaults for the fulfilment knobs in Options.
const (
	DefaultOrderVisibility = 30 * time.Second
	DefaultOrderSweepAge   = 2 * time.Minute
	DefaultOrderPoll       = time.Second
)

const (
	orderBatch    = 50        // entries read or reclaimed per command
	orderQueueCap = 1_000_000 // approximate MAXLEN: a safety net, the sweep covers what it trims
	sweepBatch    = 500
	// idleConsumerAge is how long a consumer with nothing pending may stay
	// in the group (instances get new names on every start).
	idleConsumerAge = time.Hour
)

// addEnqueueOrder queues the XADD of an order id on pipe.
func (s *Service) addEnqueueOrder(ctx context.Context, pipe redis.Pipeliner, orderID int64) {
	pipe.XAdd(ctx, &redis.XAddArgs{
		Stream: keys.OrderQueue, MaxLen: orderQueueCap, Approx: true,
		Values: []string{"order", strconv.FormatInt(orderID, 10)},
	})
}

// FulfilOrder marks a pending order processed, with its timeline entry,
// in one transaction, and notifies the shopper. It is idempotent: an order
// that is no longer pending (processed, cancelled, moved on by an admin),
// or does not exist, is left alone, and it reports whether this call
// changed anything.
func (s *Service) FulfilOrder(ctx context.Context, id int64) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("fulfil order %d: %w", id, err)
	}
	defer tx.Rollback()
	now := s.clock.Now().Unix()
	var userID int64
	err = tx.QueryRowContext(ctx, `UPDATE orders SET status = $1, processed_at = $2 WHERE id = $3 AND status = $4 RETURNING user_id`,
		OrderProcessed, now, id, OrderPending).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("fulfil order %d: %w", id, err)
	}
	if err := insertOrderEvent(ctx, tx, id, OrderProcessed, ActorFulfilment, now); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("fulfil order %d: commit: %w", id, err)
	}
	s.fulfilled.Inc()
	s.log.Info("order processed", "order", id)
	s.statusChanged(ctx, userID, id, OrderProcessed)
	return true, nil
}

// Fulfilment is one consumer of the order queue. Every instance runs one,
// named by its Instance(); they share the work through the consumer group.
type Fulfilment struct {
	s          *Service
	consumer   string
	groupReady bool
	cursor     string // XAUTOCLAIM position, "0-0" to start over
	lastSweep  time.Time
	lastReport time.Time
}

// Fulfilment returns a queue consumer with the given name (the wiring
// names it after its instance).
func (s *Service) Fulfilment(consumer string) *Fulfilment {
	return &Fulfilment{s: s, consumer: consumer, cursor: "0-0"}
}

// Name names the worker in logs and on the dashboard.
func (f *Fulfilment) Name() string { return keys.WorkerFulfilment }

// PollResult is what one Poll did.
type PollResult struct {
	Handled   int // queue entries acknowledged
	Reclaimed int // entries taken over from a consumer that went quiet
	Fulfilled int // orders that moved to processed (by the queue or the sweep)
}

// Run polls until ctx is cancelled, backing off while Redis or the
// database is down.
func (f *Fulfilment) Run(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		res, err := f.Poll(ctx)
		if ctx.Err() != nil {
			return
		}
		f.report(ctx, res, err)
		if err == nil {
			backoff = 100 * time.Millisecond
			continue
		}
		f.s.log.Warn("fulfilment", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// Poll does one round of work: take over entries another consumer left
// idle past the visibility timeout, sweep the database when due, then
// wait up to OrderPoll for new entries and process them.
func (f *Fulfilment) Poll(ctx context.Context) (PollResult, error) {
	var res PollResult
	err := f.poll(ctx, &res)
	if isNoGroup(err) { // the stream was deleted (a flush, a restart without persistence)
		f.groupReady = false
		err = f.poll(ctx, &res)
	}
	return res, err
}

func (f *Fulfilment) poll(ctx context.Context, res *PollResult) error {
	if err := f.ensureGroup(ctx); err != nil {
		return err
	}
	if err := f.reclaim(ctx, res); err != nil {
		return err
	}
	if time.Since(f.lastSweep) >= f.s.opt.OrderSweepAge/2 {
		n, err := f.Sweep(ctx)
		if err != nil {
			return err
		}
		f.lastSweep = time.Now()
		res.Fulfilled += n
	}
	streams, err := f.s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: keys.OrderQueueGroup, Consumer: f.consumer, Streams: []string{keys.OrderQueue, ">"},
		Count: orderBatch, Block: f.s.opt.OrderPoll,
	}).Result()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fulfilment: read: %w", err)
	}
	for _, st := range streams {
		if err := f.handle(ctx, st.Messages, res); err != nil {
			return err
		}
	}
	return nil
}

func (f *Fulfilment) ensureGroup(ctx context.Context) error {
	if f.groupReady {
		return nil
	}
	// "0": entries added before the group existed are delivered too.
	err := f.s.rdb.XGroupCreateMkStream(ctx, keys.OrderQueue, keys.OrderQueueGroup, "0").Err()
	if err != nil && !strings.Contains(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("fulfilment: create group: %w", err)
	}
	f.groupReady = true
	return nil
}

// reclaim takes over one batch of entries idle longer than the visibility
// timeout: their consumer died or hung after taking them.
func (f *Fulfilment) reclaim(ctx context.Context, res *PollResult) error {
	msgs, next, err := f.s.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
		Stream: keys.OrderQueue, Group: keys.OrderQueueGroup, Consumer: f.consumer,
		MinIdle: f.s.opt.OrderVisibility, Start: f.cursor, Count: orderBatch,
	}).Result()
	if err != nil {
		return fmt.Errorf("fulfilment: reclaim: %w", err)
	}
	f.cursor = next
	if len(msgs) > 0 {
		f.s.log.Warn("fulfilment: reclaimed orders from a quiet worker", "count", len(msgs))
	}
	res.Reclaimed += len(msgs)
	return f.handle(ctx, msgs, res)
}

// handle processes entries and acknowledges (and deletes) those done. On
// an error the rest stay pending, to be reclaimed after the timeout.
func (f *Fulfilment) handle(ctx context.Context, msgs []redis.XMessage, res *PollResult) error {
	done := make([]string, 0, len(msgs))
	var ferr error
	for _, m := range msgs {
		id, err := strconv.ParseInt(fmt.Sprint(m.Values["order"]), 10, 64)
		if err != nil || id <= 0 {
			f.s.log.Error("fulfilment: dropping a malformed entry", "entry", m.ID)
			done = append(done, m.ID)
			continue
		}
		changed, err := f.s.FulfilOrder(ctx, id)
		if err != nil {
			ferr = err
			break
		}
		if changed {
			res.Fulfilled++
		}
		done = append(done, m.ID)
	}
	if len(done) > 0 {
		pipe := f.s.rdb.TxPipeline() // one key: fine on Cluster
		pipe.XAck(ctx, keys.OrderQueue, keys.OrderQueueGroup, done...)
		pipe.XDel(ctx, keys.OrderQueue, done...)
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("fulfilment: ack: %w", err)
		}
		res.Handled += len(done)
	}
	return ferr
}

// Sweep fulfils orders still pending OrderSweepAge after they were placed,
// straight from the database: it covers an order whose id never reached
// the queue (a crash between the commit and the XADD). It runs on one
// instance at a time (a lease) and also drops long-idle consumers from the
// group. It returns how many orders it moved to processed.
func (f *Fulfilment) Sweep(ctx context.Context) (int, error) {
	age := f.s.opt.OrderSweepAge
	ok, err := f.s.host.Acquire(ctx, keys.LeaseFulfilmentSweep, age)
	if err != nil || !ok {
		return 0, err
	}
	cutoff := f.s.clock.Now().Add(-age).Unix()
	rows, err := f.s.db.QueryContext(ctx, `SELECT id FROM orders WHERE status = $1 AND created_at <= $2 ORDER BY id LIMIT $3`,
		OrderPending, cutoff, sweepBatch)
	if err != nil {
		return 0, fmt.Errorf("fulfilment sweep: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("fulfilment sweep: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("fulfilment sweep: %w", err)
	}
	n := 0
	for _, id := range ids {
		changed, err := f.s.FulfilOrder(ctx, id)
		if err != nil {
			return n, err
		}
		if changed {
			f.s.log.Warn("fulfilment sweep: processed an order the queue missed", "order", id)
			n++
		}
	}
	f.pruneConsumers(ctx)
	return n, nil
}

// pruneConsumers removes consumers that have nothing pending and have
// been idle for long: instances that stopped.
func (f *Fulfilment) pruneConsumers(ctx context.Context) {
	cs, err := f.s.rdb.XInfoConsumers(ctx, keys.OrderQueue, keys.OrderQueueGroup).Result()
	if err != nil {
		return
	}
	for _, c := range cs {
		if c.Name != f.consumer && c.Pending == 0 && c.Idle > idleConsumerAge {
			_ = f.s.rdb.XGroupDelConsumer(ctx, keys.OrderQueue, keys.OrderQueueGroup, c.Name).Err()
		}
	}
}

func isNoGroup(err error) bool { return err != nil && strings.Contains(err.Error(), "NOGROUP") }

// report records the worker's last run for the dashboard: after work or
// an error, and otherwise every 10 seconds.
func (f *Fulfilment) report(ctx context.Context, res PollResult, err error) {
	if err == nil && res.Handled == 0 && res.Fulfilled == 0 && time.Since(f.lastReport) < 10*time.Second {
		return
	}
	f.lastReport = time.Now()
	run := workers.Run{Result: fmt.Sprintf("handled %d, processed %d, reclaimed %d", res.Handled, res.Fulfilled, res.Reclaimed),
		Err: err, Counts: map[string]int64{"processed": int64(res.Fulfilled)}}
	f.s.host.Report(ctx, f.Name(), run)
}
