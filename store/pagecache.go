package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

// Page cache results, as counted in metrics and in `stats:pagecache`.
const (
	PageHit    = "hit"
	PageMiss   = "miss"
	PageStale  = "stale"
	PageBypass = "bypass"
)

// pageCache is the page cache's per-process state. None of it is needed
// for correctness: it saves work (single flight, names) and counts.
type pageCache struct {
	names        *nameCache
	flight       singleflight.Group
	revalidating sync.Map // cache hash -> struct{}: a background render is under way
	background   sync.WaitGroup
	requests     *prometheus.CounterVec
	renders      prometheus.Counter
	// visitReaders add per-visitor reads to an item page's first round
	// trip, by fragment name: see addVisitReader.
	visitReaders map[string]visitReader
}

// initPageCache sets up the page cache, the row cache and view analytics:
// their state, metrics and workers.
func (s *Store) initPageCache() {
	s.pages = &pageCache{
		names: newNameCache(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_page_cache_requests_total",
			Help: "Item page requests by page cache result.",
		}, []string{"result"}),
		renders: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "storefront_page_renders_total",
			Help: "Item pages rendered from the database.",
		}),
		visitReaders: map[string]visitReader{},
	}
	for _, r := range []string{PageHit, PageMiss, PageStale, PageBypass} {
		s.pages.requests.WithLabelValues(r)
	}
	s.collectors = append(s.collectors, s.pages.requests, s.pages.renders)
	s.workers = append(s.workers, &rescaleWorker{s: s}, &rowCacheWorker{s: s})
}

// pageGrace is how long a page is served stale while it is rendered again:
// pages live PageCacheTTL fresh, then this much longer in Redis.
func (s *Store) pageGrace() time.Duration { return min(s.opt.PageCacheTTL, 30*time.Second) }

func (s *Store) pageHardTTL() time.Duration { return s.opt.PageCacheTTL + s.pageGrace() }

// PageGen is the purge generation of an item's pages and of all pages, read
// before a page's data: a page stored with older generations is ignored.
type PageGen struct{ Item, All int64 }

type pageGen = PageGen

// trackingParams are dropped from the cache key: they do not change a page.
func trackingParam(name string) bool {
	return strings.HasPrefix(name, "utm_") || name == "fbclid" || name == "gclid"
}

// PageKey returns the cache hash of a page URL: the SHA-256 hex of the path
// and the query sorted by name, without tracking parameters. It reports
// false when the URL asks to bypass the cache (a `_` parameter).
func PageKey(path string, query url.Values) (string, bool) {
	if _, ok := query["_"]; ok {
		return "", false
	}
	q := url.Values{}
	for k, v := range query {
		if !trackingParam(k) {
			q[k] = v
		}
	}
	u := path
	if len(q) > 0 {
		u += "?" + q.Encode() // Encode sorts by name
	}
	sum := sha256.Sum256([]byte(u))
	return hex.EncodeToString(sum[:]), true
}

// ItemVisit is an item page request as its first Redis round trip sees it.
type ItemVisit struct {
	ItemID int64
	// Token is the visitor's token (its MAC checked), or "".
	Token string
	// NewToken is a fresh token for a visitor without one: the guest
	// session is created in this round trip if the item is known to exist.
	NewToken string
	// PageKey is the page's cache hash; "" when the URL bypasses the cache.
	PageKey string
	// ClaimedUserID is the user the signed cookie names (0 for none): the
	// header's unread count is read for it in the same round trip.
	ClaimedUserID int64
}

// Visit is what the first round trip learnt.
type Visit struct {
	Session SessionState
	Recent  []int64 // the session's viewed items, newest first
	Rank    int64   // the item's rank in viewed: (0 = most viewed), -1 if unranked
	Page    *CachedPage
	PageTTL time.Duration // what is left of the stored page's life in Redis
	// Fresh says the page is within PAGE_CACHE_TTL; after that it lives a
	// grace period longer, served stale while it is rendered again.
	Fresh bool
	// FreshFor is how much longer the page is fresh (negative when stale).
	FreshFor time.Duration
	Gen      PageGen
	// Counted says the view was recorded (update_token): the item was
	// known to exist. Created says NewToken's session was made.
	Counted, Created bool
	// Extras are the results of the visit readers, by fragment name.
	Extras map[string]any
}

// visitReader queues a fragment's reads on an item page's first round trip
// and returns a function that yields the result after it ran. token is ""
// for a visitor without a session, and may turn out to be unknown to the
// server; req.ClaimedUserID is only what the signed cookie claims, which the
// fragment must check against the session before showing anything
// personal. A reader only reads.
type visitReader func(ctx context.Context, pipe redis.Pipeliner, token string, req ItemVisit) func() any

// addVisitReader registers a fragment's reads (the like box's count and
// the shopper's own like, say) so that a cache hit still costs one round
// trip. Call it from New.
func (s *Store) addVisitReader(name string, r visitReader) { s.pages.visitReaders[name] = r }

// VisitItem runs an item page's first round trip, all pipelined: the
// session's state and touch, the book's update_token when the item is
// known to exist (a view of an item the database never confirmed is
// counted only after it does, so hostile ids never enter `viewed:`), the
// item's rank, the purge generations, the session's recently viewed items,
// the stored page and its TTL, the fragments' reads, and the optimistic
// hit count (FinishVisit corrects it). On a cache hit nothing else is
// needed from Redis.
func (s *Store) VisitItem(ctx context.Context, req ItemVisit) (*Visit, error) {
	known := s.pages.names.known(req.ItemID)
	id := strconv.FormatInt(req.ItemID, 10)
	v := &Visit{Rank: -1}
	pipe := s.rdb.Pipeline()
	var reads *sessionReads
	token := req.Token
	switch {
	case token != "":
		r := s.addLoadSession(ctx, pipe, token, req.ClaimedUserID)
		reads = &r
		s.addUpdateToken(ctx, pipe, token, true, itemIf(known, req.ItemID))
		v.Counted = known
	case req.NewToken != "" && known:
		token, v.Created, v.Counted = req.NewToken, true, true
		s.addNewSession(ctx, pipe, token)
		s.addUpdateToken(ctx, pipe, token, true, req.ItemID)
	}
	var recent *redis.StringSliceCmd
	if token != "" {
		recent = pipe.ZRevRange(ctx, viewedKey(token), 0, s.opt.ViewedPerSession-1)
	}
	rank := pipe.ZRank(ctx, keyViewedItems, id)
	gen := pipe.HMGet(ctx, keyPageGen, id, pageGenAll)
	var page *redis.StringCmd
	var pttl *redis.DurationCmd
	if req.PageKey != "" {
		page, pttl = pipe.Get(ctx, cacheKey(req.PageKey)), pipe.PTTL(ctx, cacheKey(req.PageKey))
		pipe.HIncrBy(ctx, keyPageStats, PageHit, 1)
		addPageHit(ctx, pipe, req.ItemID, 1) // the dashboard's most-hit items
	} else {
		pipe.HIncrBy(ctx, keyPageStats, PageBypass, 1)
	}
	extras := make(map[string]func() any, len(s.pages.visitReaders))
	for name, r := range s.pages.visitReaders {
		extras[name] = r(ctx, pipe, token, req)
	}
	cmds, err := pipe.Exec(ctx)
	if err = realErr(cmds, err); err != nil {
		return nil, fmt.Errorf("item visit: %w", err)
	}
	if reads != nil {
		v.Session = reads.state()
	} else if v.Created {
		v.Session = SessionState{Known: true}
	}
	if recent != nil {
		v.Recent = parseIDs(recent.Val())
	}
	if r, err := rank.Result(); err == nil {
		v.Rank = r
	}
	v.Gen = parseGen(gen.Val())
	if page != nil {
		v.Page, v.PageTTL = s.validPage(page, req.ItemID, v.Gen), pttl.Val()
		v.Fresh = v.Page != nil && s.fresh(v.PageTTL)
		v.FreshFor = v.PageTTL - s.pageGrace()
	}
	if len(extras) > 0 {
		v.Extras = make(map[string]any, len(extras))
		for name, get := range extras {
			v.Extras[name] = get()
		}
	}
	return v, nil
}

// fresh reports whether a page with ttl left in Redis is within
// PAGE_CACHE_TTL.
func (s *Store) fresh(ttl time.Duration) bool {
	return ttl == -1 || ttl > s.pageGrace() // -1: no expiry set
}

func itemIf(ok bool, id int64) int64 {
	if ok {
		return id
	}
	return 0
}

// addNewSession queues the creation of a guest session.
func (s *Store) addNewSession(ctx context.Context, pipe redis.Pipeliner, token string) {
	now := s.nowSeconds()
	pipe.ZAdd(ctx, keyRecent, redis.Z{Score: now, Member: token})
	pipe.ZAdd(ctx, keyGuests, redis.Z{Score: now, Member: token})
}

// addSessionView queues the session half of update_token: the item goes
// first in the session's viewed list, trimmed to the newest ones.
func (s *Store) addSessionView(ctx context.Context, pipe redis.Pipeliner, token string, itemID int64) {
	vk := viewedKey(token)
	pipe.ZAdd(ctx, vk, redis.Z{Score: s.nowSeconds(), Member: strconv.FormatInt(itemID, 10)})
	pipe.ZRemRangeByRank(ctx, vk, 0, -s.opt.ViewedPerSession-1)
}

// validPage decodes a stored page, ignoring one that is unreadable, of
// another item or older than a purge.
func (s *Store) validPage(cmd *redis.StringCmd, itemID int64, gen PageGen) *CachedPage {
	b, err := cmd.Bytes()
	if err != nil {
		return nil
	}
	p, err := DecodePage(b)
	if err != nil || p.ItemID != itemID || p.GenItem < gen.Item || p.GenAll < gen.All {
		return nil
	}
	if !s.pages.names.known(p.ItemID) {
		s.pages.names.put(p.ItemID, p.ItemName, s.now())
	}
	return p
}

func parseGen(vals []any) PageGen {
	var g [2]int64
	for i := range min(len(vals), 2) {
		if str, ok := vals[i].(string); ok {
			g[i], _ = strconv.ParseInt(str, 10, 64)
		}
	}
	return PageGen{Item: g[0], All: g[1]}
}

// realErr returns the first error of a pipeline other than redis.Nil (a
// missing key is an answer, not a failure).
func realErr(cmds []redis.Cmder, err error) error {
	if err == nil {
		return nil
	}
	for _, c := range cmds {
		if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) {
			return e
		}
	}
	if errors.Is(err, redis.Nil) {
		return nil
	}
	return err
}

// VisitFinish is what an item page request writes once it knows that the
// item exists and how the page was served. It is sent with the page when
// this request rendered it, else on its own, and not at all when empty.
type VisitFinish struct {
	ItemID int64
	// Orphan is a token unknown to the server whose viewed list the first
	// round trip created: it is deleted (a token the server never issued
	// creates no state).
	Orphan string
	// NewToken is a guest session to create, with this view in its list.
	NewToken string
	// Token is a live session whose list gets the view.
	Token string
	// CountView counts the view in `viewed:`.
	CountView bool
	// Rendered counts a render that was not stored (stored ones are
	// counted with the page).
	Rendered bool
	// Result is how the page was served; Optimistic says the first round
	// trip counted a hit, which Result corrects.
	Result     string
	Optimistic bool
	sent       bool
}

func (f *VisitFinish) empty() bool {
	return f.Orphan == "" && f.NewToken == "" && f.Token == "" && !f.CountView && !f.Rendered &&
		!(f.Optimistic && f.Result != PageHit)
}

// addFinish queues f's writes on pipe.
func (s *Store) addFinish(ctx context.Context, pipe redis.Pipeliner, f *VisitFinish) {
	if f.Orphan != "" {
		pipe.Unlink(ctx, viewedKey(f.Orphan))
	}
	if f.NewToken != "" {
		s.addNewSession(ctx, pipe, f.NewToken)
		s.addSessionView(ctx, pipe, f.NewToken, f.ItemID)
	}
	if f.Token != "" {
		s.addSessionView(ctx, pipe, f.Token, f.ItemID)
	}
	if f.CountView {
		pipe.ZIncrBy(ctx, keyViewedItems, -1, strconv.FormatInt(f.ItemID, 10))
	}
	if f.Optimistic && f.Result != PageHit {
		pipe.HIncrBy(ctx, keyPageStats, PageHit, -1)
		pipe.HIncrBy(ctx, keyPageStats, f.Result, 1)
		addPageHit(ctx, pipe, f.ItemID, -1)
	}
	if f.Rendered {
		pipe.HIncrBy(ctx, keyPageStats, "renders", 1)
	}
	f.sent = true
}

// FinishVisit sends f's writes unless they went with the page already,
// and counts the result.
func (s *Store) FinishVisit(ctx context.Context, f *VisitFinish) error {
	if f.Result != "" {
		s.pages.requests.WithLabelValues(f.Result).Inc()
	}
	if f.sent || f.empty() {
		return nil
	}
	pipe := s.rdb.Pipeline()
	s.addFinish(ctx, pipe, f)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("item visit: %w", err)
	}
	return nil
}

// PurgeItemPages deletes the cached pages of the items at once (an edit,
// a checkout that changed stock). Bumping the item's purge generation
// first also voids a page being rendered from data read before the purge.
// A scheduled row's cached JSON goes too and is refreshed by the next
// worker pass, so the next render reads the database, not the old row.
func (s *Store) PurgeItemPages(ctx context.Context, itemIDs ...int64) error {
	_, err := s.purgeItemPages(ctx, itemIDs)
	return err
}

// PurgeItemPagesCount is PurgeItemPages, reporting how many pages went.
func (s *Store) PurgeItemPagesCount(ctx context.Context, itemIDs ...int64) (int, error) {
	return s.purgeItemPages(ctx, itemIDs)
}

func (s *Store) purgeItemPages(ctx context.Context, ids []int64) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	pipe := s.rdb.Pipeline()
	members := make([]*redis.StringSliceCmd, len(ids))
	for i, id := range ids {
		pipe.HIncrBy(ctx, keyPageGen, strconv.FormatInt(id, 10), 1)
		members[i] = pipe.SMembers(ctx, pageKeysKey(id))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("purge pages: %w", err)
	}
	pipe = s.rdb.Pipeline()
	n := 0
	for i, id := range ids {
		for _, h := range members[i].Val() {
			pipe.Unlink(ctx, cacheKey(h))
			n++
		}
		pipe.Unlink(ctx, pageKeysKey(id))
		pipe.Unlink(ctx, invKey(id))
		pipe.ZAddXX(ctx, keySchedule, redis.Z{Score: s.nowSeconds(), Member: strconv.FormatInt(id, 10)})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("purge pages: %w", err)
	}
	return n, nil
}

// PurgeAllPages deletes every cached page: it bumps the global purge
// generation (voiding pages in flight), then scans `cache:*` and
// `pagekeys:*` on every master. It returns how many pages it deleted.
func (s *Store) PurgeAllPages(ctx context.Context) (int, error) {
	if err := s.rdb.HIncrBy(ctx, keyPageGen, pageGenAll, 1).Err(); err != nil {
		return 0, fmt.Errorf("purge all pages: %w", err)
	}
	var mu sync.Mutex
	total := 0
	err := s.forEachMaster(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		for _, match := range []string{"cache:*", "pagekeys:*"} {
			n, err := unlinkMatching(ctx, c, match)
			if err != nil {
				return err
			}
			if match == "cache:*" {
				mu.Lock()
				total += n
				mu.Unlock()
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("purge all pages: %w", err)
	}
	return total, nil
}

// forEachMaster runs fn on every master of a Cluster, or on the one server.
func (s *Store) forEachMaster(ctx context.Context, fn func(context.Context, redis.UniversalClient) error) error {
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return fn(ctx, c) })
	}
	return fn(ctx, s.rdb)
}

// unlinkMatching deletes the keys matching a pattern on one server, one
// key per command (keys of one node may be in different slots).
func unlinkMatching(ctx context.Context, c redis.UniversalClient, match string) (int, error) {
	n := 0
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, match, 500).Result()
		if err != nil {
			return n, err
		}
		if len(keys) > 0 {
			pipe := c.Pipeline()
			for _, k := range keys {
				pipe.Unlink(ctx, k)
			}
			if _, err := pipe.Exec(ctx); err != nil {
				return n, err
			}
			n += len(keys)
		}
		if cursor = next; cursor == 0 {
			return n, nil
		}
	}
}

// PageCacheStats returns the page cache counters shared by all instances
// (hit, miss, stale, bypass, renders).
func (s *Store) PageCacheStats(ctx context.Context) (map[string]int64, error) {
	m, err := s.rdb.HGetAll(ctx, keyPageStats).Result()
	if err != nil {
		return nil, fmt.Errorf("page cache stats: %w", err)
	}
	out := map[string]int64{PageHit: 0, PageMiss: 0, PageStale: 0, PageBypass: 0, "renders": 0}
	for k, v := range m {
		out[k], _ = strconv.ParseInt(v, 10, 64)
	}
	return out, nil
}
