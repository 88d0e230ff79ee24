package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/store/sessions"
)

// contentSecurityPolicy allows only our own scripts, styles and forms.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'"

// maxBody caps request bodies; forms here are small.
const maxBody = 64 << 10

// BodyLimit answers 413 for a body over maxBody. A body that announces its
// length is judged by it; a chunked one (no length) is read here, up to one
// byte past the limit, so that an oversized one is a 413 before any handler
// runs rather than a read error in the middle of form parsing (a 400).
func BodyLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		tooLarge := func() error { return echo.NewHTTPError(http.StatusRequestEntityTooLarge, "That request is too large.") }
		switch {
		case req.ContentLength > maxBody:
			return tooLarge()
		case req.ContentLength < 0 && req.Body != nil && req.Body != http.NoBody:
			b, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
			if err != nil {
				return echo.NewHTTPError(http.StatusBadRequest, "The request body could not be read.")
			}
			if len(b) > maxBody {
				return tooLarge()
			}
			req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		}
		return next(c)
	}
}

// securityHeaders are the security headers of every response, under
// their canonical names. Their values are shared by every response (a
// header value is never written to in place; Add on one would copy), so
// setting them costs no allocation.
var securityHeaders = [...]struct {
	name  string
	value []string
}{
	{"X-Xss-Protection", []string{"0"}},
	{"X-Content-Type-Options", []string{"nosniff"}},
	{"X-Frame-Options", []string{"DENY"}},
	{"Referrer-Policy", []string{"strict-origin-when-cross-origin"}},
	{"Content-Security-Policy", []string{contentSecurityPolicy}},
}

// SecureHeaders sets the security headers of every response.
func (k *Kit) SecureHeaders() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			for _, sh := range securityHeaders {
				h[sh.name] = sh.value
			}
			return next(c)
		}
	}
}

// RequestID gives every request an id for the log and the X-Request-Id
// response header. A client's (or proxy's) own id is kept only when it is
// 1-64 characters of [A-Za-z0-9-_.]: anything else could be 8 KB of markup
// copied into every log line and echoed back.
func (k *Kit) RequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(echo.HeaderXRequestID)
		if !validRequestID(id) {
			id = randomID()
		}
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		return next(c)
	}
}

func validRequestID(id string) bool {
	if len(id) < 1 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch b := id[i]; {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9', b == '-', b == '_', b == '.':
		default:
			return false
		}
	}
	return true
}

// randomID is 16 random bytes in hex.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ValidText answers 422 when any query parameter or form field (names
// too) is not valid UTF-8, before any handler can store or echo it: one
// check for every field, passwords included, rather than one per form.
func ValidText(next echo.HandlerFunc) echo.HandlerFunc {
	return ValidQuery(func(c echo.Context) error {
		if c.Request().Method == http.MethodPost {
			form, err := c.FormParams()
			if err != nil {
				var he *echo.HTTPError
				if errors.As(err, &he) {
					return he
				}
				return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.")
			}
			if !validValues(form) {
				return errNotUTF8()
			}
		}
		return next(c)
	})
}

// ValidQuery is ValidText's check of the path and the query alone, for a
// route that reads its own body (a streamed upload).
func ValidQuery(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !utf8.ValidString(c.Request().URL.Path) {
			return errNotUTF8()
		}
		if raw := c.Request().URL.RawQuery; raw != "" {
			// A malformed pair is dropped, as c.QueryParam drops it.
			q, _ := url.ParseQuery(raw)
			if !validValues(q) {
				return errNotUTF8()
			}
		}
		return next(c)
	}
}

// errNotUTF8 is the answer to text that is not valid UTF-8.
func errNotUTF8() error {
	return echo.NewHTTPError(http.StatusUnprocessableEntity, "Text must be valid UTF-8.")
}

func validValues(vs url.Values) bool {
	for k, list := range vs {
		if !utf8.ValidString(k) {
			return false
		}
		for _, v := range list {
			if !utf8.ValidString(v) {
				return false
			}
		}
	}
	return true
}

// RequestLog writes one structured line per request with its request id.
func (k *Kit) RequestLog(next echo.HandlerFunc) echo.HandlerFunc {
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
		k.metrics.observe(route, req.Method, res.Status, elapsed)
		k.log.LogAttrs(req.Context(), levelFor(res.Status), "request",
			slog.String("id", res.Header().Get(echo.HeaderXRequestID)),
			slog.String("method", req.Method), slog.String("uri", req.RequestURI), slog.String("route", route),
			slog.Int("status", res.Status), slog.Int("bytes", int(res.Size)),
			slog.Duration("took", elapsed), slog.String("ip", c.RealIP()),
			slog.String("cache", res.Header().Get("X-Cache")))
		return nil
	}
}

// CrossOrigin refuses state-changing requests from other sites (by
// Sec-Fetch-Site, else Origin against Host), so forms need no per-user CSRF
// token and cached pages hold none.
func (k *Kit) CrossOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := k.cop.Check(c.Request()); err != nil {
			return echo.NewHTTPError(http.StatusForbidden, "Cross-site form submissions are not accepted.")
		}
		return next(c)
	}
}

// Deadline bounds every request so that a slow Redis or database turns
// into a 503 within the budget instead of a hang, and puts the client's
// address in the request context, where the store's session-creating
// functions find it for their per-address cap: one context and one copy
// of the request for both. The shop's settings (its name and currency,
// from memory) go in the same context, for every page and error page.
func (k *Kit) Deadline(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), k.cfg.RequestTimeout)
		defer cancel()
		ctx = k.WithShop(sessions.WithClientAddr(ctx, c.RealIP()))
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// IPExtractor believes X-Forwarded-For only from TRUSTED_PROXIES.
func (k *Kit) IPExtractor() echo.IPExtractor {
	if len(k.cfg.TrustedProxies) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range k.cfg.TrustedProxies {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

func (k *Kit) fromTrustedProxy(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	for _, n := range k.cfg.TrustedProxies {
		if ip != nil && n.Contains(ip) {
			return true
		}
	}
	return false
}

// NoStore marks per-user responses as private to every cache.
func NoStore(c echo.Context) {
	c.Response().Header().Set("Cache-Control", "private, no-store")
}

// Itoa writes a whole number in decimal.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }

func levelFor(status int) slog.Level {
	switch {
	case status == StatusClientClosedRequest:
		return slog.LevelInfo // the client's choice, not a fault
	case status >= 500:
		return slog.LevelError
	case status >= 400:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}
