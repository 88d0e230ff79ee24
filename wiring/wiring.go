package wiring

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"storefront/store/addressbook"
	"storefront/store/analytics"
	"storefront/store/audit"
	"storefront/store/board"
	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/collections"
	"storefront/store/mail"
	"storefront/store/media"
	"storefront/store/merchant"
	"storefront/store/notify"
	"storefront/store/orders"
	"storefront/store/pagecache"
	"storefront/store/platform"
	"storefront/store/pricing"
	"storefront/store/ratelimit"
	"storefront/store/returns"
	"storefront/store/reviews"
	"storefront/store/sales"
	"storefront/store/search"
	"storefront/store/seed"
	"storefront/store/sessions"
	"storefront/store/sitemap"
	"storefront/store/social"
	"storefront/store/stats"
	"storefront/store/stripepay"
	"storefront/store/workers"
	"storefront/views"
)

// Options are every knob of the data layer, as main reads them from the
// environment; New hands each service its own.
type Options struct {
	RedisMode        string
	SessionLimit     int64
	ViewedPerSession int64
	PageCacheTTL     time.Duration
	// PageCacheTop: only items ranked below this in views are cached.
	PageCacheTop    int64
	ViewedKeep      int64
	RescaleInterval time.Duration
	GroupCacheTTL   time.Duration
	VoteWindow      time.Duration
	VoteScore       int64
	// Tuning knobs below: 0 takes the default (see withDefaults).
	PasswordCost int           // bcrypt cost (tests use the minimum)
	FeedSize     int64         // entries kept per feed
	FeedTTL      time.Duration // a feed nobody reads for this long expires
	FanOutInline int           // followers a post reaches before the request returns
	FanOutChunk  int           // followers one background fan-out step reaches
	// SeedArticles adds demo articles, voters and comments to an empty
	// board (main turns it on; tests that want them opt in).
	SeedArticles bool
	// NoDemo starts an empty shop with the admin account alone
	// (SEED_DEMO=false): no demo items, articles or users.
	NoDemo bool
	// SeedImages gives demo items generated pictures (main turns it on;
	// tests that want them opt in).
	SeedImages bool
	// SeedVariants gives the demo catalog its options and variants (sizes
	// for Apparel, colours for some items; main turns it on, tests that
	// want them opt in).
	SeedVariants bool
	// DemoPictureCacheDir, if set, is a directory where the generated
	// demo pictures are kept for the next start of the same program:
	// drawing them is most of a first start's work.
	DemoPictureCacheDir string
	// Fulfilment queue tuning.
	OrderVisibility time.Duration // a taken order not acknowledged within this goes to another worker
	OrderSweepAge   time.Duration // orders pending longer than this are fulfilled from the database
	OrderPoll       time.Duration // how long a worker waits for new orders per poll
	// Admin dashboard: how often the stats worker samples the shared
	// counters and scans the keyspace for cached pages and carts. Tests
	// set small values.
	StatsInterval        time.Duration
	KeyspaceScanInterval time.Duration
	// PageL1Bytes bounds the in-process copy of cached pages (negative
	// turns it off); WriteBehind is how often the buffered writes of page
	// cache hits are flushed.
	PageL1Bytes int64
	WriteBehind time.Duration
	// PageBuild names the program's build: cached pages another build
	// rendered are misses (BUILD_ID, else the binary's own).
	PageBuild string
	// SearchCacheBytes bounds the in-process cache of search results
	// (negative turns it off).
	SearchCacheBytes int64
	// AccountCartTTL is how long a signed-in account's cart is kept
	// without use.
	AccountCartTTL time.Duration
	// Shipping prices the checkout's delivery methods (nil: the defaults):
	// the SHIPPING_* knobs, which the zones that follow them take.
	Shipping *orders.ShippingRates
	// PricesExcludeTax adds tax at checkout (PRICES_INCLUDE_TAX=false);
	// by default prices include it.
	PricesExcludeTax bool
	// SessionRate caps the new guest sessions one client address may make
	// (SESSION_RATE); empty: no cap.
	SessionRate ratelimit.Rate
	// Mail is the outbox's delivery (SMTP_URL, MAIL_FROM and tuning);
	// ShopURL is where emailed links point (SHOP_URL, default
	// DefaultShopURL).
	Mail    mail.Options
	ShopURL string
	// SitemapURLs is the most URLs in one sitemap file (0: the protocol's
	// 50,000); tests set a few.
	SitemapURLs int
	// ShopAddress is where returns are sent (SHOP_ADDRESS, "" for none
	// given); TrackingURL the carrier's page of a parcel, {tracking} for
	// its number (TRACKING_URL, "" for none).
	ShopAddress string
	TrackingURL string
	// PaymentHold is how long an order awaits its payment before it is
	// cancelled (PAYMENT_HOLD).
	PaymentHold time.Duration
	// RefundRetry is how soon an owed refund is tried again, doubling
	// with each try (0: orders.DefaultRefundRetry).
	RefundRetry time.Duration
	// ReturnWindow is how long after delivery an order may be returned
	// (RETURN_DAYS).
	ReturnWindow time.Duration
	// Stripe configures card payments; the card is offered only when its
	// SecretKey is set.
	Stripe stripepay.Config
}

// withDefaults fills every tuning knob left at zero with its domain's
// default, so that Options reports the knobs in force.
func (o Options) withDefaults() Options {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	zero := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	if o.PasswordCost <= 0 {
		o.PasswordCost = bcrypt.DefaultCost
	}
	if o.FeedSize <= 0 {
		o.FeedSize = social.DefaultFeedSize
	}
	def(&o.FeedTTL, social.DefaultFeedTTL)
	if o.FanOutInline <= 0 {
		o.FanOutInline = social.DefaultFanOutInline
	}
	if o.FanOutChunk <= 0 {
		o.FanOutChunk = social.DefaultFanOutChunk
	}
	def(&o.OrderVisibility, orders.DefaultOrderVisibility)
	def(&o.OrderSweepAge, orders.DefaultOrderSweepAge)
	def(&o.OrderPoll, orders.DefaultOrderPoll)
	def(&o.StatsInterval, stats.DefaultInterval)
	def(&o.KeyspaceScanInterval, stats.DefaultScanInterval)
	def(&o.WriteBehind, pagecache.DefaultWriteBehind)
	zero(&o.PageL1Bytes, pagecache.DefaultL1Bytes) // negative: off
	zero(&o.SearchCacheBytes, search.DefaultCacheBytes)
	def(&o.AccountCartTTL, cart.DefaultAccountTTL)
	if o.ShopURL == "" {
		o.ShopURL = DefaultShopURL
	}
	def(&o.PaymentHold, orders.DefaultPaymentHold)
	def(&o.RefundRetry, orders.DefaultRefundRetry)
	def(&o.ReturnWindow, returns.DefaultWindow)
	if o.Shipping == nil {
		rates := orders.DefaultShipping
		o.Shipping = &rates
	}
	return o
}

// Services is the data layer, built and wired: one field per domain
// service, which main hands to the HTTP layer (each area takes only the
// services it uses) and tests use directly.
type Services struct {
	Catalog   *catalog.Service
	Media     *media.Service
	Search    *search.Service
	Analytics *analytics.Service
	Notify    *notify.Service
	Cart      *cart.Service
	Sessions  *sessions.Service
	Reviews   *reviews.Service
	Board     *board.Service
	Social    *social.Service
	Orders    *orders.Service
	Pricing   *pricing.Service
	// Card is the card payment method, nil unless Stripe is configured.
	Card      *stripepay.Method
	Addresses *addressbook.Service
	Returns   *returns.Service
	Pages     *pagecache.Service
	Stats     *stats.Service
	Sales     *sales.Service
	Limiter   *ratelimit.Limiter
	Mail      *mail.Service
	// Host is this instance's leases and worker reports.
	Host *workers.Host
	// Seeder fills an empty shop with the demo data.
	Seeder *seed.Service
	// Sitemap is the sitemaps search engines read.
	Sitemap *sitemap.Service
	// Merchant is the shop's settings, held in memory on every instance.
	Merchant *merchant.Service
	// Collections are the merchant's collections of items.
	Collections *collections.Service
	// Audit reads the audit log (the stores write it in their changes'
	// transactions).
	Audit *audit.Service

	base       platform.Base
	opt        Options
	guestLinks *guestLinks
	workers    []workers.Worker
	collectors []prometheus.Collector
}

// New builds every service over open clients, registers the hooks between
// them and collects their workers and series. The page cache's background
// work starts here; Close stops it.
func New(rdb redis.UniversalClient, db *sql.DB, opt Options, log *slog.Logger) *Services {
	opt = opt.withDefaults()
	b := platform.NewBase(rdb, db, log)
	s := &Services{base: b, opt: opt, Host: workers.NewHost(b)}
	s.Limiter = ratelimit.New(b)
	s.Catalog = catalog.New(b, s.Host)
	s.Media = media.New(b, s.Catalog)
	s.Analytics = analytics.New(b, s.Host, analytics.Options{ViewedKeep: opt.ViewedKeep, RescaleInterval: opt.RescaleInterval})
	s.Search = search.New(b, search.Options{CacheBytes: opt.SearchCacheBytes}, s.Catalog, s.Analytics)
	s.Notify = notify.New(b)
	s.Cart = cart.New(b, opt.AccountCartTTL)
	s.Sessions = sessions.New(b, sessions.Options{SessionLimit: opt.SessionLimit, ViewedPerSession: opt.ViewedPerSession,
		PasswordCost: opt.PasswordCost, SessionRate: opt.SessionRate}, s.Limiter, s.Cart, s.Host)
	s.Reviews = reviews.New(b, s.Catalog)
	s.Board = board.New(b, board.Options{VoteWindow: opt.VoteWindow, VoteScore: opt.VoteScore, GroupCacheTTL: opt.GroupCacheTTL})
	s.Social = social.New(b, social.Options{FeedSize: opt.FeedSize, FeedTTL: opt.FeedTTL, FanOutInline: opt.FanOutInline,
		FanOutChunk: opt.FanOutChunk}, s.Host, s.Notify, s.Sessions)
	s.Pricing = pricing.New(b, pricing.Options{Knobs: *opt.Shipping, PricesIncludeTax: !opt.PricesExcludeTax})
	s.Orders = orders.New(b, orders.Options{Shipping: *opt.Shipping, OrderVisibility: opt.OrderVisibility,
		OrderSweepAge: opt.OrderSweepAge, OrderPoll: opt.OrderPoll, PaymentHold: opt.PaymentHold, RefundRetry: opt.RefundRetry}, s.Host, s.Catalog, s.Cart, s.Pricing)
	if opt.Stripe.SecretKey != "" {
		stripeCfg := opt.Stripe
		stripeCfg.Hold = opt.PaymentHold
		s.Card = stripepay.New(stripeCfg, s.Orders, log)
		s.Orders.AddPaymentMethod(s.Card) // card is offered after invoice and cash on delivery
	}
	s.Addresses = addressbook.New(b)
	s.Returns = returns.New(b, returns.Options{Window: opt.ReturnWindow}, s.Catalog, s.Orders)
	s.Mail = mail.New(b, opt.Mail, s.Host)
	s.Pages = pagecache.New(b, pagecache.Options{TTL: opt.PageCacheTTL, Top: opt.PageCacheTop, L1Bytes: opt.PageL1Bytes,
		WriteBehind: opt.WriteBehind, ViewedPerSession: opt.ViewedPerSession, Build: opt.PageBuild},
		pagecache.Deps{Catalog: s.Catalog, Media: s.Media, Reviews: s.Reviews, Sessions: s.Sessions})
	s.Stats = stats.New(b, stats.Options{RedisMode: opt.RedisMode, StatsInterval: opt.StatsInterval,
		KeyspaceScanInterval: opt.KeyspaceScanInterval}, s.Host, s.Catalog)
	s.Sales = sales.New(b, s.Sessions)
	s.Merchant = merchant.New(b, merchant.Settings{Address: opt.ShopAddress})
	s.Collections = collections.New(b)
	s.Audit = audit.New(b.DB)
	s.Seeder = seed.New(b, seed.Options{NoDemo: opt.NoDemo, Articles: opt.SeedArticles, Pictures: opt.SeedImages, Variants: opt.SeedVariants, PictureCacheDir: opt.DemoPictureCacheDir},
		seed.Deps{Catalog: s.Catalog, Media: s.Media, Sessions: s.Sessions, Board: s.Board, Social: s.Social, Collections: s.Collections})

	s.Sitemap = sitemap.New(b, sitemap.Options{ShopURL: opt.ShopURL, PerFile: opt.SitemapURLs,
		Links: sitemap.Links{Item: views.ItemURL, Article: views.ArticleURL, Category: views.CategoryPath, Collection: views.CollectionURL}, Pages: s.infoPages}, s.Catalog, s.Board)

	s.Sitemap.UseCollections(func(ctx context.Context) ([]sitemap.Stamp, error) {
		cs, err := s.Collections.Stamps(ctx)
		out := make([]sitemap.Stamp, len(cs))
		for i, c := range cs {
			out[i] = sitemap.Stamp{Key: c.Slug, Changed: c.Changed}
		}
		return out, err
	})

	// Effects across domains, each in one line.
	s.Collections.OnChange(s.Sitemap.Changed)                                    // a collection saved: the sitemaps list it
	s.Catalog.OnChange(s.Pages.ItemsChanged)                                     // an item changed: purge its pages
	s.Catalog.OnChange(s.Sitemap.ItemsChanged)                                   // ... and build the sitemaps afresh
	s.Catalog.OnChange(s.Search.ItemsChanged)                                    // ... and move the search version
	s.Pages.OnPurgeAll(s.Search.AllChanged)                                      // every page purged: search starts afresh too
	s.Orders.OnPlaced(countBoughtTogether)                                       // an order: the "also bought" statistics grow, per item and variant
	s.Orders.OnStatus(s.Notify.NotifyOrder)                                      // an order moved: the shopper is notified
	s.Board.SetEvents(s.Social.BoardEvents())                                    // posts, votes, comments, hides: feeds, counters, notes
	s.Reviews.SetPurgeEpoch(s.Pages.PurgeEpoch)                                  // the own-review memo follows the page purges
	s.Merchant.OnChange(s.purgeAllPages)                                         // the shop's name or currency changed: every cached page goes
	s.Catalog.OnRemoveTx(s.Media.ItemsRemovedTx)                                 // items removed: their pictures go in the same transaction
	s.Catalog.OnRemoveTx(s.Reviews.ItemsRemovedTx)                               // ... and their reviews
	s.Catalog.OnRemoveTx(s.Collections.ItemsRemovedTx)                           // ... and their places in collections
	s.Merchant.OnChange(s.pagesChanged)                                          // ... and the sitemaps list the information pages afresh
	s.Orders.SetCurrency(func() string { return s.Merchant.Current().Currency }) // an order records the shop's currency
	s.guestLinks = &guestLinks{}
	m := mailer{outbox: s.Mail, shop: strings.TrimSuffix(opt.ShopURL, "/"), settings: s.Merchant, tracking: opt.TrackingURL,
		guest: s.guestLinks}
	s.Orders.OnPlacedTx(m.orderPlaced) // an order: its confirmation email, in the checkout's transaction
	s.Orders.OnStatusTx(m.orderMoved)  // shipped, delivered, cancelled: an email in the move's transaction
	s.Orders.OnEditedTx(m.orderEdited) // an order changed before it shipped: an email, the difference to pay linked
	s.Orders.SetMoneyFormat(func(cur string, minor int64) string {
		c := merchant.MustCurrency(cur)
		return views.Currency{Code: c.Code, Symbol: c.Symbol, Digits: c.Digits}.Format(minor)
	}) // the notes of an edit write amounts as pages do
	s.Sessions.OnTokenTx(m.tokenMail)             // a verification or reset link: its email, in the same transaction
	s.Mail.MakeLinksWith(linkMaker(s.Sessions))   // and its token, made as the email is sent
	s.Returns.OnStepTx(m.returnStep)              // a return asked, approved, rejected, received, refunded: an email in the step's transaction
	s.Orders.OnRefundDoneTx(s.Returns.RefundDone) // a return's refund done (at once, retried or by hand): the return is refunded, in the refund's transaction

	// Every background loop main starts and stops, and every series the
	// data layer exports.
	for _, ws := range [][]workers.Worker{
		s.Social.Workers(),    // spreads new posts to followers' feeds
		s.Orders.Workers(),    // fulfils queued orders
		s.Analytics.Workers(), // rescales item view counts
		s.Catalog.Workers(),   // refreshes cached item rows
		s.Sessions.Workers(),  // evicts the oldest sessions
		s.Stats.Workers(),     // samples the dashboard's counters
		s.Mail.Workers(),      // delivers the outbox (with SMTP_URL only)
	} {
		s.workers = append(s.workers, ws...)
	}
	s.Stats.SetWorkers(s.workers)
	for _, cs := range [][]prometheus.Collector{
		s.Pages.Collectors(), s.Sessions.Collectors(), s.Board.Collectors(), s.Orders.Collectors(),
		{s.Host.Collector()}, s.Stats.Collectors(), s.Mail.Collectors(),
	} {
		s.collectors = append(s.collectors, cs...)
	}
	return s
}

// SignGuestOrders gives the emails the signed link of a guest's order
// (a path such as "/guest-orders/7?key=..."): the HTTP layer signs them
// with the cookie keys, which are known only once the data layer runs.
// Until then a guest's emails carry no link.
func (s *Services) SignGuestOrders(path func(orderID int64) string) { s.guestLinks.path.Store(&path) }

// Workers returns the background loops that main starts and stops.
func (s *Services) Workers() []workers.Worker { return s.workers }

// Collectors returns the data layer's Prometheus series for /metrics.
func (s *Services) Collectors() []prometheus.Collector { return s.collectors }

// UseClientSideCache gives every reader of shared data a client with
// client-side caching (see platform.RedisConn.Cached).
func (s *Services) UseClientSideCache(c *platform.CachingClient) { s.base.Reader.UseCache(c) }

// Migrate applies the embedded migrations that have not run yet, reads
// the shop's settings, then gives the shipping zones that follow the SHIPPING_* knobs their rates.
func (s *Services) Migrate(ctx context.Context) error {
	if err := platform.Migrate(ctx, s.base.DB); err != nil {
		return err
	}
	if err := s.Catalog.SyncCategories(ctx); err != nil {
		return err
	}
	if err := s.Merchant.Load(ctx); err != nil {
		return err
	}
	return s.Pricing.Setup(ctx)
}

// purgeAllPages drops every cached page after the merchant changed what
// every page shows; a failure is logged (the pages expire anyway).
func (s *Services) purgeAllPages(ctx context.Context) {
	if _, err := s.Pages.PurgeAllPages(ctx); err != nil {
		s.base.Log.Warn("shop settings changed: purging the cached pages", "err", err)
	}
}

// infoPages are the merchant's information pages, for the sitemaps.
func (s *Services) infoPages() []sitemap.Page {
	var out []sitemap.Page
	for _, p := range s.Merchant.Pages() {
		out = append(out, sitemap.Page{Path: "/pages/" + p.Slug, Updated: p.Updated})
	}
	return out
}

// pagesChanged has the sitemaps built afresh after the merchant saved a
// change (an information page among them); a failure is logged (they
// expire anyway).
func (s *Services) pagesChanged(ctx context.Context) {
	if err := s.Sitemap.PagesChanged(ctx); err != nil {
		s.base.Log.Warn("shop settings changed: renewing the sitemaps", "err", err)
	}
}

// SeedDemo fills an empty shop with the demo data (seed.Service.Demo).
func (s *Services) SeedDemo(ctx context.Context, adminPassword string) (string, error) {
	return s.Seeder.Demo(ctx, adminPassword)
}

// Ping checks that Redis and the database answer, for /readyz.
func (s *Services) Ping(ctx context.Context) error { return s.base.Ping(ctx) }

// Redis returns the client, for tests and the admin dashboard.
func (s *Services) Redis() redis.UniversalClient { return s.base.Redis }

// DB returns the database handle.
func (s *Services) DB() *sql.DB { return s.base.DB }

// DBKind is platform.DBSQLite or platform.DBPostgres.
func (s *Services) DBKind() string { return s.base.DBKind }

// Options returns the knobs in force, defaults filled in.
func (s *Services) Options() Options { return s.opt }

// Instance names this process in leases and worker reports.
func (s *Services) Instance() string { return s.base.Instance }

// SetClock replaces the clock of every service; tests use it to move time.
func (s *Services) SetClock(now func() time.Time) { s.base.Clock.Set(now) }

// LeaseHolder says which instance holds a worker's lease.
func (s *Services) LeaseHolder(ctx context.Context, name string) (string, error) {
	return s.Host.Holder(ctx, name)
}

// WorkerStatus reads a worker's last report.
func (s *Services) WorkerStatus(ctx context.Context, name string) (workers.Status, error) {
	return s.Host.Status(ctx, name)
}

// Close stops the background work (the page cache's flusher and purge
// listener) and flushes the buffered writes: main calls it after the
// workers stopped and the page renders finished (WaitBackground). The
// clients are the caller's to close, after Close.
func (s *Services) Close() {
	s.Pages.Close()
	s.Merchant.Close()
}

// WorkerStatuses reads the last report of every background worker.
func (s *Services) WorkerStatuses(ctx context.Context) ([]workers.Status, error) {
	names := make([]string, len(s.workers))
	for i, w := range s.workers {
		names[i] = w.Name()
	}
	return s.Host.Statuses(ctx, names)
}

// countBoughtTogether hands a placed order's lines to the analytics'
// "also bought" statistics, as items and variants.
func countBoughtTogether(ctx context.Context, pipe redis.Pipeliner, lines []cart.Line) {
	bought := make([]analytics.Bought, len(lines))
	for i, l := range lines {
		bought[i] = analytics.Bought{ItemID: l.ItemID, VariantID: l.VariantID}
	}
	analytics.AddBoughtTogether(ctx, pipe, bought)
}
