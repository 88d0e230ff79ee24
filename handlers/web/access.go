package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
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

// CheckAdmin answers 403 unless the signed-in session is a staff member's
// whose role may see the shop's system (the owner's), by the database.
// /metrics reads it for a session without the token.
func (k *Kit) CheckAdmin(c echo.Context, s *Session) error {
	u, err := k.staffMember(c, s)
	if err != nil {
		return err
	}
	if role := u.Role; !May(role, PermSettings) {
		return forbiddenFor(role)
	}
	return nil
}

// Audit logs an admin action: who, what, when, and on what (target), at
// LevelAudit so that no LOG_LEVEL drops it.
func (k *Kit) Audit(c echo.Context, action, target string, attrs ...any) {
	s := SessionOf(c)
	k.log.Log(c.Request().Context(), LevelAudit, "admin action", append([]any{"who", s.UserName, "user_id", s.UserID, "action", action,
		"target", target, "at", time.Now().UTC().Format(time.RFC3339), "ip", c.RealIP(),
		"id", c.Response().Header().Get(echo.HeaderXRequestID)}, attrs...)...)
}
