// Package handlers speaks HTTP: the Echo router, middleware and one handler
// file per resource. Handlers read typed requests, call the store and
// render templ views; they never hold state of their own that correctness
// depends on, so several instances can run side by side.
package handlers

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"storefront/store/media"
	"storefront/store/ratelimit"
)

// Config is what the HTTP layer needs from the environment.
type Config struct {
	CookieKeys     CookieKeys
	CookieSecure   SecureMode
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

// SecureMode says when cookies get the Secure flag.
type SecureMode int

// Secure modes: on for HTTPS requests, always, never.
const (
	SecureAuto SecureMode = iota
	SecureAlways
	SecureNever
)

// Handler holds the dependencies every handler shares.
type Handler struct {
	cfg     Config
	store   Store
	log     *slog.Logger
	codecs  []securecookie.Codec
	metrics *metrics
	cop     *http.CrossOriginProtection
	// tokens and users are the `sid` and `user` cookies verified lately.
	tokens, users cookieMemo
	// holes are per-visitor parts of cached pages rendered lately.
	holes holeMemo
	// draining is set on shutdown: /readyz answers 503 from then on.
	draining atomic.Bool
}

// New builds the handlers over a store.
func New(cfg Config, st Store, log *slog.Logger) (*Handler, error) {
	if len(cfg.CookieKeys) == 0 {
		return nil, fmt.Errorf("COOKIE_KEYS: no keys")
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 10 * time.Second
	}
	if cfg.MaxImageBytes == 0 {
		cfg.MaxImageBytes = media.DefaultMaxImageBytes
	}
	h := &Handler{
		cfg:     cfg,
		store:   st,
		log:     log,
		codecs:  cfg.CookieKeys.codecs(),
		metrics: newMetrics(),
		cop:     http.NewCrossOriginProtection(),
	}
	for _, c := range st.Collectors() {
		h.metrics.reg.MustRegister(c)
	}
	return h, nil
}

// Store is everything the handlers need from the data layer; each
// resource file declares its own part.
type Store interface {
	healthStore
	catalogStore
	sessionStore
	accountStore
	rateStore
	likeStore
	peopleStore
	feedStore
	notifyStore
	articleStore
	cartStore
	orderStore
	pageStore
	rowStore
	adminStore
	adminCatalogStore
	orderFlowStore
	moderationStore
	passwordStore
	articleGroupStore
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
