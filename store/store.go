// Package store owns the shop's data: Redis (sessions, carts, caches,
// analytics, articles, engagement) and SQL (catalog, accounts, orders).
// It speaks domain errors and never imports the HTTP layer.
package store

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// Domain errors that handlers map to statuses.
var (
	ErrNotFound    = errors.New("not found")
	ErrUnavailable = errors.New("service unavailable")
	ErrConflict    = errors.New("already exists")
	ErrOutOfStock  = errors.New("out of stock")
	ErrInvalid     = errors.New("invalid")
)

// Options are the knobs the data layer needs.
type Options struct {
	RedisMode        string
	SessionLimit     int64
	ViewedPerSession int64
	PageCacheTTL     time.Duration
	PageCacheTop     int64
	ViewedKeep       int64
	RescaleInterval  time.Duration
	GroupCacheTTL    time.Duration
	VoteWindow       time.Duration
	VoteScore        int64
	PasswordCost     int // bcrypt cost; 0 means the library default (tests use the minimum)
	// Engagement: 0 means the default of engage.go.
	FeedSize     int64         // entries kept per feed
	FeedTTL      time.Duration // a feed nobody reads for this long expires
	FanOutInline int           // followers a post reaches before the request returns
	FanOutChunk  int           // followers one background fan-out step reaches
	// SeedArticles adds demo articles, voters and comments to an empty
	// board (main turns it on; tests that want them opt in).
	SeedArticles bool
	// Fulfilment queue tuning; zero takes the Default* values in fulfilment.go.
	OrderVisibility time.Duration // a taken order not acknowledged within this goes to another worker
	OrderSweepAge   time.Duration // orders pending longer than this are fulfilled from the database
	OrderPoll       time.Duration // how long a worker waits for new orders per poll
	// Admin dashboard: how often the stats worker samples the shared
	// counters (default 10s) and scans the keyspace for cached pages and
	// carts (default 1m). Tests set small values.
	StatsInterval        time.Duration
	KeyspaceScanInterval time.Duration
}

// Store is the data layer: one Redis client (single node, Cluster or
// embedded) and one SQL database (SQLite or PostgreSQL).
type Store struct {
	rdb      redis.UniversalClient
	db       *sql.DB
	dbKind   string
	opt      Options
	log      *slog.Logger
	instance string
	now      func() time.Time
	workers  []Worker
	seeders  []func(context.Context) error
	// collectors are the store's Prometheus series.
	collectors []prometheus.Collector
	// articles is the article board's state (articles.go).
	articles articleState
	orders   *orderState
	pages    *pageCache

	// evictedTotal counts the sessions this instance's cleanup evicted.
	evictedTotal prometheus.Counter
	// dummyHash is a password hash at this store's cost, compared against
	// for unknown usernames (see Authenticate).
	dummyHash func() []byte
	// admin is the dashboard's statistics state (admin.go).
	admin *adminState
}

// Worker is a background loop that runs until ctx is cancelled.
type Worker interface {
	Name() string
	Run(ctx context.Context)
}

// New returns a Store over an open Redis client and database.
func New(rdb redis.UniversalClient, db *sql.DB, opt Options, log *slog.Logger) *Store {
	host, _ := os.Hostname()
	s := &Store{
		rdb:      rdb,
		db:       db,
		dbKind:   dbKindOf(db),
		opt:      opt,
		log:      log,
		instance: host + "-" + randomHex(4),
		now:      time.Now,
		evictedTotal: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "storefront_sessions_evicted_total",
			Help: "Sessions evicted by the cleanup worker of this instance.",
		}),
	}
	s.workers = append(s.workers, &fanOutWorker{s: s})
	s.initArticles()
	s.articles.events = engagementEvents{s: s}
	s.initOrders()
	s.initPageCache() // page cache, row cache and view analytics
	s.initLikeVisits()
	s.dummyHash = sync.OnceValue(s.makeDummyHash)
	go s.dummyHash() // ready before the first sign-in with an unknown name
	s.workers = append(s.workers, cleanupWorker{s})
	s.collectors = append(s.collectors, s.sessionCollectors()...)
	s.initAdmin()
	return s
}

// Redis returns the client, for tests and the admin dashboard.
func (s *Store) Redis() redis.UniversalClient { return s.rdb }

// DB returns the database handle.
func (s *Store) DB() *sql.DB { return s.db }

// DBKind is "sqlite" or "postgres".
func (s *Store) DBKind() string { return s.dbKind }

// Options returns the knobs in force.
func (s *Store) Options() Options { return s.opt }

// Instance names this process in leases and worker reports.
func (s *Store) Instance() string { return s.instance }

// SetClock replaces the clock; tests use it to move time.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Workers returns the background loops that main starts and stops.
func (s *Store) Workers() []Worker { return s.workers }

// Ping checks that Redis and the database answer, for /readyz.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return errors.Join(ErrUnavailable, err)
	}
	if err := s.db.PingContext(ctx); err != nil {
		return errors.Join(ErrUnavailable, err)
	}
	return nil
}

// nowSeconds is the current time as fractional Unix seconds, the unit of
// every time-ordered sorted set (sub-second precision, as DESIGN §8 asks).
func (s *Store) nowSeconds() float64 {
	return float64(s.now().UnixMicro()) / 1e6
}
