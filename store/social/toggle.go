package social

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// toggleScript changes one membership and the counter that counts it
// together, in one slot, so that the counter always equals the set's
// size: a like (a SET of user ids and the item's `likes` count) and each
// side of a follow (a ZSET of user ids by follow time and the user's
// `following` or `followers` count).
//
// KEYS: the set, the counts HASH, and (optional) a HASH member -> version.
// ARGV: member; want ('1' in, '0' out, ” the opposite of now); counter
// field; score (” for a SET, else a ZSET score); a field of the counts
// to bump on every call (” none), which versions the caller's changes;
// a version (” none): with the versions HASH, the change applies only if
// it is newer than the last one applied for this member, so that when two
// changes race, this side ends like the side that versioned them.
// Returns {member now (1/0), change (+1, -1, 0), counter, bumped version}.
var toggleScript = redis.NewScript(`
local set, counts = KEYS[1], KEYS[2]
local member, want, field, score, seq, version = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local sorted = score ~= ''
local has
if sorted then has = redis.call('ZSCORE', set, member) ~= false else has = redis.call('SISMEMBER', set, member) == 1 end
local now, change, apply = has, 0, true
if version ~= '' then
  apply = tonumber(version) > tonumber(redis.call('HGET', KEYS[3], member) or '0')
  if apply then redis.call('HSET', KEYS[3], member, version) end
end
if apply then
  if want == '' then now = not has else now = want == '1' end
  if now and not has then
    if sorted then redis.call('ZADD', set, score, member) else redis.call('SADD', set, member) end
    change = 1
  elseif has and not now then
    if sorted then redis.call('ZREM', set, member) else redis.call('SREM', set, member) end
    change = -1
  end
  if change ~= 0 then redis.call('HINCRBY', counts, field, change) end
end
local bumped = 0
if seq ~= '' then bumped = redis.call('HINCRBY', counts, seq, 1) end
return {now and 1 or 0, change, tonumber(redis.call('HGET', counts, field) or '0'), bumped}`)

// toggle is one call of toggleScript.
type toggle struct {
	set, counts, versions string // versions: "" for none
	member                int64
	want                  string // "1", "0" or "" (flip)
	field                 string
	score                 float64 // 0: the set is a SET
	seq                   string  // "": none
	version               int64   // 0: none
}

// toggled is toggleScript's answer.
type toggled struct {
	now             bool
	change, counter int64
	version         int64
}

func (s *Service) toggle(ctx context.Context, t toggle) (toggled, error) {
	ks := []string{t.set, t.counts}
	if t.versions != "" {
		ks = append(ks, t.versions)
	}
	score, version := "", ""
	if t.score != 0 {
		score = strconv.FormatFloat(t.score, 'f', -1, 64)
	}
	if t.version != 0 {
		version = strconv.FormatInt(t.version, 10)
	}
	res, err := toggleScript.Run(ctx, s.rdb, ks, t.member, t.want, t.field, score, t.seq, version).Int64Slice()
	if err != nil {
		return toggled{}, err
	}
	if len(res) != 4 {
		return toggled{}, fmt.Errorf("toggle: reply %v", res)
	}
	return toggled{now: res[0] == 1, change: res[1], counter: res[2], version: res[3]}, nil
}
