// Package web is the request plumbing every area of the HTTP layer shares
// (handlers/shop, board, account, admin and ops), in one place: the
// middleware chain (request id, deadline, body and UTF-8 checks, security
// headers, the cross-origin check, the request log and its Prometheus
// series), the visitor's Session read from the signed cookies and the
// server, the cookies themselves (tokens, the `user` claim, the flash),
// the guards of members' and admin routes, rate limits, request
// parameters, rendering, the answers shared by many handlers (JSON or a
// redirect with a flash, 422 as JSON or a page) and the one error handler.
// It also builds the few view models more than one area shows (pictures,
// article rows, times for people).
//
// It holds no state that correctness depends on beyond memos of work
// already done (verified cookies), so several instances run side by side.
// An area imports web and the store packages it reads; web imports no
// area. Tests: cookies_fuzz_test.go here; everything else is tested
// through the real router in handlers/.
package web

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/prometheus/client_golang/prometheus"

	"storefront/store/catalog"
	"storefront/store/platform"
	"storefront/store/ratelimit"
	"storefront/store/sessions"
)

// Config is what the plumbing needs from the environment.
type Config struct {
	CookieKeys     CookieKeys
	CookieSecure   SecureMode
	TrustedProxies []*net.IPNet
	// RequestTimeout bounds every request (0: 10 s).
	RequestTimeout time.Duration
	// ShopURL is the shop's own absolute URL (SHOP_URL, no trailing
	// slash): canonical links, sitemaps and previews start with it, never
	// with the request's Host.
	ShopURL string
	// StaffTwoFactor are the staff roles that must sign in with two
	// factors (STAFF_2FA); empty: none.
	StaffTwoFactor []string
}

// SecureMode says when cookies get the Secure flag.
type SecureMode int

// Secure modes: on for HTTPS requests, always, never.
const (
	SecureAuto SecureMode = iota
	SecureAlways
	SecureNever
)

// Sessions is what the plumbing asks of the sessions domain: the
// server's view of a token, a new guest session, and the account behind
// an admin's session.
type Sessions interface {
	LoadSession(ctx context.Context, token string, claimedUserID int64) (sessions.SessionState, error)
	CreateSession(ctx context.Context, token string, userID int64) error
	UserByID(ctx context.Context, id int64) (sessions.User, error)
	TwoFactor(ctx context.Context, userID int64) (sessions.TwoFactor, error)
}

// SessionViews reads a session as the page cache's writes behind leave
// it (a first visit's session is created there): ViewSession for a page
// read (GET, HEAD), from the client-side cache where it can, with the
// session's touch written behind; LoadSession, from Redis, for a request
// that changes data, with the session created first if it is still on
// its way.
type SessionViews interface {
	ViewSession(ctx context.Context, token string, claimedUserID int64) (sessions.SessionState, error)
	LoadSession(ctx context.Context, token string, claimedUserID int64) (sessions.SessionState, error)
}

// Limiter is the shared sliding-window rate limiter.
type Limiter interface {
	Allow(ctx context.Context, name, subject string, rate ratelimit.Rate) (ratelimit.Admission, error)
	Refund(ctx context.Context, a ratelimit.Admission) error
}

// Deps are the domain services the plumbing reads.
type Deps struct {
	Sessions Sessions
	Views    SessionViews
	Limiter  Limiter
	Buyable  Buyable
	// Shop is the merchant's settings (nil: the defaults).
	Shop ShopSettings
}

// Buyable counts the cart lines the catalog can sell now: the header's
// badge.
type Buyable interface {
	BuyableCount(ctx context.Context, lines []catalog.LineRef) (int64, error)
}

// Kit is the plumbing, built once and shared by every area.
type Kit struct {
	cfg     Config
	deps    Deps
	log     *slog.Logger
	codecs  []securecookie.Codec
	metrics *metrics
	cop     *http.CrossOriginProtection
	// tokens and users are the `sid` and `user` cookies verified lately.
	tokens, users *platform.Memo[string, userClaim]
}

// New builds the plumbing.
func New(cfg Config, deps Deps, log *slog.Logger) (*Kit, error) {
	if len(cfg.CookieKeys) == 0 {
		return nil, fmt.Errorf("COOKIE_KEYS: no keys")
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 10 * time.Second
	}
	return &Kit{
		cfg:     cfg,
		deps:    deps,
		log:     log,
		codecs:  cfg.CookieKeys.codecs(),
		metrics: newMetrics(),
		cop:     http.NewCrossOriginProtection(),
		tokens:  platform.NewMemo[string, userClaim](cookieMemoMax),
		users:   platform.NewMemo[string, userClaim](cookieMemoMax),
	}, nil
}

// Log is the logger every area writes to.
func (k *Kit) Log() *slog.Logger { return k.log }

// Registry is the Prometheus registry /metrics serves: the HTTP series,
// the Go and process collectors, and what the data layer registers.
func (k *Kit) Registry() *prometheus.Registry { return k.metrics.reg }
