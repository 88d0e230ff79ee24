package stats

import (
	"database/sql"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"storefront/store/catalog"
	"storefront/store/platform"
	"storefront/store/workers"
)

// Service is the admin's numbers.
type Service struct {
	rdb      redis.UniversalClient
	db       *sql.DB
	dbKind   string
	log      *slog.Logger
	clock    *platform.Clock
	instance string
	opt      Options
	host     *workers.Host
	catalog  *catalog.Service
	// workers are the shop's background workers, whose reports the
	// dashboard shows (SetWorkers).
	workers []workers.Worker
}

// Options are the statistics' knobs.
type Options struct {
	// RedisMode is how the shop reaches Redis (platform.ModeSingle, ...),
	// as the dashboard shows it.
	RedisMode string
	// StatsInterval is how often the sampler records the shared counters
	// (0 takes 10 s; tests set small values).
	StatsInterval time.Duration
	// KeyspaceScanInterval is how often the keyspace is scanned for cached
	// pages and carts (0 takes a minute).
	KeyspaceScanInterval time.Duration
}

// New returns the statistics; the dashboard's scheduled rows come from
// the catalog.
func New(b platform.Base, opt Options, host *workers.Host, cat *catalog.Service) *Service {
	if opt.StatsInterval <= 0 {
		opt.StatsInterval = DefaultInterval
	}
	if opt.KeyspaceScanInterval <= 0 {
		opt.KeyspaceScanInterval = DefaultScanInterval
	}
	return &Service{rdb: b.Redis, db: b.DB, dbKind: b.DBKind, log: b.Log, clock: b.Clock, instance: b.Instance,
		opt: opt, host: host, catalog: cat}
}

// Workers returns the sampler, which runs on one instance at a time.
func (s *Service) Workers() []workers.Worker { return []workers.Worker{s.statsWorker()} }

// Collectors are the series the statistics export: the connection pool's
// and the numbers shared by all instances, read at scrape time.
func (s *Service) Collectors() []prometheus.Collector {
	return []prometheus.Collector{poolCollector{s.rdb}, sharedCollector{s}}
}
