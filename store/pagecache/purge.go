package pagecache

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/platform"
)

// PurgeItemPages deletes the cached pages of the items at once, for an
// admin, and reports how many pages went. The items' row-cache copies go
// too (and are refreshed by the next pass of the row cache), so that the
// next render reads the database, as after an edit.
func (s *Service) PurgeItemPages(ctx context.Context, itemIDs ...int64) (int, error) {
	return s.purgeItemPages(ctx, itemIDs, true)
}

// ItemsChanged purges the pages of items that changed (an edit, a sale, an
// archive, a new picture or review): the wiring registers it with the
// catalog, which has dropped the rows' cached copies already.
func (s *Service) ItemsChanged(ctx context.Context, c catalog.Change) error {
	_, err := s.purgeItemPages(ctx, c.IDs, false)
	return err
}

// purgeItemPages deletes the items' cached pages. Bumping an item's purge
// generation first also voids a page being rendered from data read before
// the purge. Every instance drops its in-process copies on the purge
// channel.

func (s *Service) purgeItemPages(ctx context.Context, ids []int64, forgetRows bool) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	pipe := s.rdb.Pipeline()
	dels := make([]*redis.IntCmd, len(ids))
	for i, id := range ids {
		pipe.HIncrBy(ctx, keys.PageGen, strconv.FormatInt(id, 10), 1)
		dels[i] = pipe.Unlink(ctx, keys.Page(PageKey(id)))
	}
	if forgetRows {
		s.catalog.AddForgetRows(ctx, pipe, ids)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("purge pages: %w", err)
	}
	n := 0
	for _, d := range dels {
		n += int(d.Val())
	}
	// Announced once Redis holds the purge everywhere: a copy read before
	// the announcement is refused by the in-process cache.
	return n, s.announcePurge(ctx, ids...)
}

// PurgeAllPages deletes every cached page, for an admin: it bumps the
// global purge generation (voiding pages in flight), tells the OnPurgeAll
// listeners (search starts its cache afresh too), then scans `cache:*` on
// every master. It returns how many pages it deleted.
func (s *Service) PurgeAllPages(ctx context.Context) (int, error) {
	if err := s.rdb.HIncrBy(ctx, keys.PageGen, keys.PageGenAll, 1).Err(); err != nil {
		return 0, fmt.Errorf("purge all pages: %w", err)
	}
	for _, f := range s.purgedAll {
		f(ctx)
	}
	var mu sync.Mutex
	total := 0
	err := platform.ForEachMaster(ctx, s.rdb, func(ctx context.Context, c redis.UniversalClient) error {
		n, err := platform.UnlinkMatching(ctx, c, keys.PagePattern)
		mu.Lock()
		total += n
		mu.Unlock()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge all pages: %w", err)
	}
	return total, s.announcePurge(ctx)
}

// OnPurgeAll registers a listener of a purge of every page (the wiring
// registers search's AllChanged).
func (s *Service) OnPurgeAll(f func(context.Context)) { s.purgedAll = append(s.purgedAll, f) }

// purgeAllMessage is what the purge channel carries for "every page";
// otherwise a message is an item id.
const purgeAllMessage = "*"

// announcePurge tells every instance (this one included) to drop the
// items' pages, or all pages when no id is given.
func (s *Service) announcePurge(ctx context.Context, ids ...int64) error {
	if len(ids) == 0 {
		s.l1.purgeAll()
		return s.rdb.Publish(ctx, keys.PurgeChannel, purgeAllMessage).Err()
	}
	pipe := s.rdb.Pipeline()
	for _, id := range ids {
		s.l1.purgeItem(id)
		s.catalog.ForgetName(id)
		pipe.Publish(ctx, keys.PurgeChannel, platform.FormatID(id))
	}
	_, err := pipe.Exec(ctx)
	return err
}

// listenPurges applies purges announced by any instance until ctx ends.
// go-redis resubscribes after a lost connection and reports each
// (re)subscription as a *redis.Subscription: the cache empties then.
func (s *Service) listenPurges(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	ps := s.rdb.Subscribe(ctx, keys.PurgeChannel)
	defer ps.Close()
	ch := ps.ChannelWithSubscriptions(redis.WithChannelHealthCheckInterval(time.Second))
	for {
		select {
		case <-ctx.Done():
			s.l1.setLive(false)
			return
		case m, ok := <-ch:
			if !ok {
				s.l1.setLive(false)
				return
			}
			switch m := m.(type) {
			case *redis.Subscription:
				s.l1.setLive(m.Kind == "subscribe")
			case *redis.Message:
				if m.Payload == purgeAllMessage {
					s.l1.purgeAll()
				} else if id, err := strconv.ParseInt(m.Payload, 10, 64); err == nil {
					// The name goes too: a renamed item's page moves to
					// its new slug on every instance at once.
					s.l1.purgeItem(id)
					s.catalog.ForgetName(id)
				}
			}
		}
	}
}
