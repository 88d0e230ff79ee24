package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// SessionState is what the server knows of a token: whether it is a live
// session, who is signed in on it, the header's cart count and unread
// notification count. It is read in one pipelined round trip.
type SessionState struct {
	Known  bool
	UserID int64
	// CartCount is the total quantity in the cart (what shoppers expect the
	// badge to show), the same number as SetCartLine's Cart.Count.
	CartCount int64
	// Unread is the signed-in user's unread notifications, all kinds.
	Unread int64
}

// LoadSession reads a token's state and marks the session as seen, in one
// round trip. An unknown token yields Known=false and creates nothing: the
// touches use ZADD XX, which only updates members that exist.
// claimedUserID is who the signed `user` cookie says is signed in (0 for
// none): their unread count is read in the same round trip and kept only
// if `login:` agrees.
func (s *Store) LoadSession(ctx context.Context, token string, claimedUserID int64) (SessionState, error) {
	pipe := s.rdb.Pipeline()
	reads := s.addLoadSession(ctx, pipe, token, claimedUserID)
	s.addUpdateToken(ctx, pipe, token, true, 0)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return SessionState{}, fmt.Errorf("load session: %w", err)
	}
	return reads.state(), nil
}

// sessionReads are the queued reads of a session's state.
type sessionReads struct {
	seen    *redis.FloatCmd
	login   *redis.StringCmd
	cart    *redis.StringSliceCmd
	unread  *redis.StringSliceCmd // nil when no user is claimed
	claimed int64
}

// addLoadSession queues the reads of a session's state on pipe, so that
// other work (an item view, a cache lookup) can share the round trip.
// claimedUserID (0 for none) adds the claimed user's unread counts. The
// cart's quantities come back with HVALS so that the header can show the
// total quantity without another round trip (carts are capped at
// MaxCartLines lines, so the reply stays small).
func (s *Store) addLoadSession(ctx context.Context, pipe redis.Pipeliner, token string, claimedUserID int64) sessionReads {
	r := sessionReads{
		seen:    pipe.ZScore(ctx, keyRecent, token),
		login:   pipe.HGet(ctx, keyLogin, token),
		cart:    pipe.HVals(ctx, cartKey(token)),
		claimed: claimedUserID,
	}
	if claimedUserID > 0 {
		r.unread = s.addUnreadTotal(ctx, pipe, claimedUserID)
	}
	return r
}

// state reads the queued commands after the pipeline ran.
func (r sessionReads) state() SessionState {
	st := SessionState{Known: r.seen.Err() == nil}
	if !st.Known {
		return st
	}
	if v, err := r.login.Result(); err == nil {
		st.UserID, _ = strconv.ParseInt(v, 10, 64)
	}
	st.CartCount = sumQuantities(r.cart.Val())
	if r.unread != nil && st.UserID > 0 && st.UserID == r.claimed {
		st.Unread = unreadTotal(r.unread)
	}
	return st
}

// CreateSession registers a new token, as a guest (userID 0) or signed in.
func (s *Store) CreateSession(ctx context.Context, token string, userID int64) error {
	now := s.nowSeconds()
	pipe := s.rdb.TxPipeline()
	if s.opt.RedisMode == ModeCluster {
		pipe = s.rdb.Pipeline() // the keys live in different slots: no MULTI
	}
	pipe.ZAdd(ctx, keyRecent, redis.Z{Score: now, Member: token})
	if userID == 0 {
		pipe.ZAdd(ctx, keyGuests, redis.Z{Score: now, Member: token})
	} else {
		pipe.HSet(ctx, keyLogin, token, userID)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// addUpdateToken queues the book's update_token (Listing 2.9) on pipe:
// touch the session, record the item as viewed and trim the session's list
// to the newest ViewedPerSession, and count the view in `viewed:`.
func (s *Store) addUpdateToken(ctx context.Context, pipe redis.Pipeliner, token string, guest bool, itemID int64) {
	now := s.nowSeconds()
	pipe.ZAddXX(ctx, keyRecent, redis.Z{Score: now, Member: token})
	if guest { // XX: a signed-in token is not in guests: and is not added
		pipe.ZAddXX(ctx, keyGuests, redis.Z{Score: now, Member: token})
	}
	if itemID > 0 {
		id := strconv.FormatInt(itemID, 10)
		vk := viewedKey(token)
		pipe.ZAdd(ctx, vk, redis.Z{Score: now, Member: id})
		pipe.ZRemRangeByRank(ctx, vk, 0, -s.opt.ViewedPerSession-1)
		pipe.ZIncrBy(ctx, keyViewedItems, -1, id)
		addCountView(ctx, pipe, itemID)
	}
}

// UpdateToken runs update_token for a known session in one round trip.
// itemID 0 only touches the session.
func (s *Store) UpdateToken(ctx context.Context, token string, guest bool, itemID int64) error {
	pipe := s.rdb.Pipeline()
	s.addUpdateToken(ctx, pipe, token, guest, itemID)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("update token: %w", err)
	}
	return nil
}

// RecentlyViewed returns the session's viewed item ids, newest first.
func (s *Store) RecentlyViewed(ctx context.Context, token string) ([]int64, error) {
	ids, err := s.rdb.ZRevRange(ctx, viewedKey(token), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("recently viewed: %w", err)
	}
	return parseIDs(ids), nil
}

// SignIn moves a session to a new token for userID: the cart and the
// recently viewed items are copied over and the old token stops working.
// oldToken may be empty (no session yet). A session that belongs to another
// account (someone else signed in on this browser) is ended, not carried
// over: one shopper's cart never moves to another's account.
func (s *Store) SignIn(ctx context.Context, oldToken, newToken string, userID int64) error {
	var cart map[string]string
	var viewed []redis.Z
	if oldToken != "" {
		pipe := s.rdb.Pipeline()
		owner := pipe.HGet(ctx, keyLogin, oldToken)
		c := pipe.HGetAll(ctx, cartKey(oldToken))
		v := pipe.ZRangeWithScores(ctx, viewedKey(oldToken), 0, -1)
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("sign in: %w", err)
		}
		if o := owner.Val(); o == "" || o == strconv.FormatInt(userID, 10) {
			cart, viewed = c.Val(), v.Val()
		}
	}
	now := s.nowSeconds()
	pipe := s.rdb.Pipeline()
	if len(cart) > 0 {
		pipe.HSet(ctx, cartKey(newToken), cart)
	}
	if len(viewed) > 0 {
		pipe.ZAdd(ctx, viewedKey(newToken), viewed...)
	}
	pipe.HSet(ctx, keyLogin, newToken, userID)
	pipe.ZAdd(ctx, keyRecent, redis.Z{Score: now, Member: newToken})
	if oldToken != "" {
		s.addDeleteSession(ctx, pipe, oldToken)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	return nil
}

// EndSession deletes everything the token names (sign-out).
func (s *Store) EndSession(ctx context.Context, token string) error {
	pipe := s.rdb.Pipeline()
	s.addDeleteSession(ctx, pipe, token)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// addDeleteSession queues the removal of every key and entry of a session.
// Each command touches one key, so it is safe on Cluster.
func (s *Store) addDeleteSession(ctx context.Context, pipe redis.Pipeliner, tokens ...string) {
	members := make([]any, len(tokens))
	fields := make([]string, len(tokens))
	for i, t := range tokens {
		members[i], fields[i] = t, t
		pipe.Unlink(ctx, viewedKey(t))
		pipe.Unlink(ctx, cartKey(t))
	}
	pipe.HDel(ctx, keyLogin, fields...)
	pipe.ZRem(ctx, keyRecent, members...)
	pipe.ZRem(ctx, keyGuests, members...)
}

func parseIDs(ss []string) []int64 {
	out := make([]int64, 0, len(ss))
	for _, v := range ss {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// SessionWithRecent reads a session's state and its recently viewed item
// ids (newest first) in one round trip. claimedUserID is as for
// LoadSession.
func (s *Store) SessionWithRecent(ctx context.Context, token string, claimedUserID int64) (SessionState, []int64, error) {
	pipe := s.rdb.Pipeline()
	reads := s.addLoadSession(ctx, pipe, token, claimedUserID)
	recent := pipe.ZRevRange(ctx, viewedKey(token), 0, -1)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return SessionState{}, nil, fmt.Errorf("load session: %w", err)
	}
	st := reads.state()
	if !st.Known {
		return st, nil, nil
	}
	return st, parseIDs(recent.Val()), nil
}

// NewSessionView creates a guest session and records its first item view
// in one round trip.
func (s *Store) NewSessionView(ctx context.Context, token string, itemID int64) error {
	now := s.nowSeconds()
	pipe := s.rdb.Pipeline()
	pipe.ZAdd(ctx, keyRecent, redis.Z{Score: now, Member: token})
	pipe.ZAdd(ctx, keyGuests, redis.Z{Score: now, Member: token})
	s.addUpdateToken(ctx, pipe, token, true, itemID)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("new session: %w", err)
	}
	return nil
}
