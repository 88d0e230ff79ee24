package account

import (
	"context"
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/keys"
	"storefront/store/sessions"
	"storefront/views"
)

// PasswordForm is GET /account/password (signed in only).
func (h *Handler) PasswordForm(c echo.Context) error {
	return web.Render(c, http.StatusOK, views.PasswordPage(h.web.Chrome(c, "Change your password"), views.PasswordForm{}))
}

// ChangePassword is POST /account/password (current, new; signed in
// only): check the
// current password, store the new one (bcrypt) and sign the account out of
// every other session at once; this one stays. At most PASSWORD_RATE
// attempts per account.
func (h *Handler) ChangePassword(c echo.Context) error {
	s := web.SessionOf(c)
	if err := h.web.Limit(c, keys.RatePassword, web.Itoa(s.UserID), h.rates.Password, "Too many password changes."); err != nil {
		return err
	}
	current, next := c.FormValue("current"), c.FormValue("new")
	errs := map[string]string{}
	if current == "" || len(current) > 1024 {
		errs["current"] = "Enter your current password."
	}
	if n := utf8.RuneCountInString(next); n < 8 || n > 128 || !utf8.ValidString(next) {
		errs["new"] = "Use 8 to 128 characters."
	}
	if len(errs) > 0 {
		return h.passwordError(c, errs)
	}
	ctx := c.Request().Context()
	err := h.accounts.ChangePassword(ctx, s.UserID, current, next)
	if errors.Is(err, sessions.ErrBadCredentials) {
		return h.passwordError(c, map[string]string{"current": "That is not your current password."})
	}
	if err != nil {
		return err
	}
	n, err := h.accounts.EndUserSessions(context.WithoutCancel(ctx), s.UserID, s.Token)
	if err != nil {
		return err
	}
	h.web.Log().Info("password changed", "user_id", s.UserID, "other_sessions_ended", n)
	h.web.SetFlash(c, "Your password is changed. Every other device was signed out.")
	return web.Redirect(c, "/account/password")
}

func (h *Handler) passwordError(c echo.Context, errs map[string]string) error {
	return web.Render(c, http.StatusUnprocessableEntity, views.PasswordPage(h.web.Chrome(c, "Change your password"), views.PasswordForm{Errors: errs}))
}
