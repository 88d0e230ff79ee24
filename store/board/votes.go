package board

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// voteScript is an article vote (up, down, switching or taking it back),
// made atomic. One direction per user: `voted:<id>` holds the
// up voters and `downvoted:<id>` the down voters, and a user is in at most
// one of them. While the article is open (now < post time + VOTE_WINDOW) the
// script moves the user to the asked set (or out of both for "none"); when
// that changed anything it recomputes the counts and the score from the
// sets, score = post time + VOTE_SCORE x (up - down), in the hash and in
// `score:`. Recomputing rather than incrementing keeps the score exact
// however votes interleave. A closed article changes nothing.
//
// The voter's own record of their votes (myVotesKey) follows the sets.
//
// KEYS: article hash, up voters, down voters, score:, the voter's votes
// ARGV: article id, user id, dir, now (s), VOTE_SCORE, window (s), voter set lifetime after the window (s)
// Returns nil for a missing or hidden article, else {hash as a flat list, my vote, open, changed}.
var voteScript = redis.NewScript(`
local art, upk, downk, scorek, minek = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, user, dir = ARGV[1], ARGV[2], ARGV[3]
local now, vs, window, grace = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local posted = redis.call('HGET', art, 'time')
if not posted or redis.call('HEXISTS', art, 'hidden') == 1 then return false end
posted = tonumber(posted)
local open = now < posted + window
local changed = 0
if open then
  if dir == 'up' then
    changed = redis.call('SADD', upk, user) + redis.call('SREM', downk, user)
  elseif dir == 'down' then
    changed = redis.call('SADD', downk, user) + redis.call('SREM', upk, user)
  else
    changed = redis.call('SREM', upk, user) + redis.call('SREM', downk, user)
  end
  if changed > 0 then
    local up, down = redis.call('SCARD', upk), redis.call('SCARD', downk)
    local score = string.format('%.17g', posted + vs * (up - down))
    redis.call('HSET', art, 'up', up, 'down', down, 'votes', up, 'score', score)
    redis.call('ZADD', scorek, score, id)
    local ttl = string.format('%d', math.floor((posted + window + grace - now) * 1000))
    if up > 0 then redis.call('PEXPIRE', upk, ttl) end
    if down > 0 then redis.call('PEXPIRE', downk, ttl) end
    if dir == 'up' or dir == 'down' then
      redis.call('HSET', minek, id, dir)
      redis.call('PEXPIRE', minek, ttl, 'GT')
      if redis.call('PTTL', minek) < 0 then redis.call('PEXPIRE', minek, ttl) end
    else
      redis.call('HDEL', minek, id)
    end
  end
end
local mine = 'none'
if redis.call('SISMEMBER', upk, user) == 1 then
  mine = 'up'
elseif redis.call('SISMEMBER', downk, user) == 1 then
  mine = 'down'
end
local o = 0
if open then o = 1 end
return {redis.call('HGETALL', art), mine, o, changed}`)

// Vote records userID's vote on an article: VoteUp, VoteDown, or VoteNone to
// take a vote back. It returns the article as the voter now sees it and
// whether anything changed (a repeated vote, or any vote on a closed
// article, changes nothing). platform.ErrNotFound for a missing article, platform.ErrInvalid
// for a bad direction.
func (s *Service) Vote(ctx context.Context, articleID, userID int64, dir string) (Article, bool, error) {
	if dir != VoteUp && dir != VoteDown && dir != VoteNone {
		return Article{}, false, platform.ErrInvalid
	}
	if userID <= 0 {
		return Article{}, false, platform.ErrInvalid
	}
	res, err := voteScript.Run(ctx, s.rdb,
		[]string{keys.Article(articleID), keys.UpVoters(articleID), keys.DownVoters(articleID), keys.ArticleScores, keys.MyVotes(userID)},
		articleID, userID, dir, formatFloat(s.clock.Seconds()), s.opt.VoteScore,
		formatFloat(s.opt.VoteWindow.Seconds()), formatFloat(voterSetGrace.Seconds())).Slice()
	if errors.Is(err, redis.Nil) {
		return Article{}, false, platform.ErrNotFound
	}
	if err != nil {
		return Article{}, false, fmt.Errorf("vote: %w", err)
	}
	mine, _ := res[1].(string)
	open, _ := res[2].(int64)
	changed, _ := res[3].(int64)
	a := s.parseArticle(articleID, flatHash(res[0]), mine)
	a.Open = open == 1 // the script's verdict, from the same clock reading
	if changed > 0 {
		s.votes.WithLabelValues(dir).Inc()
		s.events.ArticleVoted(ctx, a, userID, dir)
	}
	return a, changed > 0, nil
}

// flatHash turns an HGETALL reply inside a script's answer into a map.
func flatHash(v any) map[string]string {
	list, _ := v.([]any)
	m := make(map[string]string, len(list)/2)
	for i := 0; i+1 < len(list); i += 2 {
		k, _ := list[i].(string)
		val, _ := list[i+1].(string)
		m[k] = val
	}
	return m
}
