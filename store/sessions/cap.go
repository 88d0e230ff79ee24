package sessions

import (
	"context"
	"fmt"
	"time"

	"storefront/store/keys"
)

// clientAddrKey keys the client's address in a request context.
type clientAddrKey struct{}

// WithClientAddr returns ctx carrying the client's address, which the
// session-creating functions use for the per-address cap. The HTTP layer
// sets it once per request, so that every path that creates a session
// (item views, cart writes) is capped without passing it along.
func WithClientAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, addr)
}

func clientAddr(ctx context.Context) string {
	addr, _ := ctx.Value(clientAddrKey{}).(string)
	return addr
}

// TooManySessionsError says a client address made SESSION_RATE new
// sessions already; RetryAfter is when it may make another.
type TooManySessionsError struct{ RetryAfter time.Duration }

func (e *TooManySessionsError) Error() string {
	return fmt.Sprintf("too many new sessions from this address; retry after %s", e.RetryAfter)
}

// Admit counts a new guest session against the per-address cap
// (Options.SessionRate) of the context's client. A client that never keeps
// cookies would otherwise store a session on every request: with the cap it
// stores at most SessionRate's N per window per address, and the cleanup
// worker keeps the total under SESSION_LIMIT. Contexts without an address
// (workers, tests of other things) are not capped.
func (s *Service) Admit(ctx context.Context) error {
	addr := clientAddr(ctx)
	if addr == "" {
		return nil
	}
	now := s.clock.Now()
	if until, ok := s.capped.Get(addr, now); ok {
		return &TooManySessionsError{RetryAfter: until.Sub(now)}
	}
	a, err := s.limiter.Allow(ctx, keys.RateNewSession, addr, s.opt.SessionRate)
	if err != nil {
		return err
	}
	if !a.Allowed {
		s.capped.Put(addr, now.Add(a.RetryAfter), now.Add(a.RetryAfter))
		return &TooManySessionsError{RetryAfter: a.RetryAfter}
	}
	return nil
}

// The capped addresses are client addresses over the cap of new sessions,
// kept until the time Redis said they may make another, so that a client
// that never keeps cookies costs no Redis round trip per request once
// refused. The memory is exact, not a guess: the cap is a sliding window,
// so no event on any instance can admit the address before that time;
// events elsewhere can only push it later, which the next ask learns.
// Bounded by cappedAddrsMax (platform.Memo: a forgotten address asks Redis).
const cappedAddrsMax = 100_000
