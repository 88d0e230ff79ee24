// Command storefront serves a server-rendered web shop with a community
// article board, on Redis and SQL.
//
// main.go is the composition root: it loads the configuration once, builds
// Redis, the database, the cookie codec, the data layer (wiring.New: every
// domain service of store/ and the hooks between them) and the handlers,
// starts the background workers and shuts everything down in order: HTTP,
// then the workers, then the page renders and buffered writes, then Redis
// and the database.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"storefront/handlers"
	"storefront/handlers/web"
	"storefront/store/cart"
	"storefront/store/mail"
	"storefront/store/media"
	"storefront/store/orders"
	"storefront/store/pagecache"
	"storefront/store/platform"
	"storefront/store/ratelimit"
	"storefront/store/search"
	"storefront/store/stripepay"
	"storefront/wiring"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var level slog.Level // info unless LOG_LEVEL says otherwise
	if err := level.UnmarshalText([]byte(os.Getenv("LOG_LEVEL"))); err != nil && os.Getenv("LOG_LEVEL") != "" {
		fmt.Fprintln(os.Stderr, "LOG_LEVEL: want debug, info, warn or error")
		os.Exit(2)
	}
	logs := newLogWriter(os.Stderr)
	logger := slog.New(slog.NewJSONHandler(logs, web.LogOptions(level)))
	slog.SetDefault(logger)
	err := run(ctx, os.Getenv, logger, nil)
	if err != nil {
		logger.Error("storefront stopped", "err", err)
	}
	logs.Close()
	if err != nil {
		os.Exit(1)
	}
}

// run builds every dependency from the environment, serves until ctx is
// cancelled and then shuts down: HTTP first (finishing in-flight requests),
// then the workers, then Redis and the database. When ready is not nil it
// receives the listening address once the server accepts connections.
func run(ctx context.Context, getenv func(string) string, logger *slog.Logger, ready chan<- string) error {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("DATA_DIR: %w", err)
	}

	start := newStartup(logger, cfg.StartTimeout)
	rc, err := platform.ConnectRedis(ctx, platform.RedisConfig{
		URL:          cfg.RedisURL,
		ClusterAddrs: cfg.RedisClusterAddrs,
		DataDir:      cfg.DataDir,
	}, logger)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := start.step(ctx, "redis", rc.Ping); err != nil {
		return err
	}
	logger.Info("redis connected", "mode", rc.Mode)

	var db *sql.DB
	err = start.step(ctx, "database", func(ctx context.Context) error {
		db, err = platform.OpenDB(ctx, cfg.DatabaseURL, cfg.DataDir)
		return err
	})
	if err != nil {
		return err
	}
	defer db.Close()

	st := wiring.New(rc.Client, db, cfg.storeOptions(rc.Mode), logger)
	if rc.Cached != nil {
		st.UseClientSideCache(rc.Cached)
	}
	if err := start.step(ctx, "migrate", st.Migrate); err != nil {
		return err
	}
	keys, err := loadCookieKeys(ctx, start, cfg, st)
	if err != nil {
		return err
	}
	// A seed that failed half-way is run again: every step of it leaves
	// what exists alone. The admin's generated password is shown once,
	// from the attempt that created the account.
	adminPassword := ""
	err = start.step(ctx, "seed", func(ctx context.Context) error {
		shown, err := st.SeedDemo(ctx, cfg.AdminPassword)
		if shown != "" {
			adminPassword = shown
		}
		return err
	})
	if err != nil {
		return err
	}

	hcfg := cfg.handlerConfig(keys)
	hcfg.Health = rc.Health // the embedded redis-server's supervisor
	h, err := handlers.New(hcfg, st, logger)
	if err != nil {
		return err
	}

	srv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           h.Router(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln, err := listen(cfg.Addr)
	if err != nil {
		return err
	}

	workerCtx, stopWorkers := context.WithCancel(context.Background())
	var workers sync.WaitGroup
	for _, w := range st.Workers() {
		workers.Add(1)
		go func() {
			defer workers.Done()
			w.Run(workerCtx)
		}()
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	logger.Info("storefront listening", "addr", ln.Addr().String(), "redis", rc.Mode, "database", st.DBKind())
	fmt.Fprint(os.Stdout, startBanner(ln.Addr().String(), adminPassword))
	if ready != nil {
		ready <- ln.Addr().String()
	}

	select {
	case err = <-serveErr:
	case <-ctx.Done():
		// Not ready first, so that a load balancer stops sending new
		// requests, then drain: in-flight requests finish.
		h.Drain()
		// Answers from now on close their connections: a client that
		// reused an idle keep-alive connection just as Shutdown closed it
		// would lose that request (a POST is not retried), while a new
		// connection is either served or refused outright.
		srv.SetKeepAlivesEnabled(false)
		logger.Info("shutting down", "ready", false, "drain_delay", cfg.DrainDelay.String())
		select {
		case <-time.After(cfg.DrainDelay):
		case err = <-serveErr:
		}
		shutCtx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		err = srv.Shutdown(shutCtx)
		cancel()
	}
	stopWorkers()
	workers.Wait()
	st.Pages.WaitBackground() // page renders started by requests
	st.Close()                // flushes the buffered writes of page cache hits
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	logger.Info("storefront stopped cleanly", "err", err)
	return err
}

// config is every knob of the shop, read once from the environment by
// loadConfig and validated before anything listens.
type config struct {
	Addr              string
	DataDir           string
	RedisURL          string
	RedisClusterAddrs []string
	DatabaseURL       string
	CookieKeys        string
	CookieSecure      web.SecureMode
	TrustedProxies    []*net.IPNet
	AdminPassword     string
	SessionLimit      int64
	ViewedPerSession  int64
	PageCacheTTL      time.Duration
	PageCacheTop      int64
	PageL1Bytes       int64
	BuildID           string
	SearchCacheBytes  int64
	WriteBehind       time.Duration
	ViewedKeep        int64
	RescaleInterval   time.Duration
	GroupCacheTTL     time.Duration
	VoteWindow        time.Duration
	VoteScore         int64
	ArticlesPerPage   int
	ItemsPerPage      int
	MaxLineQty        int
	AccountCartTTL    time.Duration
	Shipping          orders.ShippingRates
	PricesIncludeTax  bool
	// SeedDemo fills an empty shop with the demo catalog, articles and
	// users (SEED_DEMO, default true); false starts it empty.
	SeedDemo bool
	// StaffTwoFactor are the staff roles that must sign in with two
	// factors (STAFF_2FA, default none).
	StaffTwoFactor []string
	Rates          handlers.Rates
	RequestTimeout time.Duration
	MaxImageBytes  int64
	// SupportRefundLimit is the largest refund, in the shop currency's
	// minor unit, a support role may give (SUPPORT_REFUND_LIMIT).
	SupportRefundLimit int64
	MetricsToken       string
	SessionRate        ratelimit.Rate
	DrainDelay         time.Duration
	StartTimeout       time.Duration
	Mail               mail.Options
	ShopURL            string
	ShopAddress        string
	TrackingURL        string
	PaymentHold        time.Duration
	ReturnDays         int64
	Stripe             stripepay.Config
}

// loadConfig reads and validates every knob. The first bad value stops
// start-up with an error that names the variable.
func loadConfig(getenv func(string) string) (config, error) {
	p := envParser{getenv: getenv}
	cfg := config{
		Addr:              p.str("ADDR", ":8080"),
		DataDir:           p.str("DATA_DIR", "./data"),
		RedisURL:          p.str("REDIS_URL", ""),
		RedisClusterAddrs: p.list("REDIS_CLUSTER_ADDRS"),
		DatabaseURL:       p.str("DATABASE_URL", ""),
		CookieKeys:        p.str("COOKIE_KEYS", ""),
		CookieSecure:      p.secure("COOKIE_SECURE"),
		TrustedProxies:    p.cidrs("TRUSTED_PROXIES"),
		AdminPassword:     p.str("ADMIN_PASSWORD", ""),
		SessionLimit:      p.int("SESSION_LIMIT", 10_000_000, 1),
		ViewedPerSession:  p.int("VIEWED_PER_SESSION", 25, 1),
		PageCacheTTL:      p.duration("PAGE_CACHE_TTL", 300*time.Second),
		PageCacheTop:      p.int("PAGE_CACHE_TOP", 10_000, 0),
		PageL1Bytes:       p.int("PAGE_L1_BYTES", pagecache.DefaultL1Bytes, 0),
		BuildID:           p.str("BUILD_ID", ""),
		SearchCacheBytes:  p.int("SEARCH_CACHE_BYTES", search.DefaultCacheBytes, 0),
		WriteBehind:       p.duration("WRITE_BEHIND", pagecache.DefaultWriteBehind),
		ViewedKeep:        p.int("VIEWED_KEEP", 20_000, 1),
		RescaleInterval:   p.duration("RESCALE_INTERVAL", 5*time.Minute),
		GroupCacheTTL:     p.duration("GROUP_CACHE_TTL", 60*time.Second),
		VoteWindow:        p.duration("VOTE_WINDOW", 168*time.Hour),
		VoteScore:         p.int("VOTE_SCORE", 432, 1),
		ArticlesPerPage:   int(p.int("ARTICLES_PER_PAGE", 25, 1)),
		ItemsPerPage:      int(p.int("ITEMS_PER_PAGE", 24, 1)),
		MaxLineQty:        int(p.int("MAX_LINE_QTY", 99, 1)),
		AccountCartTTL:    p.duration("ACCOUNT_CART_TTL", cart.DefaultAccountTTL),
		Shipping: orders.ShippingRates{
			Standard: p.money("SHIPPING_STANDARD", orders.DefaultShipping.Standard),
			Express:  p.money("SHIPPING_EXPRESS", orders.DefaultShipping.Express),
			FreeOver: p.money("FREE_SHIPPING_OVER", orders.DefaultShipping.FreeOver),
		},
		PricesIncludeTax: p.boolean("PRICES_INCLUDE_TAX", true),
		SeedDemo:         p.boolean("SEED_DEMO", true),
		StaffTwoFactor:   p.roles("STAFF_2FA", "none"),
		Rates: handlers.Rates{
			Login:     p.rate("LOGIN_RATE", "5/1m"),
			LoginAddr: p.rate("LOGIN_ADDR_RATE", "20/1m,100/1h"),
			Register:  p.rate("REGISTER_RATE", "10/1h"),
			Post:      p.rate("POST_RATE", "5/1h"),
			Vote:      p.rate("VOTE_RATE", "60/1m"),
			Comment:   p.rate("COMMENT_RATE", "2/1m,5/5m"),
			Follow:    p.rate("FOLLOW_RATE", "30/1m"),
			Report:    p.rate("REPORT_RATE", "10/1h"),
			Like:      p.rate("LIKE_RATE", "30/1m"),
			Review:    p.rate("REVIEW_RATE", "10/1h"),
			Password:  p.rate("PASSWORD_RATE", "5/15m"),
			Forgot:    p.rate("FORGOT_RATE", "5/15m,20/24h"),
			Email:     p.rate("EMAIL_RATE", "5/1h"),
		},
		RequestTimeout:     p.duration("REQUEST_TIMEOUT", 10*time.Second),
		MaxImageBytes:      p.int("MAX_IMAGE_BYTES", media.DefaultMaxImageBytes, 1024),
		SupportRefundLimit: p.int("SUPPORT_REFUND_LIMIT", handlers.DefaultSupportRefundLimit, 0),
		MetricsToken:       p.str("METRICS_TOKEN", ""),
		SessionRate:        p.rate("SESSION_RATE", "100/1m,1000/1h"),
		DrainDelay:         p.durationOrZero("DRAIN_DELAY", 2*time.Second),
		StartTimeout:       p.duration("START_TIMEOUT", 60*time.Second),
		PaymentHold:        p.duration("PAYMENT_HOLD", orders.DefaultPaymentHold),
		ReturnDays:         p.int("RETURN_DAYS", 30, 1),
		Stripe: stripepay.Config{
			SecretKey:     p.str("STRIPE_SECRET_KEY", ""),
			WebhookSecret: p.str("STRIPE_WEBHOOK_SECRET", ""),
			APIBase:       p.str("STRIPE_API_BASE", ""),
		},
	}
	if cfg.Stripe.SecretKey != "" && cfg.Stripe.WebhookSecret == "" {
		p.fail("STRIPE_WEBHOOK_SECRET", "must be set with STRIPE_SECRET_KEY: without it no card payment is ever confirmed")
	}
	if b := cfg.Stripe.APIBase; b != "" && !strings.HasPrefix(b, "http://") && !strings.HasPrefix(b, "https://") {
		p.fail("STRIPE_API_BASE", "must be an http:// or https:// URL")
	}
	if cfg.RedisURL != "" && len(cfg.RedisClusterAddrs) > 0 {
		p.fail("REDIS_URL", "set only one of REDIS_URL and REDIS_CLUSTER_ADDRS")
	}
	if cfg.RedisURL != "" && !strings.HasPrefix(cfg.RedisURL, "redis://") && !strings.HasPrefix(cfg.RedisURL, "rediss://") {
		p.fail("REDIS_URL", "must start with redis:// or rediss://")
	}
	if cfg.DatabaseURL != "" && !strings.HasPrefix(cfg.DatabaseURL, "postgres://") && !strings.HasPrefix(cfg.DatabaseURL, "postgresql://") {
		p.fail("DATABASE_URL", "must be a postgres:// URL")
	}
	if cfg.ArticlesPerPage > 500 {
		p.fail("ARTICLES_PER_PAGE", "must be at most 500")
	}
	if cfg.MaxImageBytes > 256<<20 {
		p.fail("MAX_IMAGE_BYTES", "must be at most 268435456 (256 MiB)")
	}
	if cfg.ItemsPerPage > 500 {
		p.fail("ITEMS_PER_PAGE", "must be at most 500")
	}
	cfg.Mail, cfg.ShopURL = p.mail(cfg.Addr)
	cfg.ShopAddress, cfg.TrackingURL = p.letters()
	return cfg, p.err
}

// storeOptions passes the knobs that the data layer needs.
// l1Bytes maps PAGE_L1_BYTES and SEARCH_CACHE_BYTES to the store's
// options: 0 turns the in-process cache off.
func l1Bytes(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}

// handlerConfig is the part of the configuration the HTTP layer reads.
func (c config) handlerConfig(keys web.CookieKeys) handlers.Config {
	return handlers.Config{
		CookieKeys:         keys,
		CookieSecure:       c.CookieSecure,
		TrustedProxies:     c.TrustedProxies,
		ItemsPerPage:       c.ItemsPerPage,
		ArticlesPage:       c.ArticlesPerPage,
		MaxLineQty:         c.MaxLineQty,
		Rates:              c.Rates,
		RequestTimeout:     c.RequestTimeout,
		MetricsToken:       c.MetricsToken,
		MaxImageBytes:      c.MaxImageBytes,
		SupportRefundLimit: c.SupportRefundLimit,
		StaffTwoFactor:     c.StaffTwoFactor,
	}
}

// storeOptions is the part of the configuration the data layer reads.
func (c config) storeOptions(redisMode string) wiring.Options {
	return wiring.Options{
		RedisMode:           redisMode,
		SessionLimit:        c.SessionLimit,
		ViewedPerSession:    c.ViewedPerSession,
		PageCacheTTL:        c.PageCacheTTL,
		PageCacheTop:        c.PageCacheTop,
		PageL1Bytes:         l1Bytes(c.PageL1Bytes),
		PageBuild:           buildID(c.BuildID),
		SearchCacheBytes:    l1Bytes(c.SearchCacheBytes),
		WriteBehind:         c.WriteBehind,
		ViewedKeep:          c.ViewedKeep,
		RescaleInterval:     c.RescaleInterval,
		GroupCacheTTL:       c.GroupCacheTTL,
		VoteWindow:          c.VoteWindow,
		VoteScore:           c.VoteScore,
		AccountCartTTL:      c.AccountCartTTL,
		Shipping:            &c.Shipping,
		PricesExcludeTax:    !c.PricesIncludeTax,
		NoDemo:              !c.SeedDemo,
		SeedArticles:        true,
		SeedImages:          true,
		SeedVariants:        true,
		DemoPictureCacheDir: demoPictureCacheDir(),
		SessionRate:         c.SessionRate,
		Mail:                c.Mail,
		ShopURL:             c.ShopURL,
		ShopAddress:         c.ShopAddress,
		TrackingURL:         c.TrackingURL,
		PaymentHold:         c.PaymentHold,
		ReturnWindow:        time.Duration(c.ReturnDays) * 24 * time.Hour,
		Stripe:              c.Stripe,
	}
}

// listen opens the TCP listener before the server starts so that an
// address in use is reported as a start-up error.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ADDR: %w", err)
	}
	return ln, nil
}

// envParser reads variables and remembers the first error, so that
// loadConfig reads as a plain list of knobs.
type envParser struct {
	getenv func(string) string
	err    error
}

func (p *envParser) fail(name, msg string) {
	if p.err == nil {
		p.err = fmt.Errorf("%s: %s", name, msg)
	}
}

func (p *envParser) str(name, def string) string {
	if v := strings.TrimSpace(p.getenv(name)); v != "" {
		return v
	}
	return def
}

func (p *envParser) list(name string) []string {
	var out []string
	for _, s := range strings.Split(p.getenv(name), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (p *envParser) int(name string, def, min int64) int64 {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < min {
		p.fail(name, fmt.Sprintf("want a whole number >= %d, got %q", min, v))
		return def
	}
	return n
}

func (p *envParser) duration(name string, def time.Duration) time.Duration {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		p.fail(name, fmt.Sprintf("want a positive Go duration such as 5m, got %q", v))
		return def
	}
	return d
}

// money reads an amount such as "4.99" as cents.
func (p *envParser) money(name string, def int64) int64 {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	n, ok := orders.ParseMoney(v)
	if !ok {
		p.fail(name, fmt.Sprintf("want an amount such as 4.99, got %q", v))
		return def
	}
	return n
}

// durationOrZero is duration that also accepts 0 (off).
func (p *envParser) durationOrZero(name string, def time.Duration) time.Duration {
	if v := p.str(name, ""); v == "0" {
		return 0
	}
	return p.duration(name, def)
}

func (p *envParser) rate(name, def string) ratelimit.Rate {
	v := p.str(name, def)
	r, err := ratelimit.ParseRate(v)
	if err != nil {
		p.fail(name, err.Error())
	}
	return r
}

func (p *envParser) secure(name string) web.SecureMode {
	switch v := strings.ToLower(p.str(name, "auto")); v {
	case "auto":
		return web.SecureAuto
	case "true", "1", "on", "yes":
		return web.SecureAlways
	case "false", "0", "off", "no":
		return web.SecureNever
	default:
		p.fail(name, fmt.Sprintf("want auto, true or false, got %q", v))
		return web.SecureAuto
	}
}

// boolean reads true or false (also 1/0, on/off, yes/no).
func (p *envParser) boolean(name string, def bool) bool {
	switch v := strings.ToLower(p.str(name, "")); v {
	case "":
		return def
	case "true", "1", "on", "yes":
		return true
	case "false", "0", "off", "no":
		return false
	default:
		p.fail(name, fmt.Sprintf("want true or false, got %q", v))
		return def
	}
}

func (p *envParser) cidrs(name string) []*net.IPNet {
	var out []*net.IPNet
	for _, s := range p.list(name) {
		if !strings.Contains(s, "/") {
			if ip := net.ParseIP(s); ip != nil && ip.To4() != nil {
				s += "/32"
			} else {
				s += "/128"
			}
		}
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			p.fail(name, fmt.Sprintf("want comma-separated CIDRs, got %q", s))
			continue
		}
		out = append(out, n)
	}
	return out
}

// startBanner is the human line printed once the server listens: where to
// browse and how to sign in as the admin. A password generated for a new
// admin account is shown here, once; otherwise the reader is told how to
// choose it.
func startBanner(addr, generatedPassword string) string {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && (host == "" || host == "::" || host == "0.0.0.0") {
		host = "localhost"
	}
	url := "http://" + net.JoinHostPort(host, port)
	if err != nil {
		url = "http://" + addr
	}
	login := "sign in as admin with ADMIN_PASSWORD, or the password printed when the account was first created,"
	if generatedPassword != "" {
		login = "sign in as admin with password " + generatedPassword +
			" (shown only this once; set ADMIN_PASSWORD to choose one)"
	}
	return "Storefront is running at " + url + "\n  " + login + " at " + url + "/login\n"
}

// demoPictureCacheDir is where the generated demo pictures are kept
// between starts (the user's cache directory, as the go command keeps its
// builds there), or "" when there is none: drawing them again is then
// only slower.
func demoPictureCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "storefront")
}
