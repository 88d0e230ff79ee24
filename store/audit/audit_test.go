package audit_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"storefront/store/audit"
	"storefront/store/platform"
	"storefront/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func newDB(t *testing.T) *sql.DB {
	t.Helper()
	db := storetest.DB(t)
	if err := platform.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestRecordIsTheTransactions: an entry commits or rolls back with its
// transaction; without an actor nothing is written; unchanged fields are
// left out and a change of nothing writes no entry; List filters by
// actor, kind (or its prefix), time and pages.
func TestRecordIsTheTransactions(t *testing.T) {
	db := newDB(t)
	log := audit.New(db)
	ctx := audit.WithActor(t.Context(), audit.Actor{ID: 1, Name: "Ann", Addr: "192.0.2.1"})
	write := func(ctx context.Context, commit bool, e audit.Entry) {
		t.Helper()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := audit.Record(ctx, tx, e); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	write(ctx, false, audit.Entry{Kind: "item.edit", Target: "item 1", Before: audit.Fields{"price_cents": 1}, After: audit.Fields{"price_cents": 2}})
	write(t.Context(), true, audit.Entry{Kind: "item.edit", Target: "item 1", Before: audit.Fields{"price_cents": 1}, After: audit.Fields{"price_cents": 2}})
	write(ctx, true, audit.Entry{Kind: "item.edit", Target: "item 1", Before: audit.Fields{"price_cents": 5}, After: audit.Fields{"price_cents": 5}})
	if rows, _, err := log.List(t.Context(), audit.Filter{}); err != nil || len(rows) != 0 {
		t.Fatalf("rolled back, actorless or empty changes wrote %d entries (%v)", len(rows), err)
	}
	write(ctx, true, audit.Entry{Kind: "item.edit", Target: "item 1", Before: audit.Fields{"price_cents": 100, "name": "A"},
		After: audit.Fields{"price_cents": 250, "name": "A"}})
	write(ctx, true, audit.Entry{Kind: "refund", Target: "order 3", Before: audit.Fields{"refunded_cents": 0}, After: audit.Fields{"refunded_cents": 900}})
	bob := audit.WithActor(t.Context(), audit.Actor{ID: 2, Name: "Bob"})
	write(bob, true, audit.Entry{Kind: "item.archive", Target: "item 2", After: audit.Fields{"archived": true}})

	rows, more, err := log.List(t.Context(), audit.Filter{Actor: "ann"})
	if err != nil || more || len(rows) != 2 || rows[0].Kind != "refund" || rows[1].Kind != "item.edit" {
		t.Fatalf("Ann's entries: %+v %v %v", rows, more, err)
	}
	if r := rows[1]; r.Before["price_cents"] != float64(100) || r.After["price_cents"] != float64(250) || r.Before["name"] != nil || r.Addr != "192.0.2.1" {
		t.Fatalf("entry %+v", r)
	}
	if rows, _, _ := log.List(t.Context(), audit.Filter{Kind: "item."}); len(rows) != 2 {
		t.Errorf("item. prefix: %d", len(rows))
	}
	if rows, _, _ := log.List(t.Context(), audit.Filter{Kind: "item"}); len(rows) != 0 {
		t.Errorf("kind item exactly: %d", len(rows))
	}
	if rows, _, _ := log.List(t.Context(), audit.Filter{To: time.Now().Add(-time.Hour)}); len(rows) != 0 {
		t.Errorf("an hour ago: %d", len(rows))
	}
	page, more, _ := log.List(t.Context(), audit.Filter{Limit: 2})
	if len(page) != 2 || !more {
		t.Fatalf("first page: %d %v", len(page), more)
	}
	rest, more, _ := log.List(t.Context(), audit.Filter{Limit: 2, BeforeID: page[1].ID})
	if len(rest) != 1 || more || rest[0].ActorName != "Ann" {
		t.Fatalf("second page: %+v %v", rest, more)
	}
}
