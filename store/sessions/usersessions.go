package sessions

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
)

// liveUserSessions returns the session ids in the user's session list and
// which of them `login:` still gives to the user.
func (s *Service) liveUserSessions(ctx context.Context, userID int64) (all, live []string, err error) {
	all, err = s.rdb.ZRange(ctx, keys.UserSessions(userID), 0, -1).Result()
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
	var gone []any
	for _, t := range all {
		if !keep[t] {
			gone = append(gone, t)
		}
	}
	if err := s.rdb.ZRem(ctx, keys.UserSessions(userID), gone...).Err(); err != nil {
		return fmt.Errorf("sign in: sessions: %w", err)
	}
	return nil
}

// EndUserSessions signs the user out everywhere except on the token keep
// ("" for none): every other session's `login:` and `recent:` entries,
// cart and viewed list go at once, and every instance treats those tokens as unknown from
// the next request on. It returns how many sessions ended.
func (s *Service) EndUserSessions(ctx context.Context, userID int64, keep string) (int, error) {
	all, live, err := s.liveUserSessions(ctx, userID)
	if err != nil {
		return 0, fmt.Errorf("end sessions: %w", err)
	}
	keepSID := ""
	if keep != "" {
		keepSID = keys.SessionID(keep)
	}
	var end []string
	for _, sid := range live {
		if sid != keepSID {
			end = append(end, sid)
		}
	}
	var drop []any
	for _, sid := range all {
		if sid != keepSID {
			drop = append(drop, sid)
		}
	}
	pipe := s.rdb.Pipeline()
	for _, sid := range end {
		s.addDeleteSession(ctx, pipe, sid)
	}
	if len(drop) > 0 {
		pipe.ZRem(ctx, keys.UserSessions(userID), drop...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("end sessions: %w", err)
	}
	return len(end), nil
}
