package sessions

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/analytics"
	"storefront/store/cart"
	"storefront/store/keys"
	"storefront/store/notify"
	"storefront/store/platform"
)

// SessionState is what the server knows of a token: whether it is a live
// session, who is signed in on it, the header's cart count and unread
// notification count. It is read in one pipelined round trip.
type SessionState struct {
	Known  bool
	UserID int64
	// CartCount is the total quantity in the cart, every line, the same
	// number as SetCartLine's Cart.Count.
	CartCount int64
	// CartLines are the cart's lines: the header's badge counts those
	// the catalog can sell now.
	CartLines []cart.Line
	// Unread is the signed-in user's unread notifications, all kinds.
	Unread int64
}

// LoadSession reads a token's state and marks the session as seen, in one
// round trip. An unknown token yields Known=false and creates nothing: the
// touch uses ZADD XX, which only updates members that exist.
// claimedUserID is who the signed `user` cookie says is signed in (0 for
// none): their unread count is read in the same round trip, and the user is
// kept only if `login:` agrees.
//
// Where there is a client-side cache, only whether the session exists
// and who is signed in on it (the `login:` or `recent:` entry) come from
// Redis with the touch; the header's counts, which grant nothing, come
// through the cache (this instance's own writes drop its copies at once).
func (s *Service) LoadSession(ctx context.Context, token string, claimedUserID int64) (SessionState, error) {
	if c := s.reader.Cached(); c != nil {
		st, err := s.loadSessionCounted(ctx, c, token, claimedUserID)
		if err == nil {
			return st, nil
		}
		if !errors.Is(err, errCachedCounts) {
			return SessionState{}, err
		}
		s.reader.Failed()
	}
	pipe := s.rdb.Pipeline()
	reads := AddLoad(ctx, pipe, token, claimedUserID)
	s.addUpdateToken(ctx, pipe, token, claimedUserID == 0, 0)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return SessionState{}, fmt.Errorf("load session: %w", err)
	}
	return reads.State(), nil
}

// errCachedCounts is a failure of the caching client in
// loadSessionCounted: the session is read again without it.
var errCachedCounts = errors.New("cached counts")

// loadSessionCounted is LoadSession with the counts read through c, the
// client-side caching client.
func (s *Service) loadSessionCounted(ctx context.Context, c *redis.Client, token string, claimedUserID int64) (SessionState, error) {
	sid := keys.SessionID(token)
	pipe := s.rdb.Pipeline()
	var login *redis.StringCmd
	var seen *redis.FloatCmd
	if claimedUserID > 0 {
		login = pipe.HGet(ctx, keys.Login, sid)
	} else {
		seen = pipe.ZScore(ctx, keys.Recent, sid)
	}
	s.addUpdateToken(ctx, pipe, token, claimedUserID == 0, 0)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return SessionState{}, fmt.Errorf("load session: %w", err)
	}
	var st SessionState
	if login != nil {
		v, err := login.Result()
		st.Known = err == nil
		st.UserID, _ = strconv.ParseInt(v, 10, 64)
	} else {
		st.Known = seen.Err() == nil
	}
	if !st.Known {
		return st, nil
	}
	// The account's cart when `login:` agrees with the claim, else the
	// guest cart, as Load.State counts.
	var cartOf int64
	if st.UserID > 0 && st.UserID == claimedUserID {
		cartOf = st.UserID
	}
	lines, err := cart.LinesOf(ctx, c, token, cartOf)
	if err != nil && !errors.Is(err, redis.Nil) {
		return SessionState{}, fmt.Errorf("%w: %w", errCachedCounts, err)
	}
	st.CartLines, st.CartCount = lines, cart.Count(lines)
	if st.UserID > 0 && st.UserID == claimedUserID {
		if st.Unread, err = notify.UnreadOf(ctx, c, claimedUserID); err != nil && !errors.Is(err, redis.Nil) {
			return SessionState{}, fmt.Errorf("%w: %w", errCachedCounts, err)
		}
	}
	return st, nil
}

// Load is the queued reads of a session's state: one of seen and login,
// the cart's quantities and, with a claimed user, the unread counts.
type Load struct {
	seen    *redis.FloatCmd  // the `recent:` entry, without a claimed user
	login   *redis.StringCmd // the `login:` entry, with a claimed user
	cart    cart.CountRead
	unread  *notify.UnreadRead // nil without a claimed user
	claimed int64
}

// AddLoad queues the reads of a session's state on pipe, so that other
// work (an item view, a cache lookup) can share the round trip.
// A session is known by its `recent:` entry, and a signed-in one also by its
// `login:` entry (the two are written and deleted together), so one command
// tells whether the session exists: with a claimed user (claimedUserID > 0)
// the `login:` entry, which also says who is signed in, and otherwise the
// `recent:` entry (a visitor without a valid user cookie is anonymous
// whatever `login:` says). The claimed user's unread counts come too, and
// the quantities of the cart the header counts (see cart.AddCount), so that
// the header needs no other round trip.
func AddLoad(ctx context.Context, pipe redis.Pipeliner, token string, claimedUserID int64) Load {
	sid := keys.SessionID(token)
	r := Load{claimed: claimedUserID}
	if claimedUserID > 0 {
		r.login = pipe.HGet(ctx, keys.Login, sid)
		u := notify.AddUnread(ctx, pipe, claimedUserID)
		r.unread = &u
	} else {
		r.seen = pipe.ZScore(ctx, keys.Recent, sid)
	}
	r.cart = cart.AddCount(ctx, pipe, sid, claimedUserID)
	return r
}

// State reads the queued commands after the pipeline ran.
func (r Load) State() SessionState {
	var st SessionState
	if r.login != nil {
		v, err := r.login.Result()
		st.Known = err == nil
		st.UserID, _ = strconv.ParseInt(v, 10, 64)
	} else {
		st.Known = r.seen.Err() == nil
	}
	if !st.Known {
		return st
	}
	st.CartLines = r.cart.Lines(st.UserID)
	st.CartCount = cart.Count(st.CartLines)
	if r.unread != nil && st.UserID > 0 && st.UserID == r.claimed {
		st.Unread = r.unread.Total()
	}
	return st
}

// sessionScore is a session's `recent:` score when seen at now (fractional
// Unix seconds): signed-in sessions sort after every guest.
func sessionScore(now float64, signedIn bool) float64 {
	if signedIn {
		return now + keys.SignedInScore
	}
	return now
}

// Counts is a queued count of the sessions, for the dashboard and metrics.
type Counts struct{ total, signedIn, guests *redis.IntCmd }

// AddCounts queues the count of every session, the signed-in ones
// (`login:`) and the guests (the front of `recent:`, below
// keys.SignedInScore) on pipe.
func AddCounts(ctx context.Context, pipe redis.Pipeliner) Counts {
	return Counts{
		total:    pipe.ZCard(ctx, keys.Recent),
		signedIn: pipe.HLen(ctx, keys.Login),
		guests:   pipe.ZCount(ctx, keys.Recent, "-inf", "("+strconv.FormatFloat(keys.SignedInScore, 'f', -1, 64)),
	}
}

// Total, SignedIn and Guests are the counts once the pipeline ran.
func (c Counts) Total() int64    { return c.total.Val() }
func (c Counts) SignedIn() int64 { return c.signedIn.Val() }
func (c Counts) Guests() int64   { return c.guests.Val() }

// CreateSession registers a new token, as a guest (userID 0) or signed in.
// A guest session over the client address's cap is a
// *TooManySessionsError and is not stored.
func (s *Service) CreateSession(ctx context.Context, token string, userID int64) error {
	if userID == 0 {
		if err := s.Admit(ctx); err != nil {
			return err
		}
	}
	sid := keys.SessionID(token)
	pipe := s.rdb.TxPipeline()
	if platform.IsCluster(s.rdb) {
		pipe = s.rdb.Pipeline() // the keys live in different slots: no MULTI
	}
	if userID > 0 {
		pipe.HSet(ctx, keys.Login, sid, userID)
	}
	pipe.ZAdd(ctx, keys.Recent, redis.Z{Score: sessionScore(s.clock.Seconds(), userID > 0), Member: sid})
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// addUpdateToken queues an item view's session writes on pipe: touch the
// session, record the item as viewed and trim the session's list to the
// newest ViewedPerSession, and count the view in `viewed:`. guest
// says which part of `recent:` the session is in; the touch is ZADD XX GT,
// so it never creates a session, never moves one back in time when writes
// arrive out of order, and never moves a signed-in session among the
// guests when it is touched as a guest (a request without its user cookie).
func (s *Service) addUpdateToken(ctx context.Context, pipe redis.Pipeliner, token string, guest bool, itemID int64) {
	pipe.ZAddArgs(ctx, keys.Recent, redis.ZAddArgs{XX: true, GT: true,
		Members: []redis.Z{{Score: sessionScore(s.clock.Seconds(), !guest), Member: keys.SessionID(token)}}})
	if itemID > 0 {
		s.addViewedIDs(ctx, pipe, keys.SessionID(token), []int64{itemID})
		analytics.AddViews(ctx, pipe, itemID, 1)
	}
}

// AddNew queues the creation of a guest session.
func (s *Service) AddNew(ctx context.Context, pipe redis.Pipeliner, token string) {
	pipe.ZAdd(ctx, keys.Recent, redis.Z{Score: sessionScore(s.clock.Seconds(), false), Member: keys.SessionID(token)})
}

// UpdateToken records a known session's visit (and its view of itemID) in
// one round trip.
// itemID 0 only touches the session.
func (s *Service) UpdateToken(ctx context.Context, token string, guest bool, itemID int64) error {
	pipe := s.rdb.Pipeline()
	s.addUpdateToken(ctx, pipe, token, guest, itemID)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("update token: %w", err)
	}
	return nil
}

// RecentlyViewed returns the session's viewed item ids, newest first.
func (s *Service) RecentlyViewed(ctx context.Context, token string) ([]int64, error) {
	var r RecentRead
	err := s.reader.Read(ctx, func(c redis.Cmdable) error {
		r = AddRecent(ctx, c, token, s.opt.ViewedPerSession)
		return platform.CmdErr(r.Cmds()...)
	})
	if err != nil {
		return nil, fmt.Errorf("recently viewed: %w", err)
	}
	return r.IDs(), nil
}

// SignIn moves a session to a new token for userID and returns how many
// guest cart lines did not fit in the account's cart. The recently viewed
// items are copied over, a guest cart is merged into the account's cart
// (the guest's quantity wins for an item in both; see mergeCart) and the
// old token stops working. oldToken may be empty (no session yet). A
// session that belongs to another account (someone else signed in on this
// browser) is ended, not carried over: one shopper's cart never moves to
// another's account.
func (s *Service) SignIn(ctx context.Context, oldToken, newToken string, userID int64) (int64, error) {
	var guestCart *cart.GuestRead
	var viewed []int64
	if oldToken != "" {
		pipe := s.rdb.Pipeline()
		owner := pipe.HGet(ctx, keys.Login, keys.SessionID(oldToken))
		c := cart.AddGuestRead(ctx, pipe, oldToken)
		v := AddRecent(ctx, pipe, oldToken, s.opt.ViewedPerSession)
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return 0, fmt.Errorf("sign in: %w", err)
		}
		if o := owner.Val(); o == "" || o == strconv.FormatInt(userID, 10) {
			guestCart, viewed = &c, v.IDs()
		}
	}
	if err := s.upgradeUserSessions(ctx, userID); err != nil {
		return 0, fmt.Errorf("sign in: %w", err)
	}
	sid := keys.SessionID(newToken)
	pipe := s.rdb.Pipeline()
	merged := s.carts.AddMerge(ctx, pipe, userID, guestCart)
	if len(viewed) > 0 {
		pipe.Set(ctx, keys.SessionViewedOf(sid), PackViewed(viewed), 0)
	}
	pipe.HSet(ctx, keys.Login, sid, userID)
	pipe.ZAdd(ctx, keys.Recent, redis.Z{Score: sessionScore(s.clock.Seconds(), true), Member: sid})
	pipe.HSet(ctx, keys.UserSessions(userID), sid, sessionEntry(s.clock.Seconds(), ""))
	if oldToken != "" {
		s.addDeleteSession(ctx, pipe, keys.SessionID(oldToken))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("sign in: %w", err)
	}
	if oldToken != "" {
		s.gone.add(oldToken)
	}
	var dropped int64
	if merged != nil {
		dropped, _ = merged.Int64()
	}
	return dropped, s.pruneUserSessions(ctx, userID)
}

// EndSession deletes everything the token names (sign-out). An account's
// cart is the account's, not the session's, and stays. The token is
// remembered as gone here at once, so that even its `sid` cookie alone,
// replayed, is read from Redis and dropped on this instance's next page.
func (s *Service) EndSession(ctx context.Context, token string) error {
	pipe := s.rdb.Pipeline()
	s.addDeleteSession(ctx, pipe, keys.SessionID(token))
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	s.gone.add(token)
	return nil
}

// addDeleteSession queues the removal of every key and entry of a session.
// The session's keys share a slot (see keys.SessionViewed), so one UNLINK
// drops them all, also on Cluster.
func (s *Service) addDeleteSession(ctx context.Context, pipe redis.Pipeliner, sid string) {
	pipe.Unlink(ctx, sessionKeys(sid)...)
	pipe.HDel(ctx, keys.Login, sid)
	pipe.ZRem(ctx, keys.Recent, sid)
}

// SessionWithRecent reads a session's state and its recently viewed item
// ids (newest first) in one round trip. claimedUserID is as for
// LoadSession.
func (s *Service) SessionWithRecent(ctx context.Context, token string, claimedUserID int64) (SessionState, []int64, error) {
	pipe := s.rdb.Pipeline()
	reads := AddLoad(ctx, pipe, token, claimedUserID)
	recent := AddRecent(ctx, pipe, token, s.opt.ViewedPerSession)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return SessionState{}, nil, fmt.Errorf("load session: %w", err)
	}
	st := reads.State()
	if !st.Known {
		return st, nil, nil
	}
	return st, recent.IDs(), nil
}

// NewSessionView creates a guest session and records its first item view
// in one round trip. A session over the client address's cap is a
// *TooManySessionsError and nothing is stored.
func (s *Service) NewSessionView(ctx context.Context, token string, itemID int64) error {
	if err := s.Admit(ctx); err != nil {
		return err
	}
	pipe := s.rdb.Pipeline()
	s.AddNew(ctx, pipe, token)
	s.addUpdateToken(ctx, pipe, token, true, itemID)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("new session: %w", err)
	}
	return nil
}

// AddTouch queues a session's touch: the session was seen at now
// (fractional Unix seconds). ZADD XX GT: a session evicted meanwhile is
// not revived, nor moved back in time.
func AddTouch(ctx context.Context, pipe redis.Pipeliner, token string, signedIn bool, now float64) {
	pipe.ZAddArgs(ctx, keys.Recent, redis.ZAddArgs{XX: true, GT: true,
		Members: []redis.Z{{Score: sessionScore(now, signedIn), Member: keys.SessionID(token)}}})
}

// AddViews queues the session's half of several item views (item -> time
// viewed) in one script call: they go first in the session's viewed list,
// the newest at the front.
func (s *Service) AddViews(ctx context.Context, pipe redis.Pipeliner, token string, views map[int64]float64) {
	ids := make([]int64, 0, len(views))
	for id := range views {
		ids = append(ids, id)
	}
	// Newest first, as the viewed list holds them.
	sort.Slice(ids, func(i, j int) bool { return views[ids[i]] > views[ids[j]] })
	s.addViewedIDs(ctx, pipe, keys.SessionID(token), ids)
}

// ReadCached reads a returning visitor's session state through c, the
// client-side caching client, in lookups Redis answers in process while
// the keys are unchanged: with a claimed user, the `login:` entry (a
// missing one means the token is signed in no more: unknown) and the
// unread count; the cart's count always. A guest token's existence is
// not read (it is learnt behind: see Gone).
func ReadCached(ctx context.Context, c redis.Cmdable, token string, claimedUserID int64) (SessionState, error) {
	st := SessionState{Known: true}
	if claimedUserID > 0 {
		uid, err := c.HGet(ctx, keys.Login, keys.SessionID(token)).Result()
		switch {
		case errors.Is(err, redis.Nil):
			return SessionState{}, nil
		case err != nil:
			return SessionState{}, fmt.Errorf("session: %w", err)
		case uid == platform.FormatID(claimedUserID):
			st.UserID = claimedUserID
			unread, err := notify.UnreadOf(ctx, c, claimedUserID)
			if err != nil {
				return SessionState{}, fmt.Errorf("session: %w", err)
			}
			st.Unread = unread
		}
	}
	// The header counts the account's cart once the server agrees who is
	// signed in, else the session's guest cart (as the session read does).
	// The account's cart when `login:` agrees with the claim, else the
	// guest cart, as Load.State counts.
	var cartOf int64
	if st.UserID > 0 && st.UserID == claimedUserID {
		cartOf = st.UserID
	}
	lines, err := cart.LinesOf(ctx, c, token, cartOf)
	if err != nil {
		return SessionState{}, fmt.Errorf("session: %w", err)
	}
	st.CartLines, st.CartCount = lines, cart.Count(lines)
	return st, nil
}

// sessionKeys are every key of a session, to delete it: its viewed items
// (and the list sessions kept them in before), its guest cart. They share
// the session's slot.
func sessionKeys(sid string) []string {
	return []string{keys.SessionViewedOf(sid), keys.OldSessionViewedOf(sid), keys.GuestCartOf(sid)}
}
