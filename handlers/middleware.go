package handlers

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// contentSecurityPolicy allows only our own scripts, styles and forms.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'"

// bodyLimit caps request bodies; forms here are small.
const bodyLimit = "64K"

func (h *Handler) secureHeaders() echo.MiddlewareFunc {
	return middleware.SecureWithConfig(middleware.SecureConfig{
		XSSProtection:         "0",
		ContentTypeNosniff:    "nosniff",
		XFrameOptions:         "DENY",
		ReferrerPolicy:        "strict-origin-when-cross-origin",
		ContentSecurityPolicy: contentSecurityPolicy,
	})
}

// requestLog writes one structured line per request with its request id.
func (h *Handler) requestLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err) // so the logged status is the one sent
		}
		req, res := c.Request(), c.Response()
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		elapsed := time.Since(start)
		h.metrics.observe(route, req.Method, res.Status, elapsed)
		h.log.LogAttrs(req.Context(), levelFor(res.Status), "request",
			slog.String("id", res.Header().Get(echo.HeaderXRequestID)),
			slog.String("method", req.Method), slog.String("uri", req.RequestURI), slog.String("route", route),
			slog.Int("status", res.Status), slog.Int("bytes", int(res.Size)),
			slog.Duration("took", elapsed), slog.String("ip", c.RealIP()),
			slog.String("cache", res.Header().Get("X-Cache")))
		return nil
	}
}

// crossOrigin refuses state-changing requests from other sites (by
// Sec-Fetch-Site, else Origin against Host), so forms need no per-user CSRF
// token and cached pages hold none.
func (h *Handler) crossOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := h.cop.Check(c.Request()); err != nil {
			return echo.NewHTTPError(http.StatusForbidden, "Cross-site form submissions are not accepted.")
		}
		return next(c)
	}
}

// deadline bounds every request so that a slow Redis or database turns
// into a 503 within the budget instead of a hang.
func (h *Handler) deadline(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), h.cfg.RequestTimeout)
		defer cancel()
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// ipExtractor believes X-Forwarded-For only from TRUSTED_PROXIES.
func (h *Handler) ipExtractor() echo.IPExtractor {
	if len(h.cfg.TrustedProxies) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range h.cfg.TrustedProxies {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

func (h *Handler) fromTrustedProxy(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	for _, n := range h.cfg.TrustedProxies {
		if ip != nil && n.Contains(ip) {
			return true
		}
	}
	return false
}

// noStore marks per-user responses as private to every cache.
func noStore(c echo.Context) {
	c.Response().Header().Set("Cache-Control", "private, no-store")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func levelFor(status int) slog.Level {
	switch {
	case status >= 500:
		return slog.LevelError
	case status >= 400:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}
