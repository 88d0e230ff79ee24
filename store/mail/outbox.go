package mail

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"storefront/store/platform"
)

// Entry is one outbox row: a message as it was (or would be) sent.
type Entry struct {
	ID        int64
	MessageID string // without angle brackets
	Kind      string
	To, From  string
	Subject   string
	Text      string
	HTML      string
	Status    string
	Attempts  int
	NextAt    time.Time // the next attempt, while queued
	LastError string
	CreatedAt time.Time // also the message's Date
	SentAt    time.Time // zero unless sent
	Link      int64     // the single-use link whose token is made at sending (Message.Link), 0 for none
}

const entryColumns = `id, message_id, kind, to_addr, from_addr, subject, text_body, html_body, status, attempts, next_at,
	last_error, created_at, sent_at, link_ref`

func scanEntry(sc interface{ Scan(...any) error }) (Entry, error) {
	var e Entry
	var next, created int64
	var sent sql.NullInt64
	err := sc.Scan(&e.ID, &e.MessageID, &e.Kind, &e.To, &e.From, &e.Subject, &e.Text, &e.HTML, &e.Status, &e.Attempts,
		&next, &e.LastError, &created, &sent, &e.Link)
	e.NextAt, e.CreatedAt = time.UnixMilli(next), time.UnixMilli(created)
	if sent.Valid {
		e.SentAt = time.UnixMilli(sent.Int64)
	}
	return e, err
}

// Entry reads one outbox row (platform.ErrNotFound if there is none).
func (s *Service) Entry(ctx context.Context, id int64) (Entry, error) {
	e, err := scanEntry(s.db.QueryRowContext(ctx, `SELECT `+entryColumns+` FROM outbox WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, platform.ErrNotFound
	}
	if err != nil {
		return Entry{}, fmt.Errorf("outbox %d: %w", id, err)
	}
	return e, nil
}

// Entries returns a page of the outbox, newest first, and how many rows
// it holds.
func (s *Service) Entries(ctx context.Context, limit, offset int) ([]Entry, int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox`).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("outbox: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+entryColumns+` FROM outbox ORDER BY id DESC LIMIT $1 OFFSET $2`, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("outbox: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("outbox: %w", err)
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// ErrNotSending: without SMTP_URL the outbox sends nothing, so nothing can
// be sent again.
var ErrNotSending = errors.New("no SMTP_URL is set: messages are kept, not sent")

// Resend puts a failed message back in the queue, due now, its attempts
// counted afresh (the admin's "send again": a delivery that may have
// arrived was failed rather than risk sending it twice, and the admin
// decides). A message that is not failed is left as it is, so sending
// again twice queues it once: resent reports whether this call queued it.
// A message with a single-use link gets a new token when it is sent,
// which voids the one a possible earlier delivery carried.
func (s *Service) Resend(ctx context.Context, id int64) (e Entry, resent bool, err error) {
	if !s.Sends() {
		return Entry{}, false, ErrNotSending
	}
	res, err := s.db.ExecContext(ctx, `UPDATE outbox SET status = $1, attempts = 0, next_at = $2, last_error = '', claimed_until = NULL
		WHERE id = $3 AND status = $4`, StatusQueued, s.clock.Now().UnixMilli(), id, StatusFailed)
	if err != nil {
		return Entry{}, false, fmt.Errorf("outbox %d: send again: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return Entry{}, false, fmt.Errorf("outbox %d: send again: %w", id, err)
	}
	e, err = s.Entry(ctx, id)
	return e, n == 1, err
}
