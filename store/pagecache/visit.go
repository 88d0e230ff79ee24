package pagecache

import (
	"context"
	"errors"
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
		// A first visit, or a visitor over the cap of new sessions: only
		// the item's counters.
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
// that change data take LoadSession; tokens the flush found gone, and
// everything without client-side caching, read from Redis. A new session
// whose creation is still on its way (sessions.Pending) is an empty guest
// session, and its creation is asked for again behind.
func (s *Service) ViewSession(ctx context.Context, token string, claimedUserID int64) (sessions.SessionState, error) {
	if err := s.Settle(ctx, token); err != nil {
		return sessions.SessionState{}, err
	}
	st, err := s.viewSession(ctx, token, claimedUserID)
	if err != nil || st.Known || !s.sessions.Pending(token) {
		return st, err
	}
	s.writes.add(visitWrites{token: token, create: true, addr: sessions.ClientAddr(ctx)}, s.clock.Seconds())
	return sessions.SessionState{Known: true}, nil
}

func (s *Service) viewSession(ctx context.Context, token string, claimedUserID int64) (sessions.SessionState, error) {
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

// LoadSession is the sessions' LoadSession for a request that changes
// data (a cart line, a vote, a sign-in): the visitor's session must exist
// before the change is written to it. A new session whose creation waits
// in this instance's writes behind is written first (Settle); one whose
// creation waits elsewhere is created now, counted against the address's
// cap like any new session (over it, the visitor is a guest without a
// session, as before).
func (s *Service) LoadSession(ctx context.Context, token string, claimedUserID int64) (sessions.SessionState, error) {
	if err := s.Settle(ctx, token); err != nil {
		return sessions.SessionState{}, err
	}
	st, err := s.sessions.LoadSession(ctx, token, claimedUserID)
	if err != nil || st.Known || !s.sessions.Pending(token) {
		return st, err
	}
	var tooMany *sessions.TooManySessionsError
	if err := s.sessions.CreateSession(ctx, token, 0); errors.As(err, &tooMany) {
		return st, nil
	} else if err != nil {
		return st, err
	}
	return sessions.SessionState{Known: true}, nil
}

// Settle writes the buffered writes now if token's session is a first
// visit's whose creation still waits in them, so that a request that
// reads or changes the session finds it in Redis.
func (s *Service) Settle(ctx context.Context, token string) error {
	if token == "" || !s.writes.creating(token) {
		return nil
	}
	return s.FlushWrites(ctx)
}
