package platform_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"

	"storefront/store/platform"
)

func TestIsUnavailable(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("list items: %w", err) }
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"not found", platform.ErrNotFound, false},
		{"invalid", fmt.Errorf("cart: %w", platform.ErrInvalid), false},
		{"a bug", errors.New("template: no such field"), false},
		{"unavailable", wrap(platform.ErrUnavailable), true},
		{"deadline", wrap(context.DeadlineExceeded), true},
		{"dial refused", wrap(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), true},
		{"reset", wrap(syscall.ECONNRESET), true},
		{"broken pipe", wrap(syscall.EPIPE), true},
		{"unexpected EOF", wrap(io.ErrUnexpectedEOF), true},
		{"redis closed", wrap(redis.ErrClosed), true},
		{"redis pool timeout", wrap(redis.ErrPoolTimeout), true},
		{"cluster down", wrap(errors.New("CLUSTERDOWN The cluster is down")), true},
		{"loading", wrap(errors.New("LOADING Redis is loading the dataset in memory")), true},
		{"failover", wrap(errors.New("READONLY You can't write against a read only replica.")), true},
		{"busy script", wrap(errors.New("BUSY Redis is busy running a script.")), true},
		{"bad conn", wrap(driver.ErrBadConn), true},
		{"pg admin shutdown", wrap(&pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}), true},
		{"pg starting up", wrap(&pgconn.PgError{Severity: "FATAL", Code: "57P03", Message: "the database system is starting up"}), true},
		{"pg connection failure", wrap(&pgconn.PgError{Code: "08006"}), true},
		{"pg too many connections", wrap(&pgconn.PgError{Code: "53300"}), true},
		{"pg unique violation", wrap(&pgconn.PgError{Code: "23505", Message: "duplicate key"}), false},
		{"pg syntax error", wrap(&pgconn.PgError{Code: "42601"}), false},
		{"sqlite busy", wrap(errors.New("database is locked (5) (SQLITE_BUSY)")), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := platform.IsUnavailable(tc.err); got != tc.want {
				t.Errorf("IsUnavailable(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
