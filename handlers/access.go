package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/store/platform"
	"storefront/store/ratelimit"
)

// requireSignIn lets only signed-in visitors through; routes.go puts it
// on every members-only route. A guest is sent to sign in and brought back
// afterwards: to the page itself for a GET, and for a form post to the page
// the form was on (its next field or a same-site Referer, else from, a
// route pattern such as "/items/:id" filled from the request). Pages get a
// 303 and a flash with why; JSON clients get a 401 with the same words and
// the login link.
func (h *Handler) requireSignIn(why, from string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if session(c).SignedIn() {
				return next(c)
			}
			back := c.Request().URL.RequestURI()
			if m := c.Request().Method; m != http.MethodGet && m != http.MethodHead {
				back = returnPath(c, fillRoute(c, from))
			}
			return h.sendToSignIn(c, back, why)
		}
	}
}

// sendToSignIn answers a guest who needs an account, coming back to back.
func (h *Handler) sendToSignIn(c echo.Context, back, why string) error {
	login := "/login?next=" + url.QueryEscape(localPath(back, "/"))
	if wantsJSON(c) {
		return c.JSON(http.StatusUnauthorized, map[string]string{"error": why, "login": login})
	}
	h.setFlash(c, why)
	return redirect(c, login)
}

// fillRoute replaces each :param segment of a route pattern with the
// request's value; "" stands for the request's own path.
func fillRoute(c echo.Context, pattern string) string {
	if pattern == "" {
		return c.Request().URL.Path
	}
	pattern, fragment, hasFragment := strings.Cut(pattern, "#")
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			segs[i] = url.PathEscape(c.Param(name))
		}
	}
	if hasFragment {
		return strings.Join(segs, "/") + "#" + fragment
	}
	return strings.Join(segs, "/")
}

// requireAdmin guards /admin: a guest is sent to sign in, another account
// gets 403. The session says IsAdmin only when the signed cookie and
// `login:` agree on the user; the account's admin flag is then checked in
// the database too, so a revoked admin loses access at once.
func (h *Handler) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		s := session(c)
		if !s.SignedIn() {
			back := "/admin"
			if c.Request().Method == http.MethodGet {
				back = localPath(c.Request().URL.RequestURI(), "/admin")
			}
			return h.sendToSignIn(c, back, "Sign in as the shop's administrator.")
		}
		if err := h.checkAdmin(c, s); err != nil {
			return err
		}
		noStore(c)
		return next(c)
	}
}

// checkAdmin answers 403 unless the signed-in session is an admin's, by
// the cookie and by the database.
func (h *Handler) checkAdmin(c echo.Context, s *Session) error {
	forbidden := echo.NewHTTPError(http.StatusForbidden, "This page is for the shop's administrators.")
	if !s.IsAdmin {
		return forbidden
	}
	u, err := h.store.UserByID(c.Request().Context(), s.UserID)
	if errors.Is(err, platform.ErrNotFound) || (err == nil && !u.IsAdmin) {
		return forbidden
	}
	return err
}

// limit applies a rate limit and returns a rateLimited error when over it.
func (h *Handler) limit(c echo.Context, name, subject string, r Rate, msg string) error {
	_, err := h.admit(c, name, subject, r, msg)
	return err
}

// admit counts one event under a rate limit and returns the admission (to
// refund it later) or a rateLimited error when over the limit.
func (h *Handler) admit(c echo.Context, name, subject string, r Rate, msg string) (ratelimit.Admission, error) {
	a, err := h.store.Allow(c.Request().Context(), name, subject, r)
	if err != nil {
		return a, err
	}
	if !a.Allowed {
		return a, newRateLimited(a.RetryAfter, msg)
	}
	return a, nil
}

// newRateLimited is the error for an event over its limit, with the wait
// rounded up to whole seconds.
func newRateLimited(wait time.Duration, msg string) *rateLimited {
	secs := max(int((wait+time.Second-1)/time.Second), 1)
	return &rateLimited{retryAfter: secs, msg: fmt.Sprintf("%s Try again in %s.", msg, humanWait(secs))}
}

func humanWait(secs int) string {
	if secs < 90 {
		return fmt.Sprintf("%d seconds", max(secs, 1))
	}
	return fmt.Sprintf("%d minutes", (secs+59)/60)
}
