package sessions

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"storefront/store/audit"
	"storefront/store/platform"
)

// BanUser bans an account: it can no longer sign in (ErrBanned), every
// session it has is ended at once, and its checkouts are refused from the
// moment the ban commits; its orders stay. The admin account cannot be
// banned (ErrInvalid). It returns the account and how many sessions ended.
// Banning twice ends any session that slipped in and changes nothing else.
func (s *Service) BanUser(ctx context.Context, name string) (User, int, error) {
	u, err := s.UserByName(ctx, name)
	if err != nil {
		return User{}, 0, err
	}
	if u.IsAdmin {
		return u, 0, platform.ErrInvalid
	}
	// The ban is written before the sessions are read: a sign-in racing
	// with it adds its session before checking the ban (see SignIn's
	// caller), so either we find that session or it finds the ban.
	if _, err := s.setBanned(ctx, u, `UPDATE users SET banned_at = $1 WHERE id = $2 AND banned_at IS NULL`, s.clock.Now().Unix(), u.ID); err != nil {
		return u, 0, fmt.Errorf("ban %q: %w", name, err)
	}
	u.Banned = true
	n, err := s.EndUserSessions(ctx, u.ID, "")
	return u, n, err
}

// UnbanUser lifts a ban: the account can sign in again (its sessions
// ended with the ban stay ended). It reports whether it was banned.
// platform.ErrNotFound for no such account.
func (s *Service) UnbanUser(ctx context.Context, name string) (User, bool, error) {
	u, err := s.UserByName(ctx, name)
	if err != nil {
		return User{}, false, err
	}
	was, err := s.setBanned(ctx, u, `UPDATE users SET banned_at = NULL WHERE id = $1 AND banned_at IS NOT NULL`, u.ID)
	if err != nil {
		return u, false, fmt.Errorf("unban %q: %w", name, err)
	}
	u.Banned = false
	return u, was, nil
}

// setBanned runs a ban's or an unban's update of account u and, when it
// changed the account, its audit entry, in one transaction; it reports
// whether the update changed the account.
func (s *Service) setBanned(ctx context.Context, u User, q string, args ...any) (bool, error) {
	var changed bool
	err := platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return err
		}
		changed = true
		return audit.Record(ctx, tx, audit.Entry{Kind: "user.ban", Target: "user " + u.Username,
			Before: audit.Fields{"banned": u.Banned}, After: audit.Fields{"banned": !u.Banned}})
	})
	return changed, err
}

// BannedUser is a banned account as the moderation page lists it.
type BannedUser struct {
	User
	BannedAt time.Time
}

// BannedUsers lists the banned accounts, the most recently banned first
// (at most n), and how many there are.
func (s *Service) BannedUsers(ctx context.Context, n int) ([]BannedUser, int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, username, banned_at, COUNT(*) OVER () FROM users
		WHERE banned_at IS NOT NULL ORDER BY banned_at DESC, id LIMIT $1`, n)
	if err != nil {
		return nil, 0, fmt.Errorf("banned users: %w", err)
	}
	defer rows.Close()
	var out []BannedUser
	total := 0
	for rows.Next() {
		b := BannedUser{User: User{Banned: true}}
		var at int64
		if err := rows.Scan(&b.ID, &b.Username, &at, &total); err != nil {
			return nil, 0, fmt.Errorf("banned users: %w", err)
		}
		b.BannedAt = platform.UnixTime(at)
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("banned users: %w", err)
	}
	return out, total, nil
}
