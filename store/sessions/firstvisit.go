package sessions

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
)

// A first visit is served before Redis knows its session: the visitor gets
// a token at once (signed by the HTTP layer, so any instance can check it
// without Redis) and the session's creation, with the per-address cap's
// count, is written behind with the page's other writes. The token carries
// the time it was made, so that an instance that does not know the session
// yet (its creation still waits on another instance, or a flush failed)
// can tell a new session from one that ended: a token younger than
// PendingAge that Redis does not know is a new session still being
// written; an older one ended (evicted, signed out) and is dropped.

// PendingAge is how long after it was made a token Redis does not know
// still counts as a new session whose creation is on its way. Writes
// behind are flushed every WRITE_BEHIND (100 ms by default) and retried
// on the next flush when Redis is down for a moment; a minute covers both.
const PendingAge = time.Minute

// tokenTimeBytes is how much of a first visit's token holds its time:
// milliseconds since 1970, big-endian, in the first six bytes, with the
// top bit set to mark the token as a first visit's (tokens made with
// their session, at sign-in or a cart write, are random throughout and
// never pending). The other 26 bytes (208 bits) are random. A random
// token passes for a young first visit's with a chance of about one in
// 2^33, and then only counts as new once more.
const tokenTimeBytes = 6

const firstVisitBit = 1 << 47

// TokenBody is the random part of a session token: 32 bytes, base64url.
// A first visit's (firstVisit) carries the time it was made, now. The
// HTTP layer appends its MAC.
func TokenBody(now time.Time, firstVisit bool) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never happens on Linux
	}
	if firstVisit {
		var ms [8]byte
		binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli())|firstVisitBit)
		copy(b[:tokenTimeBytes], ms[8-tokenTimeBytes:])
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// firstVisitMade is when a first visit's token was made, read from its
// random part (its first eight base64 characters are the six bytes of
// the time); ok is false for other tokens.
func firstVisitMade(token string) (made time.Time, ok bool) {
	if len(token) < 8 {
		return time.Time{}, false
	}
	var b [8]byte
	if _, err := base64.RawURLEncoding.Decode(b[8-tokenTimeBytes:], []byte(token[:8])); err != nil {
		return time.Time{}, false
	}
	ms := binary.BigEndian.Uint64(b[:])
	if ms&firstVisitBit == 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(ms &^ firstVisitBit)), true
}

// Pending reports whether a token Redis does not know is a new session
// whose creation is still on its way: a first visit's, made less than
// PendingAge ago, and not found refused or ended by this instance.
func (s *Service) Pending(token string) bool {
	made, ok := firstVisitMade(token)
	if !ok || s.gone.has(token) {
		return false
	}
	age := s.clock.Now().Sub(made)
	return age >= -time.Second && age < PendingAge // a little clock skew between instances
}

// CappedHere reports, without asking Redis, whether this instance learnt
// that the context's client address is over the cap of new sessions: such
// a visitor is served without a session.
func (s *Service) CappedHere(ctx context.Context) bool {
	addr := clientAddr(ctx)
	if addr == "" {
		return false
	}
	_, ok := s.capped.Get(addr, s.clock.Now())
	return ok
}

// ClientAddr is the context's client address ("" for none), which a new
// session written behind carries to its admission.
func ClientAddr(ctx context.Context) string { return clientAddr(ctx) }

// NewSession is a new guest session whose creation waits to be written.
type NewSession struct {
	Token string
	Addr  string // the client address the cap counts it against
}

// AdmitNew counts each new session against its address's cap, in one
// round trip, and returns the tokens admitted. A refused one is
// remembered as gone (its visitor's next request drops it) and its
// address as capped until Redis's retry time, so that the address's next
// first visits get no token at all.
func (s *Service) AdmitNew(ctx context.Context, news []NewSession) (map[string]bool, error) {
	admitted := make(map[string]bool, len(news))
	var capped []NewSession
	for _, n := range news {
		if n.Addr == "" {
			admitted[n.Token] = true
		} else {
			capped = append(capped, n)
		}
	}
	if len(capped) == 0 {
		return admitted, nil
	}
	addrs := make([]string, len(capped))
	for i, n := range capped {
		addrs[i] = n.Addr
	}
	as, err := s.limiter.AllowMany(ctx, keys.RateNewSession, addrs, s.opt.SessionRate)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	for i, a := range as {
		if a.Allowed {
			admitted[capped[i].Token] = true
			continue
		}
		s.capped.Put(capped[i].Addr, now.Add(a.RetryAfter), now.Add(a.RetryAfter))
		s.gone.add(capped[i].Token)
	}
	return admitted, nil
}

// AddCreate queues the creation of an admitted guest session, seen at now
// (Unix seconds). NX: a session another instance made meanwhile keeps
// its entry.
func AddCreate(ctx context.Context, pipe redis.Pipeliner, token string, now float64) {
	pipe.ZAddNX(ctx, keys.Recent, redis.Z{Score: sessionScore(now, false), Member: keys.SessionID(token)})
}
