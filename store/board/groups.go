package board

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// editGroupsScript adds and removes an article's groups, atomically with what
// depends on the group sets: in one step in the board's slot it adds the
// article to and removes it from group sets, drops the cached listings of
// every group it changed (the next read rebuilds them with the article in
// or out), and rewrites the groups field of the article's hash.
// KEYS: article hash, then per site group (in ARGV[4..] order) its set and
// its two cached listings. ARGV: article id, groups to add (comma list),
// groups to remove, then the site's group names.
// Returns nil for a missing or hidden article, else the groups now, sorted.
var editGroupsScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'hidden') == 1 then return false end
local id = ARGV[1]
local cur = {}
for g in string.gmatch(redis.call('HGET', KEYS[1], 'groups') or '', '[^,]+') do cur[g] = true end
local function base(name)
  for i = 4, #ARGV do
    if ARGV[i] == name then return 1 + 3 * (i - 4) end
  end
end
for g in string.gmatch(ARGV[2], '[^,]+') do
  local k = base(g)
  if k and not cur[g] then
    cur[g] = true
    redis.call('SADD', KEYS[k + 1], id)
    redis.call('DEL', KEYS[k + 2], KEYS[k + 3])
  end
end
for g in string.gmatch(ARGV[3], '[^,]+') do
  local k = base(g)
  if k and cur[g] then
    cur[g] = nil
    redis.call('SREM', KEYS[k + 1], id)
    redis.call('DEL', KEYS[k + 2], KEYS[k + 3])
  end
end
local out = {}
for g in pairs(cur) do table.insert(out, g) end
table.sort(out)
redis.call('HSET', KEYS[1], 'groups', table.concat(out, ','))
return out`)

// EditArticleGroups adds an article to groups and removes it from others
// (a group in both lists is added, then removed). Unknown groups are
// platform.ErrInvalid, a missing or hidden article platform.ErrNotFound. Who may do it is
// the caller's check. It returns the article's groups afterwards.
func (s *Service) EditArticleGroups(ctx context.Context, id int64, add, remove []string) ([]string, error) {
	for _, g := range append(append([]string{}, add...), remove...) {
		if !IsArticleGroup(g) {
			return nil, platform.ErrInvalid
		}
	}
	scriptKeys := []string{keys.Article(id)}
	args := []any{id, strings.Join(add, ","), strings.Join(remove, ",")}
	for _, g := range ArticleGroups {
		scriptKeys = append(scriptKeys, keys.Group(g), keys.GroupListing(g, false), keys.GroupListing(g, true))
		args = append(args, g)
	}
	groups, err := editGroupsScript.Run(ctx, s.rdb, scriptKeys, args...).StringSlice()
	if errors.Is(err, redis.Nil) {
		return nil, platform.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("edit article groups: %w", err)
	}
	return groups, nil
}
