package sessions

import (
	"context"
	"errors"
	"sync"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
)

// A returning guest's cached page is served without asking Redis whether
// the session still exists (its token's MAC is checked locally); that is
// learnt behind, when the page cache's buffered writes are flushed. A
// token found gone then is remembered here, so that its next request
// reads the session in full (and drops it). A token this instance ended
// itself (sign-out, the old token of a sign-in) is remembered at once.

// goneTokens remembers tokens found gone; bounded, since a forgotten one
// is found again by the next flush.
type goneTokens struct {
	mu sync.Mutex
	m  map[string]struct{}
}

const goneTokensMax = 10_000

func (d *goneTokens) add(token string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil || len(d.m) >= goneTokensMax {
		d.m = map[string]struct{}{}
	}
	d.m[token] = struct{}{}
}

func (d *goneTokens) has(token string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.m[token]
	return ok
}

// Gone reports whether a flush found the token's session gone: its next
// request must read the session from Redis.
func (s *Service) Gone(token string) bool { return s.gone.has(token) }

// AliveRead is a queued check that a session still exists.
type AliveRead struct {
	token string
	cmd   *redis.FloatCmd
}

// AddAlive queues, on pipe, the check that the token's session still
// exists (the writes behind a cached page's hits touch it without one).
func AddAlive(ctx context.Context, pipe redis.Pipeliner, token string) AliveRead {
	return AliveRead{token: token, cmd: pipe.ZScore(ctx, keys.Recent, keys.SessionID(token))}
}

// AddDropIfGone, once the pipeline of r ran, queues on pipe the deletion
// of what a session found gone left behind (the viewed list the writes
// behind just added to) and remembers its token as gone. It reports
// whether the session was gone.
func (s *Service) AddDropIfGone(ctx context.Context, pipe redis.Pipeliner, r AliveRead) bool {
	if !errors.Is(r.cmd.Err(), redis.Nil) {
		return false
	}
	sid := keys.SessionID(r.token)
	pipe.Unlink(ctx, keys.SessionViewedOf(sid), keys.OldSessionViewedOf(sid))
	s.gone.add(r.token)
	return true
}
