package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"storefront/store/audit"
	"storefront/store/platform"
)

// MaxNoteLen is the longest order note, in characters.
const MaxNoteLen = 2000

// ErrNoteText is a note that is empty, too long, or holds characters a
// page cannot show (controls other than new lines and tabs).
var ErrNoteText = errors.New("order note: empty, too long or not text")

// Note is one of the admin's notes on an order.
type Note struct {
	ID     int64
	Author string // the admin's account name
	Body   string
	At     time.Time
}

// CheckNote reports whether body may be an order note: 1 to MaxNoteLen
// characters of UTF-8 text, once trimmed.
func CheckNote(body string) bool {
	body = strings.TrimSpace(body)
	n := utf8.RuneCountInString(body)
	return n >= 1 && n <= MaxNoteLen && utf8.ValidString(body) &&
		!strings.ContainsFunc(body, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f })
}

// AddNote adds author's note to order id: platform.ErrNotFound for a
// missing order, ErrNoteText for a body CheckNote refuses (nothing is
// written either way). The body is kept trimmed.
func (s *Service) AddNote(ctx context.Context, orderID int64, author, body string) (Note, error) {
	if !CheckNote(body) {
		return Note{}, ErrNoteText
	}
	n := Note{Author: author, Body: strings.TrimSpace(body), At: s.clock.Now()}
	err := platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		// The order must exist: the insert reads it in the same statement.
		err := tx.QueryRowContext(ctx, `INSERT INTO order_notes (order_id, author, body, at)
		SELECT id, CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS BIGINT) FROM orders WHERE id = $1 RETURNING id`, orderID, n.Author, n.Body, n.At.Unix()).Scan(&n.ID)
		if err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "order.note", Target: fmt.Sprintf("order %d", orderID),
			After: audit.Fields{"note": n.Body}})
	})
	if errors.Is(err, sql.ErrNoRows) {
		return Note{}, platform.ErrNotFound
	}
	if err != nil {
		return Note{}, fmt.Errorf("order %d: add note: %w", orderID, err)
	}
	n.At = platform.UnixTime(n.At.Unix())
	return n, nil
}

// Notes returns an order's notes, oldest first.
func (s *Service) Notes(ctx context.Context, orderID int64) ([]Note, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, author, body, at FROM order_notes WHERE order_id = $1 ORDER BY id`, orderID)
	if err != nil {
		return nil, fmt.Errorf("order %d: notes: %w", orderID, err)
	}
	defer rows.Close()
	var out []Note
	for rows.Next() {
		var n Note
		var at int64
		if err := rows.Scan(&n.ID, &n.Author, &n.Body, &at); err != nil {
			return nil, fmt.Errorf("order %d: notes: %w", orderID, err)
		}
		n.At = platform.UnixTime(at)
		out = append(out, n)
	}
	return out, rows.Err()
}
