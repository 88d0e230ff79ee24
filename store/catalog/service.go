package catalog

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"sync"

	"github.com/redis/go-redis/v9"

	"storefront/store/platform"
	"storefront/store/workers"
)

// Service is the catalog.
type Service struct {
	rdb   redis.UniversalClient
	db    *sql.DB
	log   *slog.Logger
	clock *platform.Clock
	// reader reads the row cache through the client-side cache.
	reader *platform.Reader
	host   *workers.Host
	names  *nameCache
	// buyable is what the header's cart count knows of items (BuyableCount).
	buyable *buyableCache
	// listeners hear of every committed item change (OnChange).
	listeners []func(context.Context, Change) error
	// importing is held by this instance's one import run at a time:
	// imports take turns anyway (one write lock), and a second run
	// waiting for the first would only run into SQLite's busy timeout.
	importing sync.Mutex
	// removeTx delete what other domains keep of items being removed.
	removeTx []func(context.Context, *sql.Tx, []int64) error
}

// New returns the catalog over the shared base.
func New(b platform.Base, host *workers.Host) *Service {
	return &Service{rdb: b.Redis, db: b.DB, log: b.Log, clock: b.Clock, reader: b.Reader, host: host, names: platform.NewMemo[int64, string](nameCacheMax),
		buyable: platform.NewMemo[int64, buyableEntry](buyableMax)}
}

// Workers returns the catalog's background loops: the row cache
// refresher, which runs on every instance, and the imports worker, which
// runs queued catalog imports on one instance at a time.
func (s *Service) Workers() []workers.Worker {
	return []workers.Worker{&rowCacheWorker{s: s}, s.ImportsWorker()}
}

// Change is a committed change of items.
type Change struct {
	IDs []int64
	// Search says the change is one a search can see: text, category,
	// price, on sale or not, in stock or not (an edit, an archive, a
	// sale that emptied the stock). A new picture or review, or a sale
	// that leaves stock, is not.
	Search bool
}

// OnChange registers a listener for item changes; the wiring registers
// the page cache and search before the shop serves. A listener runs in
// the request that made the change, after it committed, and returns its
// failure (the change itself stands).
func (s *Service) OnChange(f func(context.Context, Change) error) {
	s.listeners = append(s.listeners, f)
}

// Changed announces a committed change of items: their row-cache copies
// are dropped at once (the next refresh reads the database), a change a
// search can see forgets their names here, and every listener hears of it.
// It returns the failures joined; the change itself stands.
func (s *Service) Changed(ctx context.Context, c Change) error {
	if len(c.IDs) == 0 {
		return nil
	}
	s.buyable.Forget(c.IDs...)
	if c.Search {
		for _, id := range c.IDs {
			s.names.Forget(id)
		}
	}
	pipe := s.rdb.Pipeline()
	s.AddForgetRows(ctx, pipe, c.IDs)
	_, err := pipe.Exec(ctx)
	errs := []error{platform.WrapErr("item changed: row cache", err)}
	for _, f := range s.listeners {
		errs = append(errs, f(ctx, c))
	}
	return errors.Join(errs...)
}
