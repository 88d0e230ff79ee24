package sessions

import (
	"context"
	"fmt"
)

// SharedCookieKeys returns the cookie keys of a shop started without
// COOKIE_KEYS: those kept in the database (table cookie_keys), or, when
// none are kept yet, candidate, stored first. Every instance inserts its
// candidate only if no row exists and then reads the row back, so
// instances starting at once on one database agree on one set. stored
// reports whether candidate is the one kept.
func (s *Service) SharedCookieKeys(ctx context.Context, candidate string) (keys string, stored bool, err error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO cookie_keys (id, secret, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING`,
		candidate, s.clock.Now().Unix())
	if err != nil {
		return "", false, fmt.Errorf("cookie keys: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return "", false, fmt.Errorf("cookie keys: %w", err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT secret FROM cookie_keys WHERE id = 1`).Scan(&keys); err != nil {
		return "", false, fmt.Errorf("cookie keys: %w", err)
	}
	return keys, n == 1, nil
}
