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
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
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
	PageCacheTTL     time.Duration
	PageCacheTop     int64
	RequestTimeout   time.Duration
}

// Rates are the sliding-window limits of DESIGN §4.
type Rates struct {
	Login, Register, Post, Vote, Comment Rate
}

// Rate is N events per window; N = 0 turns the limit off.
type Rate struct {
	N   int
	Per time.Duration
}

// ParseRate reads "N/duration" (such as 5/1m); "0" turns a limit off.
func ParseRate(s string) (Rate, error) {
	if s == "0" {
		return Rate{}, nil
	}
	n, per, ok := strings.Cut(s, "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count < 0 {
		return Rate{}, fmt.Errorf("want N/duration such as 5/1m, got %q", s)
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return Rate{}, fmt.Errorf("want N/duration such as 5/1m, got %q", s)
	}
	return Rate{N: count, Per: d}, nil
}

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
}

// New builds the handlers over a store.
func New(cfg Config, st Store, log *slog.Logger) (*Handler, error) {
	if len(cfg.CookieKeys) == 0 {
		return nil, fmt.Errorf("COOKIE_KEYS: no keys")
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 10 * time.Second
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
	dashboardStore
	Collectors() []prometheus.Collector
}

// Router returns the Echo instance with every route and middleware.
func (h *Handler) Router() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	h.routes(e)
	return e
}
