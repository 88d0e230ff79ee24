package store

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/cart"
	"storefront/store/keys"
	"storefront/store/platform"
)

// Internals the external tests (package store_test) reach through.

// KeyOrderQueue is the fulfilment Stream's key.
const KeyOrderQueue = keys.OrderQueue

// CheckoutLockKey names a session's checkout lock.
func CheckoutLockKey(o cart.Owner) string { return keys.CheckoutLock(o.UserID, o.Token) }

// PlaceOrder runs the checkout transaction alone, without the pre-check.
func PlaceOrder(ctx context.Context, s *Store, req CheckoutRequest, lines []cart.Line) (Order, error) {
	o, _, err := s.placeOrder(ctx, req, lines)
	return o, err
}

// AfterCheckout runs the post-commit steps for an order.
func AfterCheckout(ctx context.Context, s *Store, owner cart.Owner, o Order) {
	s.afterCheckout(ctx, owner, o, false)
}

// EnqueueOrder pushes an order id onto the queue (a duplicate delivery).
func EnqueueOrder(ctx context.Context, s *Store, id int64) error {
	pipe := s.rdb.Pipeline()
	s.addEnqueueOrder(ctx, pipe, id)
	_, err := pipe.Exec(ctx)
	return err
}

// TakeOrders reads up to n new queue entries as consumer f and neither
// processes nor acknowledges them: a worker that dies right after taking.
func TakeOrders(ctx context.Context, f *Fulfilment, n int64) ([]int64, error) {
	if err := f.ensureGroup(ctx); err != nil {
		return nil, err
	}
	streams, err := f.s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: keys.OrderQueueGroup, Consumer: f.consumer, Streams: []string{keys.OrderQueue, ">"}, Count: n, Block: -1,
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

// QueuePending is how many entries are taken but not acknowledged.
func QueuePending(ctx context.Context, s *Store) (int64, error) {
	p, err := s.rdb.XPending(ctx, keys.OrderQueue, keys.OrderQueueGroup).Result()
	if err != nil {
		return 0, err
	}
	return p.Count, nil
}

// CacheKeyOf is the page cache's URL rule: the key of an item page URL's
// query, or false when it bypasses the cache.
var CacheKeyOf = pageKey

// FillPage renders (or finds) an item page as a miss would, with the purge
// generations gen read before.
func FillPage(ctx context.Context, s *Store, itemID int64, gen PageGen, render RenderFunc) (string, error) {
	_, outcome, err := s.fillPage(ctx, pageFill{Key: PageKey(itemID), ItemID: itemID, Gen: gen, Render: render, epoch: s.pages.l1.epoch(itemID)})
	return outcome, err
}

// PageGens reads an item's purge generations.
func PageGens(ctx context.Context, s *Store, itemID int64) PageGen {
	return parseGen(s.rdb.HMGet(ctx, keys.PageGen, platform.FormatID(itemID), keys.PageGenAll).Val())
}

// Fill outcomes.
const (
	FillRendered = fillRendered
	FillFound    = fillFound
)

// KeyPurgeChannel is where purges are announced.
const KeyPurgeChannel = keys.PurgeChannel
