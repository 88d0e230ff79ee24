package sessions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
)

// UserSession is one of an account's signed-in sessions, as the account
// page lists them.
type UserSession struct {
	// ID is the session id (not the cookie token, which never leaves
	// the cookie): what "end this session" names.
	ID       string
	Device   string // "Firefox on Linux", or "" when unknown
	SignedIn time.Time
	LastSeen time.Time
	// Current is the session of the token the list was asked with.
	Current bool
}

// NoteDevice remembers which device the token's session signed in from,
// for the account's list of sessions. device is cut to 80 bytes.
func (s *Service) NoteDevice(ctx context.Context, userID int64, token, device string) error {
	if len(device) > 80 {
		device = device[:80]
	}
	if err := s.upgradeUserSessions(ctx, userID); err != nil {
		return err
	}
	if err := noteDevice.Run(ctx, s.rdb, []string{keys.UserSessions(userID)}, keys.SessionID(token), device).Err(); err != nil {
		return fmt.Errorf("note device: %w", err)
	}
	return nil
}

// UserSessionList returns the account's live sessions, most recently seen
// first; current is the asking session's token.
func (s *Service) UserSessionList(ctx context.Context, userID int64, current string) ([]UserSession, error) {
	_, live, err := s.liveUserSessions(ctx, userID)
	if err != nil || len(live) == 0 {
		return nil, err
	}
	pipe := s.rdb.Pipeline()
	entries := pipe.HMGet(ctx, keys.UserSessions(userID), live...)
	seen := pipe.ZMScore(ctx, keys.Recent, live...)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("sessions list: %w", err)
	}
	currentSID := ""
	if current != "" {
		currentSID = keys.SessionID(current)
	}
	out := make([]UserSession, 0, len(live))
	for i, sid := range live {
		us := UserSession{ID: sid, Current: sid == currentSID}
		if v := entries.Val(); i < len(v) {
			if e, ok := v[i].(string); ok {
				us.SignedIn, us.Device = parseSessionEntry(e)
			}
		}
		if v := seen.Val(); i < len(v) && v[i] >= keys.SignedInScore {
			us.LastSeen = time.Unix(int64(v[i]-keys.SignedInScore), 0)
		}
		out = append(out, us)
	}
	slices.SortStableFunc(out, func(a, b UserSession) int { return b.LastSeen.Compare(a.LastSeen) })
	return out, nil
}

// Device names a browser and system from a User-Agent, as people say it
// ("Firefox on Linux"); "" when it recognises neither.
func Device(userAgent string) string {
	browser := firstMatch(userAgent, browsers)
	system := firstMatch(userAgent, systems)
	switch {
	case browser != "" && system != "":
		return browser + " on " + system
	case browser != "":
		return browser
	case system != "":
		return "A browser on " + system
	}
	return ""
}

type uaName struct{ marker, name string }

// browsers and systems are checked in order: Edge and Opera say Chrome
// too, Chrome says Safari, Android says Linux, iPhone says Mac OS X.
var (
	browsers = []uaName{{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"Chrome/", "Chrome"},
		{"Safari/", "Safari"}, {"curl/", "curl"}}
	systems = []uaName{{"Android", "Android"}, {"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Windows", "Windows"},
		{"Mac OS X", "macOS"}, {"CrOS", "ChromeOS"}, {"Linux", "Linux"}}
)

func firstMatch(ua string, names []uaName) string {
	for _, n := range names {
		if strings.Contains(ua, n.marker) {
			return n.name
		}
	}
	return ""
}
