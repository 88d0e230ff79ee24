package store

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
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

// UseClientSideCache gives the store a client with client-side caching for
// the reads of cached pages' holes (see RedisConn.Cached).
func (s *Store) UseClientSideCache(c *redis.Client) {
	s.csc = c
	s.sharedReader.UseCache(c)
}

// reader is the client for reads that may come from the client-side
// cache (shared listings, a session's own lists), or the plain client
// where there is none.
func (s *Store) reader() redis.Cmdable {
	if s.csc != nil && s.clock.Now().UnixNano()-s.cscFailedAt.Load() > int64(cscPause) {
		return s.csc
	}
	return s.rdb
}

// cscPause is how long reads keep off the caching client after it failed.
const cscPause = 10 * time.Second

// readVisitCached reads what the holes of a cached page need for a
// returning visitor, or for a visitor left without a session, through the
// client-side cache.
func (s *Store) readVisitCached(ctx context.Context, req ItemPageRequest) (visitReads, error) {
	c := s.csc
	v := visitReads{rank: -1, session: SessionState{Known: true}}
	if req.Token == "" {
		// A visitor without a session who gets none (over the cap of new
		// sessions): only the item's counters.
		v.session = SessionState{}
		return s.readLikeCached(ctx, req.ItemID, v)
	}
	st, err := sessions.ReadCached(ctx, c, req.Token, req.ClaimedUserID)
	if err != nil || !st.Known {
		return visitReads{rank: -1, session: st}, err
	}
	v.session = st
	recent, err := c.LRange(ctx, keys.SessionViewed(req.Token), 0, s.opt.ViewedPerSession-1).Result()
	if err != nil {
		return v, fmt.Errorf("item visit: %w", err)
	}
	v.recent = platform.ParseIDs(recent)
	return s.readLikeCached(ctx, req.ItemID, v)
}

// readLikeCached adds the like box's reads to v through the client-side
// cache: the item's counters, and the shopper's own like when signed in.
func (s *Store) readLikeCached(ctx context.Context, itemID int64, v visitReads) (visitReads, error) {
	box, err := social.LikeBoxOf(ctx, s.csc, itemID, v.session.UserID)
	if err != nil {
		return v, fmt.Errorf("item visit: %w", err)
	}
	v.like = box
	return v, nil
}

// ViewSession is LoadSession for a request that changes nothing (a page
// read): a returning visitor's state comes through the client-side cache
// and its touch is written behind with the page cache hits' writes, so the
// request costs no blocking round trip. Requests that change data, and
// tokens the flush found gone, take LoadSession. Without client-side
// caching it is LoadSession.
func (s *Store) ViewSession(ctx context.Context, token string, claimedUserID int64) (SessionState, error) {
	if s.reader() == s.rdb || s.Sessions.Gone(token) {
		return s.LoadSession(ctx, token, claimedUserID)
	}
	st, err := sessions.ReadCached(ctx, s.csc, token, claimedUserID)
	if err != nil {
		// The caching client cannot answer (its server restarted, say):
		// read from Redis, and keep other reads off it for a while.
		s.cscFailedAt.Store(s.clock.Now().UnixNano())
		return s.LoadSession(ctx, token, claimedUserID)
	}
	if !st.Known {
		return st, nil
	}
	s.pages.writes.touch(token, st.UserID > 0, s.clock.Seconds())
	return st, nil
}
