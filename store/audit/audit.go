package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Actor is the staff member a request acts for.
type Actor struct {
	ID   int64
	Name string
	// Addr is the client's address as the HTTP layer read it.
	Addr string
}

type actorKey struct{}

// WithActor returns ctx carrying who acts: every store change made with it
// is recorded.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf is who ctx acts for, if a staff member.
func ActorOf(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok && a.ID > 0
}

// Fields are a change's field values, by field name.
type Fields map[string]any

// Entry is one change: its kind (such as "item.price"), what it was made
// to ("item 12"), and the values of the fields it changed.
type Entry struct {
	Kind   string
	Target string
	Before Fields
	After  Fields
}

// execer is a transaction (or, for changes made in one statement, the
// database).
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Record writes e inside tx for the actor in ctx; without one it writes
// nothing. Fields equal before and after are left out, and an entry whose
// fields all stayed the same is not written (a save that changed nothing).
// An error must roll the change back: the caller returns it.
func Record(ctx context.Context, tx execer, e Entry) error {
	a, ok := ActorOf(ctx)
	if !ok {
		return nil
	}
	before, after := changed(e.Before, e.After)
	if len(e.Before)+len(e.After) > 0 && len(before)+len(after) == 0 {
		return nil
	}
	b, err := json.Marshal(before)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	af, err := json.Marshal(after)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO audit_log (at, actor_id, actor_name, kind, target, before_json, after_json, addr)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, now(ctx), a.ID, a.Name, e.Kind, e.Target, string(b), string(af), a.Addr)
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Kind, err)
	}
	return nil
}

// changed keeps the fields whose values differ (compared as JSON); a field
// only on one side is kept.
func changed(before, after Fields) (Fields, Fields) {
	b, a := Fields{}, Fields{}
	for k, v := range before {
		if w, ok := after[k]; ok && same(v, w) {
			continue
		}
		b[k] = v
	}
	for k, v := range after {
		if w, ok := before[k]; ok && same(v, w) {
			continue
		}
		a[k] = v
	}
	return b, a
}

func same(x, y any) bool {
	bx, err1 := json.Marshal(x)
	by, err2 := json.Marshal(y)
	return err1 == nil && err2 == nil && string(bx) == string(by)
}

func now(context.Context) int64 { return time.Now().Unix() }
