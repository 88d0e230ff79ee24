package sessions

import (
	"context"
	"fmt"

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
	if _, err := s.db.ExecContext(ctx, `UPDATE users SET banned_at = $1 WHERE id = $2 AND banned_at IS NULL`, s.clock.Now().Unix(), u.ID); err != nil {
		return u, 0, fmt.Errorf("ban %q: %w", name, err)
	}
	u.Banned = true
	n, err := s.EndUserSessions(ctx, u.ID, "")
	return u, n, err
}
