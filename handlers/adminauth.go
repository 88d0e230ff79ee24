package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/store"
)

// adminAuthStore is what the admin guard checks.
type adminAuthStore interface {
	UserByID(ctx context.Context, id int64) (store.User, error)
}

// requireAdmin guards /admin and everything under it: an anonymous
// visitor (which includes a tampered, expired or replayed cookie) is sent
// to sign in, another account gets 403. The session says IsAdmin only
// when the signed `user` cookie, bound to the token, and the server-side
// `login:` entry agree on the user; the account's admin flag is then read
// from the database too, so a revoked admin loses access at once.
func (h *Handler) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		s := session(c)
		if !s.SignedIn() {
			back := "/admin"
			if c.Request().Method == http.MethodGet {
				back = localPath(c.Request().URL.RequestURI(), "/admin")
			}
			return redirect(c, "/login?next="+url.QueryEscape(back))
		}
		forbidden := echo.NewHTTPError(http.StatusForbidden, "This page is for the shop's administrators.")
		if !s.IsAdmin {
			return forbidden
		}
		u, err := h.store.UserByID(c.Request().Context(), s.UserID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !u.IsAdmin) {
			return forbidden
		}
		if err != nil {
			return err
		}
		noStore(c)
		return next(c)
	}
}

// audit logs an admin action: who, what, when, and on what.
func (h *Handler) audit(c echo.Context, action string, attrs ...any) {
	s := session(c)
	h.log.Info("admin action", append([]any{"who", s.UserName, "user_id", s.UserID, "action", action,
		"at", time.Now().UTC().Format(time.RFC3339), "ip", c.RealIP(),
		"id", c.Response().Header().Get(echo.HeaderXRequestID)}, attrs...)...)
}
