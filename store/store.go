// Package store owns the shop's data: Redis (sessions, carts, caches,
// analytics, articles, engagement) and SQL (catalog, accounts, orders).
// It speaks domain errors and never imports the HTTP layer.
package store

import (
	"context"
	"database/sql"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"storefront/store/analytics"
	"storefront/store/board"
	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/media"
	"storefront/store/notify"
	"storefront/store/orders"
	"storefront/store/pagecache"
	"storefront/store/platform"
	"storefront/store/ratelimit"
	"storefront/store/reviews"
	"storefront/store/search"
	"storefront/store/seed"
	"storefront/store/sessions"
	"storefront/store/social"
	"storefront/store/stats"
	"storefront/store/workers"
)

// Options are the knobs the data layer needs.
type Options struct {
	RedisMode        string
	SessionLimit     int64
	ViewedPerSession int64
	PageCacheTTL     time.Duration
	// PageCacheTop: only items ranked below this in views are cached.
	PageCacheTop    int64
	ViewedKeep      int64
	RescaleInterval time.Duration
	GroupCacheTTL   time.Duration
	VoteWindow      time.Duration
	VoteScore       int64
	// Tuning knobs below: 0 takes the default (see withDefaults).
	PasswordCost int           // bcrypt cost (tests use the minimum)
	FeedSize     int64         // entries kept per feed
	FeedTTL      time.Duration // a feed nobody reads for this long expires
	FanOutInline int           // followers a post reaches before the request returns
	FanOutChunk  int           // followers one background fan-out step reaches
	// SeedArticles adds demo articles, voters and comments to an empty
	// board (main turns it on; tests that want them opt in).
	SeedArticles bool
	// SeedImages gives demo items generated pictures (main turns it on;
	// tests that want them opt in).
	SeedImages bool
	// DemoPictureCacheDir, if set, is a directory where the generated
	// demo pictures are kept for the next start of the same program (see
	// demoPictures): drawing them is most of a first start's work.
	DemoPictureCacheDir string
	// Fulfilment queue tuning.
	OrderVisibility time.Duration // a taken order not acknowledged within this goes to another worker
	OrderSweepAge   time.Duration // orders pending longer than this are fulfilled from the database
	OrderPoll       time.Duration // how long a worker waits for new orders per poll
	// Admin dashboard: how often the stats worker samples the shared
	// counters (default 10s) and scans the keyspace for cached pages and
	// carts (default 1m). Tests set small values.
	StatsInterval        time.Duration
	KeyspaceScanInterval time.Duration
	// PageL1Bytes bounds the in-process copy of cached pages (0 takes
	// DefaultPageL1Bytes, negative turns it off); WriteBehind is how often
	// the buffered writes of page cache hits are flushed (0 takes
	// DefaultWriteBehind).
	PageL1Bytes int64
	WriteBehind time.Duration
	// SearchCacheBytes bounds the in-process cache of search results (0
	// takes search.DefaultCacheBytes, negative turns it off).
	SearchCacheBytes int64
	// AccountCartTTL is how long a signed-in account's cart is kept
	// without use (0 = cart.DefaultAccountTTL).
	AccountCartTTL time.Duration
	// Shipping prices the checkout's delivery methods (nil =
	// DefaultShipping).
	Shipping *orders.ShippingRates
	// SessionRate caps the new guest sessions one client address may make
	// (SESSION_RATE); empty: no cap.
	SessionRate ratelimit.Rate
}

// withDefaults fills every tuning knob left at zero with its default, once,
// where the store is built; the rest of the store reads s.opt directly.
func (o Options) withDefaults() Options {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if o.PasswordCost <= 0 {
		o.PasswordCost = bcrypt.DefaultCost
	}
	def(&o.AccountCartTTL, cart.DefaultAccountTTL)
	if o.Shipping == nil {
		rates := orders.DefaultShipping
		o.Shipping = &rates
	}
	return o
}

// Store is the data layer: one Redis client (single node, Cluster or
// embedded) and one SQL database (SQLite or PostgreSQL).
// Catalog is the catalog service, embedded in Store while the domains move out.
type Catalog = catalog.Service

// Pictures is the pictures service, embedded in Store while the domains move out.
type Pictures = media.Service

// Analytics is the view analytics, embedded in Store while the domains move out.
type Analytics = analytics.Service

// Searcher is the catalog search, embedded in Store while the domains move out.
type Searcher = search.Service

// Notifier is the notifications, embedded in Store while the domains move out.
type Notifier = notify.Service

// Carts is the carts, embedded in Store while the domains move out.
type Carts = cart.Service

// Sessions is the sessions and accounts, embedded in Store while the domains move out.
type Sessions = sessions.Service

// Reviews is the reviews, embedded in Store while the domains move out.
type Reviews = reviews.Service

// Board is the article board, embedded in Store while the domains move out.
type Board = board.Service

// Social is the social side, embedded in Store while the domains move out.
type Social = social.Service

// Pages is the page cache, embedded in Store while the domains move out.
type Pages = pagecache.Service

// Statistics is the admin's numbers, embedded in Store while the domains move out.
type Statistics = stats.Service

// Sales is the orders service, embedded in Store while the domains move out.
type Sales = orders.Service

type Store struct {
	*Catalog
	*Statistics
	*Pages
	*Sales
	*Social
	*Board
	*Reviews
	*Sessions
	*Carts
	*Notifier
	*Searcher
	*Analytics
	*Pictures
	*ratelimit.Limiter
	rdb      redis.UniversalClient
	db       *sql.DB
	dbKind   string
	opt      Options
	log      *slog.Logger
	instance string
	clock    *platform.Clock
	// sharedReader is the domains' reader through the client-side cache.
	sharedReader *platform.Reader
	host         *workers.Host
	seeder       *seed.Service
	workers      []workers.Worker
	// collectors are the store's Prometheus series.
	collectors []prometheus.Collector
}

// New returns a Store over an open Redis client and database.
func New(rdb redis.UniversalClient, db *sql.DB, opt Options, log *slog.Logger) *Store {
	host, _ := os.Hostname()
	s := &Store{
		rdb:      rdb,
		db:       db,
		dbKind:   platform.KindOf(db),
		opt:      opt.withDefaults(),
		log:      log,
		instance: host + "-" + platform.RandomHex(4),
		clock:    &platform.Clock{},
	}
	s.sharedReader = platform.NewReader(rdb, s.clock)
	base := platform.Base{Redis: rdb, DB: db, DBKind: s.dbKind, Log: log, Clock: s.clock, Reader: s.sharedReader, Instance: s.instance}
	s.host = workers.NewHost(base)
	s.Limiter = ratelimit.New(base)
	s.Catalog = catalog.New(base, s.host)
	s.Pictures = media.New(base, s.Catalog)
	s.Notifier = notify.New(base)
	s.Carts = cart.New(base, s.opt.AccountCartTTL)
	s.Sessions = sessions.New(base, sessions.Options{SessionLimit: s.opt.SessionLimit, ViewedPerSession: s.opt.ViewedPerSession,
		PasswordCost: s.opt.PasswordCost, SessionRate: s.opt.SessionRate}, s.Limiter, s.Carts, s.host)
	s.Analytics = analytics.New(base, s.host, analytics.Options{ViewedKeep: s.opt.ViewedKeep, RescaleInterval: s.opt.RescaleInterval})
	s.Searcher = search.New(base, search.Options{CacheBytes: s.opt.SearchCacheBytes}, s.Catalog, s.Analytics)
	s.Catalog.OnChange(s.Searcher.ItemsChanged)
	s.Board = board.New(base, board.Options{VoteWindow: s.opt.VoteWindow, VoteScore: s.opt.VoteScore, GroupCacheTTL: s.opt.GroupCacheTTL})
	s.Social = social.New(base, social.Options{FeedSize: s.opt.FeedSize, FeedTTL: s.opt.FeedTTL, FanOutInline: s.opt.FanOutInline,
		FanOutChunk: s.opt.FanOutChunk}, s.host, s.Notifier, s.Sessions)
	s.Board.SetEvents(s.Social.BoardEvents())
	s.Sales = orders.New(base, orders.Options{Shipping: *s.opt.Shipping, OrderVisibility: s.opt.OrderVisibility,
		OrderSweepAge: s.opt.OrderSweepAge, OrderPoll: s.opt.OrderPoll}, s.host, s.Catalog, s.Carts)
	s.Sales.OnPlaced(analytics.AddBoughtTogether)
	s.Sales.OnStatus(s.Notifier.NotifyOrder)
	s.Reviews = reviews.New(base, s.Catalog)
	s.Pages = pagecache.New(base, pagecache.Options{TTL: s.opt.PageCacheTTL, Top: s.opt.PageCacheTop, L1Bytes: s.opt.PageL1Bytes,
		WriteBehind: s.opt.WriteBehind, ViewedPerSession: s.opt.ViewedPerSession},
		pagecache.Deps{Catalog: s.Catalog, Media: s.Pictures, Reviews: s.Reviews, Sessions: s.Sessions})
	s.Catalog.OnChange(s.Pages.ItemsChanged)
	s.Pages.OnPurgeAll(s.Searcher.AllChanged)
	s.Reviews.SetPurgeEpoch(s.Pages.PurgeEpoch)
	s.seeder = seed.New(base, seed.Options{Articles: s.opt.SeedArticles, Pictures: s.opt.SeedImages, PictureCacheDir: s.opt.DemoPictureCacheDir},
		seed.Deps{Catalog: s.Catalog, Media: s.Pictures, Sessions: s.Sessions, Board: s.Board, Social: s.Social})
	s.Statistics = stats.New(base, stats.Options{RedisMode: s.opt.RedisMode, StatsInterval: s.opt.StatsInterval,
		KeyspaceScanInterval: s.opt.KeyspaceScanInterval}, s.host, s.Catalog)
	// Every background loop main starts and stops, and every metric the
	// store exports, in one place.
	s.workers = []workers.Worker{
		s.Social.Workers()[0],     // spreads new posts to followers' feeds
		s.Sales.Workers()[0],      // fulfils queued orders
		s.Analytics.Workers()[0],  // rescales item view counts
		s.Catalog.Workers()[0],    // refreshes cached item rows
		s.Sessions.Workers()[0],   // evicts the oldest sessions
		s.Statistics.Workers()[0], // samples the dashboard's counters
	}
	s.collectors = append(s.Pages.Collectors(), s.Sessions.Collectors()...)
	s.collectors = append(s.collectors, s.Board.Collectors()...)
	s.collectors = append(s.collectors, s.Sales.Collectors()...)
	s.collectors = append(s.collectors, s.host.Collector())
	s.collectors = append(s.collectors, s.Statistics.Collectors()...)
	s.Statistics.SetWorkers(s.workers)
	return s
}

// Redis returns the client, for tests and the admin dashboard.
func (s *Store) Redis() redis.UniversalClient { return s.rdb }

// DB returns the database handle.
func (s *Store) DB() *sql.DB { return s.db }

// DBKind is "sqlite" or "postgres".
func (s *Store) DBKind() string { return s.dbKind }

// Options returns the knobs in force, defaults filled in.
func (s *Store) Options() Options { return s.opt }

// Instance names this process in leases and worker reports.
func (s *Store) Instance() string { return s.instance }

// SetClock replaces the clock; tests use it to move time.
func (s *Store) SetClock(now func() time.Time) { s.clock.Set(now) }

// Workers returns the background loops that main starts and stops.
func (s *Store) Workers() []workers.Worker { return s.workers }

// Ping checks that Redis and the database answer, for /readyz.
func (s *Store) Ping(ctx context.Context) error {
	return platform.Base{Redis: s.rdb, DB: s.db}.Ping(ctx)
}

// Migrate applies the embedded migrations that have not run yet.
func (s *Store) Migrate(ctx context.Context) error { return platform.Migrate(ctx, s.db) }

// LeaseHolder says which instance holds a worker's lease, for the dashboard.
func (s *Store) LeaseHolder(ctx context.Context, name string) (string, error) {
	return s.host.Holder(ctx, name)
}

// WorkerStatus reads a worker's last report.
func (s *Store) WorkerStatus(ctx context.Context, name string) (workers.Status, error) {
	return s.host.Status(ctx, name)
}

// WorkerStatuses reads the last report of every background worker.
func (s *Store) WorkerStatuses(ctx context.Context) ([]workers.Status, error) {
	var names []string
	for _, w := range s.workers {
		names = append(names, w.Name())
	}
	return s.host.Statuses(ctx, names)
}

// UseClientSideCache gives the store a client with client-side caching for
// the reads of shared data and cached pages' holes (see RedisConn.Cached).
func (s *Store) UseClientSideCache(c *redis.Client) { s.sharedReader.UseCache(c) }

// Collectors returns the store's Prometheus series for /metrics.
func (s *Store) Collectors() []prometheus.Collector { return s.collectors }

// SeedDemo fills an empty shop with the demo data (see seed.Service.Demo).
func (s *Store) SeedDemo(ctx context.Context, adminPassword string) (string, error) {
	return s.seeder.Demo(ctx, adminPassword)
}
