package sessions

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
)

// An account's sessions are one HASH, keys.UserSessions: session id ->
// "<unix time signed in> <device>" (the device as the account page names
// it, "" until noted). Accounts from before kept a ZSET there (session id
// -> time signed in) and the devices in a HASH of their own
// (keys.UserDevices); the first time an account's sessions are touched
// upgradeUserSessions turns the two into the one hash, in one script on
// the account's slot, so nothing is lost and the old key goes.

// upgradeSessions turns an old ZSET of sessions and its devices HASH into
// the one HASH; a key already a hash (or missing) is left alone.
// KEYS: sessions, devices. Reply: 1 when it upgraded.
var upgradeSessions = redis.NewScript(`
if redis.call('TYPE', KEYS[1]).ok ~= 'zset' then
  if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DEL', KEYS[2]) end
  return 0
end
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local args = {}
for i = 1, #all, 2 do
  local device = redis.call('HGET', KEYS[2], all[i]) or ''
  args[#args + 1] = all[i]
  args[#args + 1] = string.format('%d', math.floor(tonumber(all[i + 1]))) .. ' ' .. device
end
redis.call('DEL', KEYS[1], KEYS[2])
if #args > 0 then redis.call('HSET', KEYS[1], unpack(args)) end
return 1`)

// upgradeUserSessions makes the account's sessions the one hash.
func (s *Service) upgradeUserSessions(ctx context.Context, userID int64) error {
	err := upgradeSessions.Run(ctx, s.rdb, []string{keys.UserSessions(userID), keys.UserDevices(userID)}).Err()
	if err != nil && err != redis.Nil {
		return fmt.Errorf("sessions: upgrade: %w", err)
	}
	return nil
}

// noteDevice sets the device of a session in the hash, keeping when it
// signed in; a session not in the hash (ended meanwhile) is left out.
// KEYS: sessions. ARGV: session id, device.
var noteDevice = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local at = string.match(v, '^(%S*)')
redis.call('HSET', KEYS[1], ARGV[1], at .. ' ' .. ARGV[2])
return 1`)

// sessionEntry is a session's value in the hash.
func sessionEntry(signedIn float64, device string) string {
	return strconv.FormatInt(int64(signedIn), 10) + " " + device
}

// parseSessionEntry reads a session's value in the hash.
func parseSessionEntry(v string) (signedIn time.Time, device string) {
	at, device, _ := strings.Cut(v, " ")
	n, _ := strconv.ParseInt(at, 10, 64)
	return time.Unix(n, 0), device
}
