package pagecache

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/analytics"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/sessions"
)

// visitWrites are what one item page view writes: the session's touch
// and viewed list, the view count of the item (`viewed:` and its
// counter), and the page cache's statistics.
type visitWrites struct {
	itemID int64
	token  string // the session that viewed the item ("" for none)
	// create makes token's guest session first (a first visit): such
	// writes always go behind, where the session is admitted (addr).
	create   bool
	addr     string
	signedIn bool   // the session is signed in (its place in `recent:`)
	result   string // how the page was served, for stats:pagecache
	rendered bool   // a render that was not stored, for stats:pagecache
	sent     bool   // already sent with a stored page
	// countView counts the view of the item (known to exist), with or
	// without a session (a visitor over the new-session cap has none).
	countView bool
}

// addVisitWrites queues w on pipe, at time now (Unix seconds).
func (s *Service) addVisitWrites(ctx context.Context, pipe redis.Pipeliner, w *visitWrites, now float64) {
	if w.token != "" && !w.create {
		sessions.AddTouch(ctx, pipe, w.token, w.signedIn, now)
		s.sessions.AddViews(ctx, pipe, w.token, map[int64]float64{w.itemID: now})
	}
	if w.countView {
		analytics.AddViews(ctx, pipe, w.itemID, 1)
	}
	if w.result != "" {
		pipe.HIncrBy(ctx, keys.PageStats, w.result, 1)
	}
	if w.result == PageHit {
		addPageHit(ctx, pipe, w.itemID, 1)
	}
	if w.rendered {
		pipe.HIncrBy(ctx, keys.PageStats, "renders", 1)
	}
}

// sendWrites sends w now, unless it went with a stored page already.
func (s *Service) sendWrites(ctx context.Context, w *visitWrites) error {
	if w.sent {
		return nil
	}
	pipe := s.rdb.Pipeline()
	s.addVisitWrites(ctx, pipe, w, s.clock.Seconds())
	if pipe.Len() == 0 {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("item visit: %w", err)
	}
	return nil
}

// writeBehind buffers the writes of page cache hits, coalesced: one touch
// per session (the latest), one viewed-list entry per session and item
// (the latest), one increment per item and counter. They are flushed in
// one pipeline every WRITE_BEHIND and on Close, the touches (and the check
// that their sessions still exist) only every touchBehind: a session's
// last-seen time orders the cleanup and the account page's list, for which
// a second is precise enough, and a shopper's every page would otherwise
// cost two commands. Analytics, touches and the creation of first visits'
// sessions (with the per-address cap's count, at the next flush) wait
// here; a cart, an order or a vote is written before its response is
// sent, after the creation of its session (Settle).
type writeBehind struct {
	mu       sync.Mutex
	sessions map[string]*pendingSession // views, by token
	touches  map[string]*pendingSession // touches, by token
	views    map[int64]int64            // item -> views
	hits     map[int64]int64            // item -> page cache hits
	stats    map[string]int64           // stats:pagecache field -> increment
	flushMu  sync.Mutex                 // one flush at a time, so that counts stay in order
}

// touchBehind is how long touches wait in the buffer at most.
const touchBehind = time.Second

// pendingSession is one session's buffered touch, or its views and for a
// first visit its creation.
type pendingSession struct {
	seen     float64
	signedIn bool
	views    map[int64]float64 // item -> time viewed
	create   bool              // a new guest session, admitted at the flush
	addr     string            // the client address the cap counts it against
}

func newWriteBehind() *writeBehind {
	w := &writeBehind{}
	w.reset()
	return w
}

func (w *writeBehind) reset() {
	w.sessions, w.touches = map[string]*pendingSession{}, map[string]*pendingSession{}
	w.views, w.hits, w.stats = map[int64]int64{}, map[int64]int64{}, map[string]int64{}
}

// touchLocked buffers a session's touch; w.mu is held.
func (w *writeBehind) touchLocked(token string, signedIn bool, now float64) {
	ps := w.touches[token]
	if ps == nil {
		ps = &pendingSession{}
		w.touches[token] = ps
	}
	ps.seen, ps.signedIn = max(ps.seen, now), signedIn
}

// add buffers one view's writes, made at now (Unix seconds).
func (w *writeBehind) add(v visitWrites, now float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if v.token != "" {
		w.touchLocked(v.token, v.signedIn, now)
		ps := w.sessions[v.token]
		if ps == nil {
			ps = &pendingSession{views: map[int64]float64{}}
			w.sessions[v.token] = ps
		}
		ps.seen = max(ps.seen, now)
		if v.itemID > 0 {
			ps.views[v.itemID] = max(ps.views[v.itemID], now)
		}
		if v.create && !ps.create {
			ps.create, ps.addr = true, v.addr
		}
	}
	if v.countView {
		w.views[v.itemID]++
	}
	if v.result != "" {
		w.stats[v.result]++
	}
	if v.result == PageHit {
		w.hits[v.itemID]++
	}
	if v.rendered {
		w.stats["renders"]++
	}
}

// touch buffers a session's touch alone (a page view that is not an item
// view), made at now (Unix seconds).
func (w *writeBehind) touch(token string, signedIn bool, now float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.touchLocked(token, signedIn, now)
}

// creating reports whether token's session is a first visit's whose
// creation waits here.
func (w *writeBehind) creating(token string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	ps := w.sessions[token]
	return ps != nil && ps.create
}

// FlushWrites sends every buffered write of page cache hits now, in one
// pipeline, then deletes the viewed lists of sessions that turned out to
// be gone (evicted or signed out meanwhile), so that they leave no state.
func (s *Service) FlushWrites(ctx context.Context) error { return s.flushWrites(ctx, true) }

// flushWrites is FlushWrites, leaving the touches buffered unless
// withTouches.
func (s *Service) flushWrites(ctx context.Context, withTouches bool) error {
	w := s.writes
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	pending, touches, views, hits, stats := w.sessions, w.touches, w.views, w.hits, w.stats
	w.reset()
	if !withTouches {
		w.touches, touches = touches, nil
	}
	w.mu.Unlock()
	if len(pending)+len(touches)+len(views)+len(hits)+len(stats) == 0 {
		return nil
	}
	if err := s.admitNew(ctx, pending); err != nil {
		return fmt.Errorf("flush page cache writes: %w", err)
	}
	pipe := s.rdb.Pipeline()
	for token, ps := range pending {
		if ps.create {
			sessions.AddCreate(ctx, pipe, token, ps.seen)
		}
		if len(ps.views) == 0 {
			continue
		}
		s.sessions.AddViews(ctx, pipe, token, ps.views)
	}
	alive := make([]sessions.AliveRead, 0, len(touches))
	for token, ps := range touches {
		sessions.AddTouch(ctx, pipe, token, ps.signedIn, ps.seen)
		alive = append(alive, sessions.AddAlive(ctx, pipe, token))
	}
	for id, n := range views {
		analytics.AddViews(ctx, pipe, id, n)
	}
	ranks := make(map[int64]analytics.RankRead, len(hits))
	for id, n := range hits {
		addPageHit(ctx, pipe, id, n)
		// A page read from Redis checks its item's rank on the request; a
		// hit served from this process learns it here, one interval late.
		ranks[id] = analytics.AddRank(ctx, pipe, id)
	}
	for field, n := range stats {
		pipe.HIncrBy(ctx, keys.PageStats, field, n)
	}
	cmds, err := pipe.Exec(ctx)
	if err = platform.RealErr(cmds, err); err != nil {
		return fmt.Errorf("flush page cache writes: %w", err)
	}
	for id, r := range ranks {
		if rank := r.Rank(); rank < 0 || rank >= s.opt.Top {
			s.l1.purgeItem(id) // dropped out of the top: no longer cached
		}
	}
	pipe = s.rdb.Pipeline()
	for _, r := range alive {
		s.sessions.AddDropIfGone(ctx, pipe, r)
	}
	if pipe.Len() > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("flush page cache writes: %w", err)
		}
	}
	return nil
}

// admitNew counts the first visits' new sessions in pending against their
// addresses' cap and takes the refused ones out: they write nothing, and
// their visitors' next requests drop the tokens (sessions.AdmitNew).
func (s *Service) admitNew(ctx context.Context, pending map[string]*pendingSession) error {
	var news []sessions.NewSession
	for token, ps := range pending {
		if ps.create {
			news = append(news, sessions.NewSession{Token: token, Addr: ps.addr})
		}
	}
	if len(news) == 0 {
		return nil
	}
	admitted, err := s.sessions.AdmitNew(ctx, news)
	if err != nil {
		return err
	}
	for _, n := range news {
		if !admitted[n.Token] {
			delete(pending, n.Token)
		}
	}
	return nil
}

// runBackground flushes the buffered writes every WRITE_BEHIND and keeps
// the purge channel subscribed, until Close.
func (s *Service) runBackground() {
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan struct{})
	flushing := make(chan struct{})
	s.stopBackground = func() {
		cancel()
		<-listening
		<-flushing
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.FlushWrites(ctx); err != nil {
			s.log.Warn("final flush of page cache writes failed", "err", err)
		}
	}
	go s.listenPurges(ctx, listening)
	go func() {
		defer close(flushing)
		t := time.NewTicker(s.opt.WriteBehind)
		defer t.Stop()
		touched := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				withTouches := time.Since(touched) >= touchBehind-s.opt.WriteBehind/2
				if withTouches {
					touched = time.Now()
				}
				fctx, fcancel := context.WithTimeout(ctx, 5*time.Second)
				if err := s.flushWrites(fctx, withTouches); err != nil && ctx.Err() == nil {
					s.log.Warn("flush of page cache writes failed; those views are lost", "err", err)
				}
				fcancel()
			}
		}
	}()
}

// DefaultWriteBehind is how often buffered hit writes are flushed when
// WRITE_BEHIND is not set.
const DefaultWriteBehind = 100 * time.Millisecond

// DefaultL1Bytes bounds the in-process page cache when PAGE_L1_BYTES is
// not set.
const DefaultL1Bytes = 64 << 20

// Close stops the page cache's background work and flushes the buffered
// writes (shutdown). The clients are the caller's to close, after Close.
func (s *Service) Close() {
	s.closeOnce.Do(func() {
		if s.stopBackground != nil {
			s.stopBackground()
		}
	})
}
