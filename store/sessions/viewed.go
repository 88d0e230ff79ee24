package sessions

import (
	"context"
	"encoding/binary"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// A session's recently viewed items are one STRING (keys.SessionViewed):
// the item ids, newest first, each an unsigned varint as encoding/binary
// writes it (7 bits a byte, the high bit set on every byte but an id's
// last). viewedScript rewrites it whole.

// viewedScript puts item ids first in a session's viewed items, each
// once, keeping the newest ARGV[1]: KEYS[1] is the packed string
// (keys.SessionViewed), KEYS[2] the LIST sessions kept before it
// (keys.OldSessionViewedOf), folded in and deleted while KEYS[1] is
// missing; ARGV[2..] are the ids as varints, newest first. The two keys
// share the session's slot. Replaying it gives the same list.
var viewedScript = `
local limit = tonumber(ARGV[1])
local out, seen = {}, {}
local function put(t)
  if #out < limit and not seen[t] then
    seen[t] = true
    out[#out + 1] = t
  end
end
for i = 2, #ARGV do put(ARGV[i]) end
local cur = redis.call('GET', KEYS[1])
if cur then
  local i, n = 1, #cur
  while i <= n do
    local j = i
    while j < n and string.byte(cur, j) >= 128 do j = j + 1 end
    put(string.sub(cur, i, j))
    i = j + 1
  end
else
  local old = redis.call('LRANGE', KEYS[2], 0, limit - 1)
  for _, v in ipairs(old) do
    local id, t = tonumber(v), ''
    if id and id > 0 then
      while id >= 128 do
        t = t .. string.char(id % 128 + 128)
        id = math.floor(id / 128)
      end
      put(t .. string.char(id))
    end
  end
  if #old > 0 then redis.call('UNLINK', KEYS[2]) end
end
redis.call('SET', KEYS[1], table.concat(out))
return #out`

// addViewedIDs queues, on pipe, putting ids (newest first) at the front of
// the session's viewed items, trimmed to the newest ViewedPerSession. One
// EVAL per session however many views it carries: a pipeline cannot retry
// an EVALSHA that found the script missing, and Redis keeps the compiled
// script by its hash either way.
func (s *Service) addViewedIDs(ctx context.Context, pipe redis.Pipeliner, sid string, ids []int64) {
	if len(ids) == 0 {
		return
	}
	args := make([]any, 0, len(ids)+1)
	args = append(args, s.opt.ViewedPerSession)
	for _, id := range ids {
		args = append(args, string(binary.AppendUvarint(nil, uint64(id))))
	}
	pipe.Eval(ctx, viewedScript, []string{keys.SessionViewedOf(sid), keys.OldSessionViewedOf(sid)}, args...)
}

// PackViewed is ids (newest first) as the STRING keys.SessionViewed holds
// (SignIn's copy; tools and tests that write a session).
func PackViewed(ids []int64) string {
	var b []byte
	for _, id := range ids {
		b = binary.AppendUvarint(b, uint64(id))
	}
	return string(b)
}

// unPackViewed reads up to n ids from a packed viewed list; a malformed
// tail is ignored.
func unPackViewed(packed string, n int64) []int64 {
	var ids []int64
	b := []byte(packed)
	for len(b) > 0 && int64(len(ids)) < n {
		id, w := binary.Uvarint(b)
		if w <= 0 {
			break
		}
		if id > 0 {
			ids = append(ids, int64(id))
		}
		b = b[w:]
	}
	return ids
}

// RecentRead is a queued read of a session's viewed items.
type RecentRead struct {
	packed *redis.StringCmd
	old    *redis.StringSliceCmd // the old LIST, nil when not read
	n      int64
}

// AddRecent queues the read of the newest n items the session viewed on
// c: a pipeline, or the client-side caching client, which answers at
// once. A session from before the packed string (keys.OldSessionViewedOf)
// is read from its old LIST while the string is missing: on a pipeline
// both are queued, on the caching client the LIST only when needed.
func AddRecent(ctx context.Context, c redis.Cmdable, token string, n int64) RecentRead {
	sid := keys.SessionID(token)
	r := RecentRead{packed: c.Get(ctx, keys.SessionViewedOf(sid)), n: n}
	if _, piped := c.(redis.Pipeliner); piped || r.packed.Err() == redis.Nil {
		r.old = c.LRange(ctx, keys.OldSessionViewedOf(sid), 0, n-1)
	}
	return r
}

// Cmds are the read's commands, for their errors.
func (r RecentRead) Cmds() []redis.Cmder {
	if r.old == nil {
		return []redis.Cmder{r.packed}
	}
	return []redis.Cmder{r.packed, r.old}
}

// IDs are the viewed items once the pipeline ran, newest first.
func (r RecentRead) IDs() []int64 {
	if v, err := r.packed.Result(); err == nil {
		return unPackViewed(v, r.n)
	}
	if r.old == nil {
		return nil
	}
	var ids []int64
	for _, v := range r.old.Val() {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil && id > 0 && int64(len(ids)) < r.n {
			ids = append(ids, id)
		}
	}
	return ids
}

// ReadViewed reads a session's viewed item ids from c, newest first, as
// decimal strings: for tools and tests that look at a session in Redis.
func ReadViewed(ctx context.Context, c redis.Cmdable, token string) ([]string, error) {
	r := AddRecent(ctx, c, token, 1<<20)
	if err := platform.CmdErr(r.Cmds()...); err != nil {
		return nil, err
	}
	ids := r.IDs()
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
	}
	return out, nil
}
