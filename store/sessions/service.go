package sessions

import (
	"context"
	"database/sql"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"storefront/store/cart"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/ratelimit"
	"storefront/store/workers"
)

// Service is the sessions and the accounts.
type Service struct {
	rdb     redis.UniversalClient
	db      *sql.DB
	log     *slog.Logger
	clock   *platform.Clock
	reader  *platform.Reader
	opt     Options
	limiter *ratelimit.Limiter
	carts   *cart.Service
	host    *workers.Host
	// capped holds client addresses over the cap of new sessions (cap.go).
	capped *platform.Memo[string, time.Time]
	// gone holds tokens found gone behind the request (gone.go).
	gone goneTokens
	// dummyHash is a password hash at this service's cost, compared
	// against for unknown usernames (see Authenticate).
	dummyHash func() []byte
	// evictedTotal counts the sessions this instance's cleanup evicted.
	evictedTotal prometheus.Counter
	// tokenTx are the listeners that email a new link (OnTokenTx).
	tokenTx []func(ctx context.Context, tx *sql.Tx, m TokenMail) error
}

// Options are the sessions' knobs.
type Options struct {
	// SessionLimit is how many sessions the cleanup keeps (SESSION_LIMIT).
	SessionLimit int64
	// ViewedPerSession is how many recently viewed items a session keeps
	// (VIEWED_PER_SESSION).
	ViewedPerSession int64
	// PasswordCost is bcrypt's cost (0 takes bcrypt.DefaultCost; tests
	// use the minimum).
	PasswordCost int
	// SessionRate caps the new guest sessions one client address may make
	// (SESSION_RATE); empty: no cap.
	SessionRate ratelimit.Rate
}

// New returns the sessions and accounts; sign-in merges carts through
// carts, the session cap counts through limiter.
func New(b platform.Base, opt Options, limiter *ratelimit.Limiter, carts *cart.Service, host *workers.Host) *Service {
	if opt.PasswordCost <= 0 {
		opt.PasswordCost = bcrypt.DefaultCost
	}
	s := &Service{
		rdb: b.Redis, db: b.DB, log: b.Log, clock: b.Clock, reader: b.Reader, opt: opt, limiter: limiter, carts: carts, host: host,
		capped: platform.NewMemo[string, time.Time](cappedAddrsMax),
		evictedTotal: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "storefront_sessions_evicted_total",
			Help: "Sessions evicted by the cleanup worker of this instance.",
		}),
	}
	s.dummyHash = sync.OnceValue(s.makeDummyHash)
	go s.dummyHash() // ready before the first sign-in with an unknown name
	return s
}

// Workers returns the session cleanup, which runs on one instance at a
// time.
func (s *Service) Workers() []workers.Worker { return []workers.Worker{s.cleanupWorker()} }

// Collectors are the sessions' Prometheus series: the number of sessions
// (read from Redis at scrape time) and the evictions made here.
func (s *Service) Collectors() []prometheus.Collector {
	sessions := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "storefront_sessions",
		Help: "Sessions in Redis (ZCARD recent:).",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		n, err := s.rdb.ZCard(ctx, keys.Recent).Result()
		if err != nil {
			return math.NaN()
		}
		return float64(n)
	})
	return []prometheus.Collector{sessions, s.evictedTotal}
}
