package platform

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
)

// Domain errors: every domain returns these (wrapped with the operation's
// name where useful), and the HTTP layer maps them to statuses.
var (
	ErrNotFound    = errors.New("not found")
	ErrUnavailable = errors.New("service unavailable")
	ErrConflict    = errors.New("already exists")
	ErrOutOfStock  = errors.New("out of stock")
	ErrInvalid     = errors.New("invalid")
	// ErrGone means the item was archived: off sale, its page answers 410.
	ErrGone = errors.New("gone")
	// ErrBanned means the account was banned by an admin: it cannot sign
	// in, and its checkouts are refused.
	ErrBanned = errors.New("account banned")
)

// IsUnavailable reports whether err means Redis or the database could not
// be reached or could not serve just now (as opposed to a bug), so that
// handlers answer 503 with Retry-After instead of 500.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redis.ErrClosed) ||
		errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, ErrUnavailable) {
		return true
	}
	// PostgreSQL going away: a connection that could not be made, or the
	// server ending it (a shutdown or restart: SQLSTATE 57P01-57P03, class
	// 08 connection exceptions, 53300 too many connections). Found by
	// TestPostgresOutage: "terminating connection due to administrator
	// command" was a 500.
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.Timeout(err) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") || pe.Code == "53300"
	}
	msg := err.Error()
	for _, s := range unavailableMessages {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// unavailableMessages are error texts of servers that cannot serve just
// now: Redis replies (a Cluster re-sharding or failing over, a replica
// promoted, a server loading its data, out of memory or busy with a
// script) and connection failures that reach us only as text.
var unavailableMessages = []string{
	"CLUSTERDOWN", "LOADING", "TRYAGAIN", "MASTERDOWN", "READONLY", "BUSY ", "OOM ",
	"connection refused", "broken pipe", "i/o timeout", "connection reset", "EOF", "pool timeout",
	"database is locked", "the database system is", "bad connection", "conn closed",
}
