package mail_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"storefront/store/mail"
	"storefront/store/storetest"
)

// flakyDB is the outbox's database with its connection dropped for the
// next failing writes that mark an outbox row: each of them fails as a
// reset connection does, without reaching the database.
type flakyDB struct {
	mail.Database
	failing atomic.Int32
	failed  atomic.Int32
}

func (f *flakyDB) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if strings.HasPrefix(q, "UPDATE outbox SET status") && f.failing.Add(-1) >= 0 {
		f.failed.Add(1)
		return nil, errors.New("read tcp 127.0.0.1:5432: connection reset by peer")
	}
	return f.Database.ExecContext(ctx, q, args...)
}

// TestDeliveredMarkedSentThroughADroppedConnection: the server takes a
// message and the database connection drops as the outbox marks it sent.
// The outbox tries the record again: the message is sent (not failed as
// interrupted, not queued under a claim), and it is never sent twice, even
// once its claim would have expired.
func TestDeliveredMarkedSentThroughADroppedConnection(t *testing.T) {
	srv := startSMTP(t)
	b := storetest.Base(t)
	s := newOutbox(t, b, srv.url())
	db := &flakyDB{Database: b.DB}
	s.UseDatabase(db)
	srv.onTaken(func(received) { db.failing.Store(3) })
	ids := enqueue(t, b.DB, s, 1, "dropped")

	s.PassWithoutLease(t.Context())
	e, err := s.Entry(t.Context(), ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if db.failed.Load() != 3 {
		t.Fatalf("%d writes failed, want the fault's 3", db.failed.Load())
	}
	if e.Status != mail.StatusSent || e.SentAt.IsZero() || e.Attempts != 1 {
		t.Fatalf("a delivered message after a dropped connection: %+v", e)
	}

	// Later passes, past the time its claim would have lasted, change
	// nothing and send nothing.
	b.Clock.Set(func() time.Time { return time.Now().Add(time.Hour) })
	s.PassWithoutLease(t.Context())
	if e, _ := s.Entry(t.Context(), ids[0]); e.Status != mail.StatusSent {
		t.Fatalf("later: %s (%s)", e.Status, e.LastError)
	}
	if n := len(srv.messages()); n != 1 {
		t.Fatalf("the server took %d messages, want 1", n)
	}
}
