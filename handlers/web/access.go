package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/store/platform"
)

// RequireSignIn lets only signed-in visitors through; routes.go puts it
// on every members-only route. A guest is sent to sign in and brought back
// afterwards: to the page itself for a GET, and for a form post to the page
// the form was on (its next field or a same-site Referer, else from, a
// route pattern such as "/items/:id" filled from the request). Pages get a
// 303 and a flash with why; JSON clients get a 401 with the same words and
// the login link.
func (k *Kit) RequireSignIn(why, from string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if SessionOf(c).SignedIn() {
				return next(c)
			}
			back := c.Request().URL.RequestURI()
			if m := c.Request().Method; m != http.MethodGet && m != http.MethodHead {
				back = ReturnPath(c, fillRoute(c, from))
			}
			return k.sendToSignIn(c, back, why)
		}
	}
}

// sendToSignIn answers a guest who needs an account, coming back to back.
func (k *Kit) sendToSignIn(c echo.Context, back, why string) error {
	login := "/login?next=" + url.QueryEscape(LocalPath(back, "/"))
	if WantsJSON(c) {
		return c.JSON(http.StatusUnauthorized, map[string]string{"error": why, "login": login})
	}
	k.SetFlash(c, why)
	return Redirect(c, login)
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

// RequireAdmin guards /admin: a guest is sent to sign in, another account
// gets 403. The session says IsAdmin only when the signed cookie and
// `login:` agree on the user; the account's admin flag is then checked in
// the database too, so a revoked admin loses access at once.
func (k *Kit) RequireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		s := SessionOf(c)
		if !s.SignedIn() {
			back := "/admin"
			if c.Request().Method == http.MethodGet {
				back = LocalPath(c.Request().URL.RequestURI(), "/admin")
			}
			return k.sendToSignIn(c, back, "Sign in as the shop's administrator.")
		}
		if err := k.CheckAdmin(c, s); err != nil {
			return err
		}
		NoStore(c)
		return next(c)
	}
}

// CheckAdmin answers 403 unless the signed-in session is an admin's, by
// the cookie and by the database.
func (k *Kit) CheckAdmin(c echo.Context, s *Session) error {
	forbidden := echo.NewHTTPError(http.StatusForbidden, "This page is for the shop's administrators.")
	if !s.IsAdmin {
		return forbidden
	}
	u, err := k.deps.Sessions.UserByID(c.Request().Context(), s.UserID)
	if errors.Is(err, platform.ErrNotFound) || (err == nil && !u.IsAdmin) {
		return forbidden
	}
	return err
}

// Audit logs an admin action: who, what, when, and on what (target).
func (k *Kit) Audit(c echo.Context, action, target string, attrs ...any) {
	s := SessionOf(c)
	k.log.Info("admin action", append([]any{"who", s.UserName, "user_id", s.UserID, "action", action,
		"target", target, "at", time.Now().UTC().Format(time.RFC3339), "ip", c.RealIP(),
		"id", c.Response().Header().Get(echo.HeaderXRequestID)}, attrs...)...)
}
