// Package handlers speaks HTTP: the Echo router, middleware and one handler
// file per resource. Handlers read typed requests, call the store and
// render templ views; they never hold state of their own that correctness
// depends on, so several instances can run side by side.
package handlers

import (
	"log/slog"
	"net"
	boardarea "storefront/handlers/board"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"storefront/handlers/account"
	"storefront/handlers/ops"
	"storefront/handlers/web"
	"storefront/store/media"
	"storefront/store/ratelimit"
)

// Config is what the HTTP layer needs from the environment.
type Config struct {
	CookieKeys     web.CookieKeys
	CookieSecure   web.SecureMode
	TrustedProxies []*net.IPNet
	ItemsPerPage   int
	ArticlesPage   int
	MaxLineQty     int
	// ViewedPerSession is how many recently viewed items a session keeps.
	ViewedPerSession int
	Rates            Rates
	RequestTimeout   time.Duration
	// MaxImageBytes is the largest picture upload accepted.
	MaxImageBytes int64
	// MetricsToken, when set, lets a scraper read /metrics with
	// "Authorization: Bearer <token>"; without it only the admin can.
	MetricsToken string
	// Health, when set, says whether the app can still heal what it runs
	// (GET /healthz fails when it cannot).
	Health func() error
}

// Rates are the sliding-window limits, each one or more windows that must
// all allow (ratelimit.ParseRate reads the knobs).
type Rates struct {
	// Login counts failed sign-ins per (account, client address) and
	// LoginAddr per client address; successful sign-ins are not counted.
	Login, LoginAddr                            Rate
	Register, Post, Vote, Comment, Follow, Like Rate
	// Review limits posting and editing reviews, Password the password
	// changes, per account.
	Review, Password Rate
}

// Rate is a store rate: windows that must all allow.
type Rate = ratelimit.Rate

// Handler holds the dependencies every handler shares.
type Handler struct {
	cfg   Config
	store Store
	log   *slog.Logger
	web   *web.Kit
	// holes are per-visitor parts of cached pages rendered lately.
	holes   holeMemo
	ops     *ops.Handler
	account *account.Handler
	board   *boardarea.Handler
}

// New builds the handlers over a store.
func New(cfg Config, st Store, log *slog.Logger) (*Handler, error) {
	if cfg.MaxImageBytes == 0 {
		cfg.MaxImageBytes = media.DefaultMaxImageBytes
	}
	kit, err := web.New(web.Config{CookieKeys: cfg.CookieKeys, CookieSecure: cfg.CookieSecure,
		TrustedProxies: cfg.TrustedProxies, RequestTimeout: cfg.RequestTimeout},
		web.Deps{Sessions: st, Views: st, Limiter: st}, log)
	if err != nil {
		return nil, err
	}
	h := &Handler{cfg: cfg, store: st, log: log, web: kit,
		ops: ops.New(ops.Config{MetricsToken: cfg.MetricsToken, Health: cfg.Health}, kit, st),
		account: account.New(account.Rates{Login: cfg.Rates.Login, LoginAddr: cfg.Rates.LoginAddr, Register: cfg.Rates.Register,
			Password: cfg.Rates.Password}, kit, st, st),
		board: boardarea.New(boardarea.Config{PerPage: cfg.ArticlesPage, Post: cfg.Rates.Post, Vote: cfg.Rates.Vote,
			Comment: cfg.Rates.Comment, Follow: cfg.Rates.Follow},
			kit, boardarea.Deps{Articles: st, Social: st, Users: st, Notifier: st})}
	kit.Registry().MustRegister(st.Collectors()...)
	return h, nil
}

// Store is everything the handlers need from the data layer; each
// resource file declares its own part.
type Store interface {
	ops.Pinger
	account.Accounts
	account.Notes
	boardarea.Articles
	boardarea.Social
	boardarea.Users
	boardarea.Notifier
	catalogStore
	web.Sessions
	web.SessionViews
	web.Limiter
	likeStore
	cartStore
	orderStore
	pageStore
	rowStore
	adminStore
	adminCatalogStore
	orderFlowStore
	moderationStore
	reviewStore
	dashboardStore
	mediaStore
	Collectors() []prometheus.Collector
}

// Router returns the Echo instance with every route and middleware.
func (h *Handler) Router() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	h.routes(e)
	return e
}

// Drain makes /readyz answer 503 from now on: the app is shutting down.
func (h *Handler) Drain() { h.ops.Drain() }
