// Package handlers is the HTTP layer's front door: New builds the request
// plumbing (handlers/web) and every area (handlers/shop, board, account,
// admin and ops) from the domain services main built, handing each area
// only the services it uses, and routes.go registers every route, grouped
// by who may call it. The areas never import each other; what they share
// is in web. Handlers read typed requests, call the domains and render
// templ views; they hold no state that correctness depends on, so several
// instances run side by side.
//
// Tests: the *_test.go files here drive the real router over a real store
// (miniredis or Redis, SQLite or PostgreSQL), grouped by what they test;
// the black-box suites that start the whole program are in apptest.
package handlers

import (
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/account"
	"storefront/handlers/admin"
	"storefront/handlers/board"
	"storefront/handlers/ops"
	"storefront/handlers/shop"
	"storefront/handlers/web"
	"storefront/store/media"
	"storefront/store/ratelimit"
	"storefront/wiring"
)

// Config is what the HTTP layer needs from the environment.
type Config struct {
	CookieKeys     web.CookieKeys
	CookieSecure   web.SecureMode
	TrustedProxies []*net.IPNet
	ItemsPerPage   int
	ArticlesPage   int
	MaxLineQty     int
	Rates          Rates
	RequestTimeout time.Duration
	// MaxImageBytes is the largest picture upload accepted.
	MaxImageBytes int64
	// SupportRefundLimit is the largest refund a support role may give, in
	// the minor unit (SUPPORT_REFUND_LIMIT); 0 takes the default.
	SupportRefundLimit int64
	// MetricsToken, when set, lets a scraper read /metrics with
	// "Authorization: Bearer <token>"; without it only the admin can.
	MetricsToken string
	// Health, when set, says whether the app can still heal what it runs
	// (GET /healthz fails when it cannot).
	Health func() error
	// StaffTwoFactor are the staff roles that must sign in with two
	// factors (STAFF_2FA).
	StaffTwoFactor []string
}

// Rates are the sliding-window limits, each one or more windows that must
// all allow (ratelimit.ParseRate reads the knobs).
type Rates struct {
	// Login counts failed sign-ins per (account, client address) and
	// LoginAddr per client address; successful sign-ins are not counted.
	Login, LoginAddr                            ratelimit.Rate
	Register, Post, Vote, Comment, Follow, Like ratelimit.Rate
	// Review limits posting and editing reviews, Password the password
	// changes, per account.
	Review, Password ratelimit.Rate
	// Forgot limits forgotten-password requests per client address and
	// per typed address, Email the addresses an account sets.
	Forgot, Email ratelimit.Rate
	// Report limits readers' reports of articles and comments to the
	// moderators, per account.
	Report ratelimit.Rate
}

// DefaultSupportRefundLimit is SUPPORT_REFUND_LIMIT's default: 100.00 in
// a currency of cents.
const DefaultSupportRefundLimit = 10000

// Handler is the whole HTTP layer: the plumbing and the areas.
type Handler struct {
	web     *web.Kit
	ops     *ops.Handler
	shop    *shop.Handler
	board   *board.Handler
	account *account.Handler
	admin   *admin.Handler
	// rules are the admin routes' groups, filled as routes registers them.
	rules *web.StaffRules
}

// StaffRule is the group routes.go gave the admin route method path (an
// Echo pattern); ok is false for a route without one.
func (h *Handler) StaffRule(method, path string) (web.Perm, bool) { return h.rules.Rule(method, path) }

// New builds the plumbing and every area over the domain services.
func New(cfg Config, st *wiring.Services, log *slog.Logger) (*Handler, error) {
	if cfg.SupportRefundLimit == 0 {
		cfg.SupportRefundLimit = DefaultSupportRefundLimit
	}
	if cfg.MaxImageBytes == 0 {
		cfg.MaxImageBytes = media.DefaultMaxImageBytes
	}
	kit, err := web.New(web.Config{CookieKeys: cfg.CookieKeys, CookieSecure: cfg.CookieSecure,
		TrustedProxies: cfg.TrustedProxies, RequestTimeout: cfg.RequestTimeout, ShopURL: strings.TrimSuffix(st.Options().ShopURL, "/"),
		StaffTwoFactor: cfg.StaffTwoFactor},
		web.Deps{Sessions: st.Sessions, Views: st.Pages, Limiter: st.Limiter, Buyable: st.Catalog, Shop: st.Merchant}, log)
	if err != nil {
		return nil, err
	}
	kit.Registry().MustRegister(st.Collectors()...)
	st.SignGuestOrders(kit.GuestOrderURL) // emails about a guest's order link to it
	opt, r := st.Options(), cfg.Rates
	rules := web.NewStaffRules()
	return &Handler{
		web: kit, rules: rules,
		ops: ops.New(ops.Config{MetricsToken: cfg.MetricsToken, Health: cfg.Health}, kit, st),
		shop: shop.New(shop.Config{ItemsPerPage: cfg.ItemsPerPage, MaxLineQty: cfg.MaxLineQty, Like: r.Like, Review: r.Review,
			ShopURL: strings.TrimSuffix(opt.ShopURL, "/")}, kit,
			shop.Deps{Catalog: st.Catalog, Search: st.Search, Popular: st.Analytics, Pages: st.Pages, Sessions: st.Sessions,
				Likes: st.Social, Reviews: st.Reviews, Articles: st.Board, Carts: st.Cart, Orders: st.Orders, Pictures: st.Media,
				Pricing: st.Pricing, Addresses: st.Addresses, Card: cardWebhook(st), Returns: st.Returns, Sitemap: st.Sitemap, Home: st.Merchant, Collections: st.Collections}),
		board: board.New(board.Config{PerPage: cfg.ArticlesPage, Post: r.Post, Vote: r.Vote, Comment: r.Comment, Follow: r.Follow,
			Report: r.Report}, kit,
			board.Deps{Articles: st.Board, Social: st.Social, Users: st.Sessions, Notifier: st.Notify}),
		account: account.New(account.Rates{Login: r.Login, LoginAddr: r.LoginAddr, Register: r.Register, Password: r.Password,
			Forgot: r.Forgot, Email: r.Email}, kit,
			account.Deps{Accounts: st.Sessions, Notes: st.Notify, Book: st.Addresses, History: st.Orders, TwoFactor: st.Sessions}),
		admin: admin.New(admin.Settings{Instance: st.Instance(), SessionLimit: opt.SessionLimit, PageCacheTTL: opt.PageCacheTTL,
			PageCacheTop: opt.PageCacheTop, RescaleInterval: opt.RescaleInterval, ViewedKeep: opt.ViewedKeep,
			StatsInterval: opt.StatsInterval, MaxImageBytes: cfg.MaxImageBytes,
			SupportRefundLimit: cfg.SupportRefundLimit, StaffRules: rules}, kit,
			admin.Deps{Catalog: st.Catalog, Pictures: st.Media, Pages: st.Pages, Views: st.Analytics, Orders: st.Orders,
				Articles: st.Board, Reviews: st.Reviews, Accounts: st.Sessions, Stats: st.Stats, Pricing: st.Pricing, Sales: st.Sales,
				Outbox: st.Mail, Returns: st.Returns, Merchant: st.Merchant, Tree: st.Catalog, Collections: st.Collections, Demo: st.Seeder, Staff: st.Sessions, Audit: st.Audit}),
	}, nil
}

// cardWebhook is the card method's webhook, or nil (not a nil pointer in
// an interface) when card payments are off.
func cardWebhook(st *wiring.Services) shop.CardWebhook {
	if st.Card == nil {
		return nil
	}
	return st.Card
}

// Router returns the Echo instance with every route and middleware.
func (h *Handler) Router() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	h.routes(e)
	return e
}

// Drain makes /readyz answer 503 from now on: the app is shutting down,
// and a load balancer should stop sending it new requests before the
// server stops accepting them.
func (h *Handler) Drain() { h.ops.Drain() }
