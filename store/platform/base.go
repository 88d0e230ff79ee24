package platform

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"

	"github.com/redis/go-redis/v9"
)

// Base is what every domain service is built on: the wiring makes one and
// hands it to each service's constructor, so that they share the clients,
// the clock (tests move it for all of them at once), the reader and this
// instance's name.
type Base struct {
	Redis redis.UniversalClient
	DB    *sql.DB
	// DBKind is DBSQLite or DBPostgres.
	DBKind string
	Log    *slog.Logger
	Clock  *Clock
	// Reader reads what many requests share through the client-side
	// cache where there is one.
	Reader *Reader
	// Instance names this process in leases, worker reports and samples.
	Instance string
}

// NewBase returns the base over open clients, with the real clock and a
// fresh instance name.
func NewBase(rdb redis.UniversalClient, db *sql.DB, log *slog.Logger) Base {
	clock := &Clock{}
	host, _ := os.Hostname()
	return Base{
		Redis: rdb, DB: db, DBKind: KindOf(db), Log: log, Clock: clock,
		Reader: NewReader(rdb, clock), Instance: host + "-" + RandomHex(4),
	}
}

// Ping checks that Redis and the database answer, for /readyz.
func (b Base) Ping(ctx context.Context) error {
	if err := b.Redis.Ping(ctx).Err(); err != nil {
		return errors.Join(ErrUnavailable, err)
	}
	if err := b.DB.PingContext(ctx); err != nil {
		return errors.Join(ErrUnavailable, err)
	}
	return nil
}
