package mail

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"storefront/store/workers"
)

// passBatch is how many due messages one pass takes.
const passBatch = 20

// interrupted is the reason a claim that outlived its worker gives.
const interrupted = "delivery interrupted (the instance stopped while sending): it may have been delivered, so it is not sent again"

// deliverPass fails the claims that outlived their worker, then delivers
// the due messages oldest first until the batch is done, the server is
// unreachable or the pass has run for a send timeout.
func (s *Service) deliverPass(ctx context.Context) (workers.Run, bool) {
	run := workers.Run{Counts: map[string]int64{}}
	n, err := s.failStaleClaims(ctx)
	if err != nil {
		run.Err = err
		return run, false
	}
	run.Counts["interrupted"] = n
	due, err := s.due(ctx)
	if err != nil {
		run.Err = err
		return run, false
	}
	start := time.Now()
	for i, id := range due {
		if ctx.Err() != nil || time.Since(start) > s.opt.SendTimeout {
			return run, true
		}
		res, err := s.deliver(ctx, id)
		if err != nil {
			run.Err = err
			return run, false
		}
		run.Counts[res]++
		if res == "retry" { // the server is away: the rest waits for the next pass
			return run, false
		}
		if i == len(due)-1 && len(due) == passBatch {
			return run, true
		}
	}
	run.Result = fmt.Sprintf("%d sent", run.Counts["sent"])
	return run, false
}

// due returns the ids of queued, unclaimed messages whose time has come.
func (s *Service) due(ctx context.Context) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM outbox WHERE status = $1 AND next_at <= $2 AND claimed_until IS NULL
		ORDER BY next_at, id LIMIT $3`, StatusQueued, s.clock.Now().UnixMilli(), passBatch)
	if err != nil {
		return nil, fmt.Errorf("outbox due: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("outbox due: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// failStaleClaims marks failed the messages whose claim expired: their
// worker stopped between claiming and marking, perhaps after the server
// accepted the message.
func (s *Service) failStaleClaims(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE outbox SET status = $1, last_error = $2, claimed_until = NULL
		WHERE status = $3 AND claimed_until IS NOT NULL AND claimed_until < $4`,
		StatusFailed, interrupted, StatusQueued, s.clock.Now().UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("outbox stale claims: %w", err)
	}
	n, err := res.RowsAffected()
	if n > 0 {
		s.log.Warn("mail: deliveries interrupted, not retried", "count", n)
		s.sent.WithLabelValues("failed").Add(float64(n))
	}
	return n, err
}

// errClaimed means another worker claimed the message first.
var errClaimed = errors.New("claimed by another worker")

// deliver claims message id, sends it once and records the outcome. It
// returns "sent", "retry", "failed" or "skipped" (another worker had it).
// Once claimed, the send and its record finish even if ctx ends: a
// shutdown must not leave a delivered message unmarked.
func (s *Service) deliver(ctx context.Context, id int64) (string, error) {
	claimEnds := time.Now().Add(2 * s.opt.SendTimeout)
	m, err := s.claim(ctx, id)
	if errors.Is(err, errClaimed) {
		return "skipped", nil
	}
	if err != nil {
		return "", err
	}
	ctx = context.WithoutCancel(ctx)
	out, sendErr := s.sendWithLink(ctx, m)
	now := s.clock.Now()
	var q string
	var args []any
	result := "failed"
	switch {
	case out == delivered:
		result = "sent"
		q, args = `UPDATE outbox SET status = $1, sent_at = $2, claimed_until = NULL, last_error = '' WHERE id = $3`,
			[]any{StatusSent, now.UnixMilli(), id}
	case out == retry && m.Attempts < s.opt.MaxAttempts:
		result = "retry"
		q, args = `UPDATE outbox SET next_at = $1, claimed_until = NULL, last_error = $2 WHERE id = $3`,
			[]any{now.Add(s.backoff(m.Attempts)).UnixMilli(), errText(sendErr), id}
	default: // refused, unsure, or out of attempts
		q, args = `UPDATE outbox SET status = $1, claimed_until = NULL, last_error = $2 WHERE id = $3`,
			[]any{StatusFailed, errText(sendErr), id}
	}
	if err := s.record(ctx, id, claimEnds, q, args); err != nil {
		// The claim stays and expires; the next pass fails it (at most once).
		return "", fmt.Errorf("outbox %d: record %s: %w", id, result, err)
	}
	s.sent.WithLabelValues(result).Inc()
	if result != "sent" {
		s.log.Warn("mail: not delivered", "outbox", id, "result", result, "attempts", m.Attempts, "err", sendErr)
	}
	return result, nil
}

// sendWithLink sends m with its single-use link's token made now (the
// stored bodies hold LinkSecret in its place), or says why it cannot.
func (s *Service) sendWithLink(ctx context.Context, m Entry) (outcome, error) {
	if m.Link != 0 {
		if s.links == nil {
			return refused, errors.New("no one makes the message's link")
		}
		token, err := s.links(ctx, m.Link)
		if errors.Is(err, ErrLinkGone) {
			return refused, err
		}
		if err != nil {
			return retry, fmt.Errorf("make the link: %w", err) // nothing was sent
		}
		m.Text = strings.ReplaceAll(m.Text, LinkSecret, token)
		m.HTML = strings.ReplaceAll(m.HTML, LinkSecret, token)
	}
	return s.send(ctx, m)
}

// record writes a delivery's outcome, trying again while the database
// fails (a dropped connection) until the claim would expire: a message the
// server took and the outbox failed to mark would otherwise be failed by
// the next pass as interrupted. The update is the same each time, so a
// write that succeeded unseen is harmless to repeat.
func (s *Service) record(ctx context.Context, id int64, claimEnds time.Time, q string, args []any) error {
	wait := 10 * time.Millisecond
	for {
		_, err := s.db.ExecContext(ctx, q, args...)
		if err == nil || time.Now().Add(wait).After(claimEnds) {
			return err
		}
		s.log.Warn("mail: recording a delivery failed, trying again", "outbox", id, "err", err)
		time.Sleep(wait)
		wait = min(2*wait, time.Second)
	}
}

// claim takes message id for this worker until the claim expires (twice
// the send timeout), counting the attempt, and reads it. Of two workers
// claiming one message, one gets it.
func (s *Service) claim(ctx context.Context, id int64) (Entry, error) {
	until := s.clock.Now().Add(2 * s.opt.SendTimeout).UnixMilli()
	res, err := s.db.ExecContext(ctx, `UPDATE outbox SET claimed_until = $1, attempts = attempts + 1
		WHERE id = $2 AND status = $3 AND claimed_until IS NULL`, until, id, StatusQueued)
	if err != nil {
		return Entry{}, fmt.Errorf("outbox %d: claim: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return Entry{}, fmt.Errorf("outbox %d: claim: %w", id, err)
	} else if n == 0 {
		return Entry{}, errClaimed
	}
	return s.Entry(ctx, id)
}

// errText keeps a delivery error short enough for the outbox page.
func errText(err error) string {
	if err == nil {
		return ""
	}
	t := err.Error()
	if len(t) > 500 {
		t = t[:500]
	}
	return t
}
