package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Service reads the audit log.
type Service struct {
	db *sql.DB
}

// New returns the audit log's reader.
func New(db *sql.DB) *Service { return &Service{db: db} }

// Row is one entry as stored.
type Row struct {
	ID        int64
	At        time.Time
	ActorID   int64
	ActorName string
	Kind      string
	Target    string
	Before    Fields
	After     Fields
	Addr      string
}

// Filter narrows the log: by the actor's name (exact, ignoring case), by
// kind (exact, or a prefix ending in "." such as "item."), by time
// [From, To), and for paging, entries older than BeforeID.
type Filter struct {
	Actor    string
	Kind     string
	From, To time.Time
	BeforeID int64
	Limit    int
}

// List returns the newest entries matching f, newest first, and whether
// there are more (the next page starts before the last row's ID).
func (s *Service) List(ctx context.Context, f Filter) ([]Row, bool, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Actor != "" {
		where = append(where, "LOWER(actor_name) = "+arg(strings.ToLower(f.Actor)))
	}
	if k, ok := strings.CutSuffix(f.Kind, "."); ok && k != "" {
		where = append(where, "kind LIKE "+arg(k+".%"))
	} else if f.Kind != "" {
		where = append(where, "kind = "+arg(f.Kind))
	}
	if !f.From.IsZero() {
		where = append(where, "at >= "+arg(f.From.Unix()))
	}
	if !f.To.IsZero() {
		where = append(where, "at < "+arg(f.To.Unix()))
	}
	if f.BeforeID > 0 {
		where = append(where, "id < "+arg(f.BeforeID))
	}
	q := `SELECT id, at, actor_id, actor_name, kind, target, before_json, after_json, addr FROM audit_log`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY id DESC LIMIT " + arg(f.Limit+1)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, false, fmt.Errorf("audit log: %w", err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		var at int64
		var b, a string
		if err := rows.Scan(&r.ID, &at, &r.ActorID, &r.ActorName, &r.Kind, &r.Target, &b, &a, &r.Addr); err != nil {
			return nil, false, fmt.Errorf("audit log: %w", err)
		}
		r.At = time.Unix(at, 0).UTC()
		_ = json.Unmarshal([]byte(b), &r.Before)
		_ = json.Unmarshal([]byte(a), &r.After)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("audit log: %w", err)
	}
	more := len(out) > f.Limit
	if more {
		out = out[:f.Limit]
	}
	return out, more, nil
}
