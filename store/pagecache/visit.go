package pagecache

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/store/social"
)

// What a cached page's holes need of a returning visitor (the signed-in
// check, cart count, unread count, viewed list, like state) is read through
// go-redis's server-assisted client-side cache where it applies (one Redis
// server, DB 0, RESP3): Redis tracks the keys each read touched and tells
// the client when they change, so a returning visitor's reads are answered
// in process. A visitor's first request, and every read after its keys
// changed, goes to Redis.
//
// The token's MAC is checked locally; whether a guest session still exists
// is learnt behind, by the write-behind flush (a token found gone is
// remembered here and its next request takes the full read, which drops
// it). A signed-in claim is checked against `login:` on every request.

// readVisitCached reads what the holes of a cached page need for a
// returning visitor, or for a visitor left without a session, through the
// client-side cache.
func (s *Service) readVisitCached(ctx context.Context, c *redis.Client, req ItemPageRequest) (visitReads, error) {
	v := visitReads{rank: -1, session: sessions.SessionState{Known: true}}
	if req.Token == "" {
		// A visitor without a session who gets none (over the cap of new
		// sessions): only the item's counters.
		v.session = sessions.SessionState{}
		return readLikeCached(ctx, c, req.ItemID, v)
	}
	st, err := sessions.ReadCached(ctx, c, req.Token, req.ClaimedUserID)
	if err != nil || !st.Known {
		return visitReads{rank: -1, session: st}, err
	}
	v.session = st
	recent := sessions.AddRecent(ctx, c, req.Token, s.opt.ViewedPerSession)
	if err := platform.CmdErr(recent.Cmds()...); err != nil {
		return v, fmt.Errorf("item visit: %w", err)
	}
	v.recent = recent.IDs()
	return readLikeCached(ctx, c, req.ItemID, v)
}

// readLikeCached adds the like box's reads to v through the client-side
// cache: the item's counters, and the shopper's own like when signed in.
func readLikeCached(ctx context.Context, c *redis.Client, itemID int64, v visitReads) (visitReads, error) {
	box, err := social.LikeBoxOf(ctx, c, itemID, v.session.UserID)
	if err != nil {
		return v, fmt.Errorf("item visit: %w", err)
	}
	v.like = box
	return v, nil
}

// ViewSession is the sessions' LoadSession for a request that changes
// nothing (a page read): a returning visitor's state comes through the
// client-side cache and its touch is written behind with the page cache
// hits' writes, so the request costs no blocking round trip. Requests
// that change data, and tokens the flush found gone, take LoadSession.
// Without client-side caching it is LoadSession.
func (s *Service) ViewSession(ctx context.Context, token string, claimedUserID int64) (sessions.SessionState, error) {
	c := s.reader.Cached()
	if c == nil || s.sessions.Gone(token) {
		return s.sessions.LoadSession(ctx, token, claimedUserID)
	}
	st, err := sessions.ReadCached(ctx, c, token, claimedUserID)
	if err != nil {
		// The caching client cannot answer (its server restarted, say):
		// read from Redis, and keep other reads off it for a while.
		s.reader.Failed()
		return s.sessions.LoadSession(ctx, token, claimedUserID)
	}
	if !st.Known {
		return st, nil
	}
	s.writes.touch(token, st.UserID > 0, s.clock.Seconds())
	return st, nil
}
