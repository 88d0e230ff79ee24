package pagecache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"

	"storefront/store/analytics"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/media"
	"storefront/store/pagecache/pagebody"
	"storefront/store/platform"
	"storefront/store/reviews"
	"storefront/store/sessions"
	"storefront/store/social"
)

// Page cache results, as counted in metrics and in `stats:pagecache`.
const (
	PageHit    = "hit"
	PageMiss   = "miss"
	PageStale  = "stale"
	PageBypass = "bypass"
)

// Service is the page cache. Its per-process state is the in-process
// copy of stored pages (l1), the buffered writes of hits, single flight,
// the background renders and metrics; Redis stays the truth.
type Service struct {
	rdb     redis.UniversalClient
	log     *slog.Logger
	clock   *platform.Clock
	reader  *platform.Reader
	opt     Options
	catalog *catalog.Service
	media   *media.Service
	reviews *reviews.Service
	// sessions reads and writes the visitors' sessions on the page
	// cache's pipelines.
	sessions *sessions.Service
	// purgedAll are the listeners of a purge of every page (OnPurgeAll).
	purgedAll []func(context.Context)

	l1           *l1Cache
	writes       *writeBehind
	flight       singleflight.Group
	revalidating sync.Map // cache hash -> struct{}: a background render is under way
	background   sync.WaitGroup
	requests     *prometheus.CounterVec
	renders      prometheus.Counter
	// stopBackground ends the write-behind flusher and the purge listener
	// (writebehind.go); Close calls it once.
	stopBackground func()
	closeOnce      sync.Once
}

// Options are the page cache's knobs.
type Options struct {
	TTL time.Duration // how long a page is fresh (PAGE_CACHE_TTL)
	// Top: only items ranked below this in views are cached
	// (PAGE_CACHE_TOP).
	Top int64
	// L1Bytes bounds the in-process copy of pages (PAGE_L1_BYTES; 0 takes
	// DefaultL1Bytes, negative turns it off).
	L1Bytes int64
	// WriteBehind is how often the buffered writes of hits are flushed
	// (WRITE_BEHIND; 0 takes DefaultWriteBehind).
	WriteBehind time.Duration
	// ViewedPerSession is how many recently viewed items a page lists.
	ViewedPerSession int64
	// Build names the program's build (BUILD_ID): a stored page rendered
	// by another build is a miss, so a deploy that changes templates
	// serves no page the old ones rendered.
	Build string
}

// Deps are the domains whose data an item page shows or records.
type Deps struct {
	Catalog  *catalog.Service
	Media    *media.Service
	Reviews  *reviews.Service
	Sessions *sessions.Service
}

// New returns the page cache and starts its background work (the
// write-behind flusher and the purge listener), which Close stops.
func New(b platform.Base, opt Options, d Deps) *Service {
	if opt.L1Bytes == 0 {
		opt.L1Bytes = DefaultL1Bytes // negative: off
	}
	if opt.WriteBehind <= 0 {
		opt.WriteBehind = DefaultWriteBehind
	}
	s := &Service{
		rdb: b.Redis, log: b.Log, clock: b.Clock, reader: b.Reader, opt: opt,
		catalog: d.Catalog, media: d.Media, reviews: d.Reviews, sessions: d.Sessions,
		l1:     newL1Cache(opt.L1Bytes),
		writes: newWriteBehind(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_page_cache_requests_total",
			Help: "Item page requests by page cache result.",
		}, []string{"result"}),
		renders: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "storefront_page_renders_total",
			Help: "Item pages rendered from the database.",
		}),
	}
	for _, r := range []string{PageHit, PageMiss, PageStale, PageBypass} {
		s.requests.WithLabelValues(r)
	}
	s.runBackground()
	return s
}

// Collectors are the page cache's Prometheus series.
func (s *Service) Collectors() []prometheus.Collector {
	return []prometheus.Collector{s.requests, s.renders}
}

// pageGrace is how long a page is served stale while it is rendered again:
// pages live PAGE_CACHE_TTL fresh, then this much longer in Redis.
func (s *Service) pageGrace() time.Duration { return min(s.opt.TTL, 30*time.Second) }

func (s *Service) pageHardTTL() time.Duration { return s.opt.TTL + s.pageGrace() }

// PageGen is the purge generation of an item's pages and of all pages, read
// before a page's data: a page stored with older generations is ignored.
type PageGen struct{ Item, All int64 }

// ItemPath is the canonical URL path of an item page, the base of its
// cache key.
func ItemPath(id int64) string { return "/items/" + strconv.FormatInt(id, 10) }

// pageKey is the whole cacheability rule of the URL: `variant`, the chosen
// variant, is part of the key when it is one id (the page of an id that is
// not one of the item's variants is a 404, which is never stored, so
// inventing ids cannot mint entries); a `_` parameter (a cache-buster)
// bypasses the cache but still shows the chosen variant; every other
// parameter is dropped from the key, since the item page reads none. The
// key is the SHA-256 hex of the canonical path and query. variant is the
// chosen variant, 0 for the item's default.
func pageKey(itemID int64, query url.Values) (key string, variant int64, ok bool) {
	key = PageKey(itemID)
	if vs := query["variant"]; len(vs) == 1 {
		if v, err := strconv.ParseInt(vs[0], 10, 64); err == nil && v > 0 && strconv.FormatInt(v, 10) == vs[0] {
			key, variant = VariantPageKey(itemID, v), v
		}
	}
	if _, bust := query["_"]; bust {
		return "", variant, false
	}
	return key, variant, true
}

// VariantPageKey is the cache hash of an item's page with a variant
// chosen (PageKey for variant 0).
func VariantPageKey(itemID, variant int64) string {
	if variant == 0 {
		return PageKey(itemID)
	}
	sum := sha256.Sum256([]byte(ItemPath(itemID) + "?variant=" + strconv.FormatInt(variant, 10)))
	return hex.EncodeToString(sum[:])
}

// PageKey is the cache hash of an item's page.
func PageKey(itemID int64) string {
	sum := sha256.Sum256([]byte(ItemPath(itemID)))
	return hex.EncodeToString(sum[:])
}

// RenderFunc renders an item page for an anonymous visitor from the data
// the page cache gathered first: a pure function (the views), which reads
// nothing itself.
type RenderFunc func(ctx context.Context, d PageData) ([]byte, error)

// PageData is everything an item page shows that is the same for every
// visitor, and so is stored with the page: the item, its pictures, its
// newest reviews and rating, its view count, the items most often bought
// with it (existing ones, most first, with their names) and how many
// orders included it.
type PageData struct {
	Item     catalog.Item
	Pictures []media.ItemImage
	Reviews  []reviews.Review
	Rating   reviews.Rating
	Views    int64
	// AlsoBought is what was most often bought with the chosen variant
	// (AlsoBoughtOf names it, each line with its variant), or with the
	// item when no variant is chosen or nobody bought the chosen one with
	// anything yet (AlsoBoughtOf is 0, the lines are items).
	AlsoBought   []NamedItem
	AlsoBoughtOf int64
	Buyers       int64
	// Variants are the item's variants (none without options) and
	// Variant the one the URL chose (0: none chosen, the page picks).
	Variants []catalog.Variant
	Variant  int64
}

// NamedItem is an item as a list of links shows it, with its variant
// (VariantID 0 for none) named by its SKU and options.
type NamedItem struct {
	ID        int64
	Name      string
	VariantID int64
	SKU       string
	Variant   string
}

// ViewToBuy is the percentage of the item's views that ended in an order.
func (f PageData) ViewToBuy() (int64, bool) {
	return analytics.AlsoBought{Buyers: f.Buyers}.ViewToBuy(f.Views)
}

// ItemPageRequest is an item page request as the page cache sees it.
type ItemPageRequest struct {
	ItemID int64
	Query  url.Values
	// Token is the visitor's token (its MAC checked), or "".
	Token string
	// NewToken makes a fresh token, called only if the visitor ends up
	// without a live session and the item exists.
	NewToken func() string
	// ClaimedUserID is the user the signed cookie names (0 for none); the
	// session must confirm it (Session.UserID) before anything personal
	// is shown.
	ClaimedUserID int64
	Render        RenderFunc
	// Slug is the words the URL gave after the id ("" for a bare id), and
	// SlugMatches says whether they are an item name's slug (nil: the
	// URL is not checked). A URL whose words are not the item's current
	// slug is answered before anything is read or recorded: ItemView.Moved.
	Slug        string
	SlugMatches func(name, slug string) bool
}

// ItemView is everything the handler needs to answer an item page request.
type ItemView struct {
	Page   *pagebody.Page
	Result string // PageHit, PageMiss, PageStale or PageBypass
	// FreshFor is how much longer the page is fresh (negative when stale).
	FreshFor time.Duration
	// Token is the visitor's live session after the request ("" for
	// none); NewSession says it was made now (set its cookie), and
	// DroppedToken that the request's token is unknown to the server
	// (clear the cookies).
	Token        string
	NewSession   bool
	DroppedToken bool
	// Session is the server's state of Token.
	Session sessions.SessionState
	// Recent is the session's viewed items, this one first.
	Recent []int64
	Like   social.LikeBox
	// Degraded says Redis is down: the page comes from the database alone,
	// with no session and nothing recorded.
	Degraded bool
	// Moved says the URL's slug is not the item's current one, named by
	// Name: the page answers 301 to its URL, with nothing read from Redis
	// or recorded.
	Moved bool
	Name  string
}

// ServeItemPage is the page cache's one door: it decides hit, stale, miss
// or bypass, reads and records the visit, and returns the page and the
// visitor's state. A hit found in this process's copy (l1) sends its
// writes behind (session touch, viewed list, view counts, page stats) and
// reads only what the visitor's holes need, in one round trip; nothing is
// read for the page itself.
func (s *Service) ServeItemPage(ctx context.Context, req ItemPageRequest) (ItemView, error) {
	key, variant, cacheable := pageKey(req.ItemID, req.Query)
	now := s.clock.Now()
	var local *l1Entry
	if cacheable {
		local = s.l1.get(key, now)
	}
	if req.SlugMatches != nil {
		if moved, name := s.slugMoved(ctx, req, local); moved {
			return ItemView{Moved: true, Name: name}, nil
		}
	}
	ep := s.l1.epoch(req.ItemID)
	if req.Token != "" {
		// Its session may still wait to be created here: write it first,
		// so that what the visitor did shows.
		if err := s.Settle(ctx, req.Token); err != nil && !platform.IsUnavailable(err) {
			return ItemView{}, err
		}
	}
	var v visitReads
	var err error
	// Every visitor's holes are read through the client-side cache when
	// the page is in this process: a returning one's session, and for a
	// first visit or one left without a session only the item's counters.
	cachedRead := false
	if c := s.reader.Cached(); local != nil && c != nil && !s.sessions.Gone(req.Token) {
		v, err = s.readVisitCached(ctx, c, req)
		if cachedRead = err == nil; !cachedRead {
			// The caching client cannot answer (its server restarted,
			// say): keep reads off it for a while and read from Redis.
			s.reader.Failed()
		}
	}
	if !cachedRead {
		v, err = s.readVisit(ctx, req, key, cacheable && local == nil)
	}
	if platform.IsUnavailable(err) {
		return s.degradedPage(ctx, req)
	}
	if err != nil {
		return ItemView{}, err
	}
	out := ItemView{Session: v.session, Recent: withFront(req.ItemID, v.recent, int(s.opt.ViewedPerSession)), Like: v.like}
	w := visitWrites{itemID: req.ItemID, countView: true}
	switch {
	case v.session.Known:
		out.Token, w.token, w.signedIn = req.Token, req.Token, v.session.UserID > 0
	case req.Token != "" && s.sessions.Pending(req.Token):
		// A new session whose creation waits on another instance (or on a
		// flush that failed): it is this visitor's, created behind again.
		out.Session = sessions.SessionState{Known: true}
		out.Token, w.token, w.create = req.Token, req.Token, true
	case req.Token != "":
		// A well-formed token the server does not know (evicted, signed
		// out, replayed): the visitor is anonymous and gets a new session.
		out.DroppedToken = true
		out.Session = sessions.SessionState{}
		out.Recent = []int64{req.ItemID}
		fallthrough
	default:
		// A first visit's token; its session is created behind.
		if newToken := s.makeToken(ctx, req); newToken != "" {
			out.Session = sessions.SessionState{Known: true}
			out.Token, out.NewSession, w.token, w.create = newToken, true, newToken, true
		}
	}
	fill := pageFill{Key: key, ItemID: req.ItemID, Variant: variant, Gen: v.gen, Names: out.Recent, Render: req.Render, Views: v.like.Counts.Views, epoch: ep}
	switch {
	case local != nil:
		out.Page, out.Result, out.FreshFor = local.page, PageHit, local.freshUntil.Sub(now)
		if out.FreshFor < 0 {
			out.Result = PageStale
			s.revalidatePage(fill)
		}
	case !cacheable || v.rank < 0 || v.rank >= s.opt.Top:
		out.Result = PageBypass
		out.Page, err = s.buildPage(ctx, fill)
		w.rendered = err == nil
	case v.page != nil:
		out.Page, out.FreshFor = v.page, v.pageTTL-s.pageGrace()
		out.Result = PageHit
		if !s.isFresh(v.pageTTL) {
			out.Result = PageStale
			s.revalidatePage(fill)
		} else {
			s.l1.put(key, v.page, now, v.pageTTL, s.pageGrace(), ep)
		}
	default:
		out.Result, w.result = PageMiss, PageMiss
		var outcome string
		fill.writes = &w
		out.Page, outcome, err = s.fillPage(ctx, fill)
		if outcome == fillStale {
			out.Result = PageStale
		}
	}
	if errors.Is(err, platform.ErrNotFound) || errors.Is(err, platform.ErrGone) {
		// Nothing is recorded and no session made for an item the
		// database does not know or that was archived (410 Gone).
		s.requests.WithLabelValues(PageBypass).Inc()
		out.Token, out.NewSession = "", false
		if v.session.Known {
			out.Token = req.Token
		}
		if werr := s.sendWrites(ctx, &visitWrites{itemID: req.ItemID, result: PageBypass}); werr != nil {
			return out, werr
		}
		return out, err
	}
	if err != nil {
		return ItemView{}, err
	}
	if w.create {
		// A first visit's session and its view of the item go behind: the
		// visitor waits on nothing, and the flush counts the session
		// against its address's cap before creating it.
		s.writes.add(visitWrites{itemID: req.ItemID, token: w.token, create: true, addr: sessions.ClientAddr(ctx)}, s.clock.Seconds())
		w.token, w.create = "", false
	}
	w.result = out.Result
	s.requests.WithLabelValues(out.Result).Inc()
	if out.Result == PageHit {
		// Nothing here loses a cart, an order or a vote: what waits is
		// the session's touch and the analytics.
		s.writes.add(w, s.clock.Seconds())
		return out, nil
	}
	return out, s.sendWrites(ctx, &w)
}

// slugMoved reports whether the request's slug is not the item's current
// one, and its current name. The name comes from the page held in process
// (a hit pays one comparison), else from the catalog's name cache or the
// database; an item the catalog does not know is not moved (its page
// answers 404 or 410).
func (s *Service) slugMoved(ctx context.Context, req ItemPageRequest, local *l1Entry) (bool, string) {
	if local != nil {
		return !req.SlugMatches(local.page.ItemName, req.Slug), local.page.ItemName
	}
	names, err := s.catalog.ItemNames(ctx, []int64{req.ItemID})
	if err != nil {
		return false, "" // the page itself says what went wrong
	}
	name, ok := names[req.ItemID]
	return ok && !req.SlugMatches(name, req.Slug), name
}

// makeToken makes a first visit's guest token without asking Redis, or
// "" when this instance learnt that the client address is over its cap
// of new sessions (the page is still served, with no session). The cap
// itself is counted behind, when the session is created.
func (s *Service) makeToken(ctx context.Context, req ItemPageRequest) string {
	if req.NewToken == nil || s.sessions.CappedHere(ctx) {
		return ""
	}
	return req.NewToken()
}

// isFresh reports whether a page with ttl left in Redis is within
// PAGE_CACHE_TTL (older ones are stale: served while rendered again).
func (s *Service) isFresh(ttl time.Duration) bool {
	return ttl == -1 || ttl > s.pageGrace() // -1: no expiry set
}

// visitReads is what an item page's one read round trip learnt.
type visitReads struct {
	session sessions.SessionState
	recent  []int64 // the session's viewed items, newest first
	rank    int64   // the item's rank in viewed: (0 = most viewed), -1 if unranked
	gen     PageGen
	page    *pagebody.Page
	pageTTL time.Duration // what is left of the stored page's life in Redis
	like    social.LikeBox
}

// readVisit reads, in one pipelined round trip, the session's state and
// viewed items, the like box's counts, and (withPage) the item's rank, the
// purge generations and the stored page.
func (s *Service) readVisit(ctx context.Context, req ItemPageRequest, key string, withPage bool) (visitReads, error) {
	v := visitReads{rank: -1}
	pipe := s.rdb.Pipeline()
	var reads *sessions.Load
	var recent sessions.RecentRead
	if req.Token != "" {
		r := sessions.AddLoad(ctx, pipe, req.Token, req.ClaimedUserID)
		reads = &r
		recent = sessions.AddRecent(ctx, pipe, req.Token, s.opt.ViewedPerSession)
	}
	like := social.AddLikeBox(ctx, pipe, req.ItemID, req.ClaimedUserID)
	var rank analytics.RankRead
	var gen *redis.SliceCmd
	var page *redis.StringCmd
	var pttl *redis.DurationCmd
	if withPage {
		rank = analytics.AddRank(ctx, pipe, req.ItemID)
		gen = pipe.HMGet(ctx, keys.PageGen, platform.FormatID(req.ItemID), keys.PageGenAll)
		page, pttl = pipe.Get(ctx, keys.Page(key)), pipe.PTTL(ctx, keys.Page(key))
	}
	cmds, err := pipe.Exec(ctx)
	if err = platform.RealErr(cmds, err); err != nil {
		return v, fmt.Errorf("item visit: %w", err)
	}
	if reads != nil {
		v.session = reads.State()
		if v.session.Known {
			v.recent = recent.IDs()
		}
	}
	v.like = like.Box()
	if withPage {
		v.rank = rank.Rank()
		v.gen = parseGen(gen.Val())
		v.page, v.pageTTL = s.validPage(page, req.ItemID, v.gen), pttl.Val()
	}
	return v, nil
}

// degradedPage serves an item page from the database alone while Redis is
// down: no session, no view, no cache.
func (s *Service) degradedPage(ctx context.Context, req ItemPageRequest) (ItemView, error) {
	_, variant, _ := pageKey(req.ItemID, req.Query)
	page, err := s.renderPage(ctx, pageFill{ItemID: req.ItemID, Variant: variant, Names: []int64{req.ItemID}, Render: req.Render}, catalog.RowRead{}, pagebody.LevelFast)
	if err != nil {
		return ItemView{}, err
	}
	s.log.Warn("item page served without Redis", "item", req.ItemID)
	s.requests.WithLabelValues(PageBypass).Inc()
	return ItemView{Page: page, Result: PageBypass, Recent: []int64{req.ItemID}, Degraded: true}, nil
}

// withFront puts id first in ids without duplicates, keeping at most n.
func withFront(id int64, ids []int64, n int) []int64 {
	out := []int64{id}
	for _, v := range ids {
		if v != id && len(out) < n {
			out = append(out, v)
		}
	}
	return out
}

// validPage decodes a stored page, ignoring one that is unreadable, of
// another item or older than a purge.
func (s *Service) validPage(cmd *redis.StringCmd, itemID int64, gen PageGen) *pagebody.Page {
	b, err := cmd.Bytes()
	if err != nil {
		return nil
	}
	p, err := pagebody.Decode(b)
	if err != nil || p.ItemID != itemID || p.GenItem < gen.Item || p.GenAll < gen.All || p.Build != s.opt.Build {
		return nil
	}
	s.catalog.RememberName(p.ItemID, p.ItemName)
	return p
}

func parseGen(vals []any) PageGen {
	g := platform.Ints(vals, 2)
	return PageGen{Item: g[0], All: g[1]}
}
