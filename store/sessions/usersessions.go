package sessions

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// liveUserSessions returns the session ids in the user's session list and
// which of them `login:` still gives to the user.
func (s *Service) liveUserSessions(ctx context.Context, userID int64) (all, live []string, err error) {
	if err := s.upgradeUserSessions(ctx, userID); err != nil {
		return nil, nil, err
	}
	all, err = s.rdb.HKeys(ctx, keys.UserSessions(userID)).Result()
	if err != nil || len(all) == 0 {
		return nil, nil, err
	}
	owners, err := s.rdb.HMGet(ctx, keys.Login, all...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, err
	}
	want := strconv.FormatInt(userID, 10)
	for i, t := range all {
		if v, ok := owners[i].(string); ok && v == want {
			live = append(live, t)
		}
	}
	return all, live, nil
}

// pruneUserSessions drops the user's ended sessions from their list, so
// that it stays as long as the sessions they really have.
func (s *Service) pruneUserSessions(ctx context.Context, userID int64) error {
	all, live, err := s.liveUserSessions(ctx, userID)
	if err != nil {
		return fmt.Errorf("sign in: sessions: %w", err)
	}
	if len(all) == len(live) {
		return nil
	}
	keep := make(map[string]bool, len(live))
	for _, t := range live {
		keep[t] = true
	}
	var gone []string
	for _, t := range all {
		if !keep[t] {
			gone = append(gone, t)
		}
	}
	if err := s.rdb.HDel(ctx, keys.UserSessions(userID), gone...).Err(); err != nil {
		return fmt.Errorf("sign in: sessions: %w", err)
	}
	return nil
}

// EndUserSessions signs the user out everywhere except on the token keep
// ("" for none): every other session's `login:` and `recent:` entries,
// cart and viewed list go at once, and every instance treats those tokens
// as unknown from the next request on. It returns how many sessions ended.
func (s *Service) EndUserSessions(ctx context.Context, userID int64, keep string) (int, error) {
	keepSID := ""
	if keep != "" {
		keepSID = keys.SessionID(keep)
	}
	return s.endSessions(ctx, userID, func(sid string) bool { return sid != keepSID })
}

// EndUserSession ends one of the user's sessions, named by its session id
// (as UserSessionList gives it). platform.ErrNotFound when the user has
// no such live session: another account's session is never touched.
func (s *Service) EndUserSession(ctx context.Context, userID int64, sid string) error {
	n, err := s.endSessions(ctx, userID, func(x string) bool { return x == sid })
	if err == nil && n == 0 {
		err = platform.ErrNotFound
	}
	return err
}

// endSessions ends the user's live sessions that end selects and drops
// them (and any already ended) from the user's lists.
func (s *Service) endSessions(ctx context.Context, userID int64, end func(sid string) bool) (int, error) {
	all, live, err := s.liveUserSessions(ctx, userID)
	if err != nil {
		return 0, fmt.Errorf("end sessions: %w", err)
	}
	pipe := s.rdb.Pipeline()
	ended := 0
	for _, sid := range live {
		if end(sid) {
			s.addDeleteSession(ctx, pipe, sid)
			ended++
		}
	}
	var drop []string
	for _, sid := range all {
		if end(sid) {
			drop = append(drop, sid)
		}
	}
	if len(drop) > 0 {
		pipe.HDel(ctx, keys.UserSessions(userID), drop...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("end sessions: %w", err)
	}
	return ended, nil
}
