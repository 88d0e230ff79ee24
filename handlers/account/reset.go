package account

import (
	"context"
	"net/http"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/keys"
	"storefront/store/mail"
	"storefront/views"
)

// ForgotForm is GET /password/forgot.
func (h *Handler) ForgotForm(c echo.Context) error {
	return web.Render(c, http.StatusOK, views.ForgotPage(h.web.Chrome(c, "Forgot your password?"), views.ForgotForm{}))
}

// Forgot is POST /password/forgot (email): a reset link goes to every
// account whose confirmed address it is. The answer is the same page
// whether or not one is, after the same work (RequestReset rolls back
// what it wrote for an unknown address). FORGOT_RATE limits requests per
// client address and per typed address; a malformed address is a 422.
func (h *Handler) Forgot(c echo.Context) error {
	if err := h.web.Limit(c, keys.RateForgot, c.RealIP(), h.rates.Forgot, "Too many requests from your address: try again later."); err != nil {
		return err
	}
	typed := c.FormValue("email")
	email, err := mail.ParseAddress(typed)
	if err != nil {
		return web.Render(c, http.StatusUnprocessableEntity, views.ForgotPage(h.web.Chrome(c, "Forgot your password?"),
			views.ForgotForm{Email: typed, Errors: map[string]string{"email": badEmail}}))
	}
	if err := h.web.Limit(c, keys.RateForgotEmail, limitSubject(email), h.rates.Forgot, "Too many requests for this address: try again later."); err != nil {
		return err
	}
	if err := h.accounts.RequestReset(c.Request().Context(), email); err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, views.ForgotPage(h.web.Chrome(c, "Forgot your password?"), views.ForgotForm{Email: email, Sent: true}))
}

// ResetForm is GET /password/reset?token=: the new password form, or why
// the link cannot be used (422). Opening it uses nothing.
func (h *Handler) ResetForm(c echo.Context) error {
	token := c.QueryParam("token")
	u, err := h.accounts.CheckReset(c.Request().Context(), token)
	if msg, bad := tokenRefusal(err); bad {
		return h.resetPage(c, http.StatusUnprocessableEntity, views.TokenPage{Error: msg})
	}
	if err != nil {
		return err
	}
	return h.resetPage(c, http.StatusOK, views.TokenPage{Token: token, Username: u.Username})
}

// Reset is POST /password/reset (token, password): the link is spent and
// the password set in one transaction, then every session of the account
// ends (this visitor's too, if it was signed in to it). A bad password or
// link is a 422 and changes nothing.
func (h *Handler) Reset(c echo.Context) error {
	token, password := c.FormValue("token"), c.FormValue("password")
	ctx := c.Request().Context()
	if n := utf8.RuneCountInString(password); n < 8 || n > 128 {
		u, err := h.accounts.CheckReset(ctx, token)
		if msg, bad := tokenRefusal(err); bad {
			return h.resetPage(c, http.StatusUnprocessableEntity, views.TokenPage{Error: msg})
		}
		if err != nil {
			return err
		}
		return h.resetPage(c, http.StatusUnprocessableEntity, views.TokenPage{Token: token, Username: u.Username,
			Errors: map[string]string{"password": "Use 8 to 128 characters."}})
	}
	u, err := h.accounts.ResetPassword(ctx, token, password)
	if msg, bad := tokenRefusal(err); bad {
		return h.resetPage(c, http.StatusUnprocessableEntity, views.TokenPage{Error: msg})
	}
	if err != nil {
		return err
	}
	n, err := h.accounts.EndUserSessions(context.WithoutCancel(ctx), u.ID, "")
	if err != nil {
		return err
	}
	h.web.Log().Info("password reset", "user_id", u.ID, "sessions_ended", n)
	s := web.SessionOf(c)
	if s.UserID == u.ID {
		h.web.Anonymous(c, s, true)
	}
	h.web.SetFlash(c, "Your password is changed and every device was signed out. Sign in with the new password.")
	return web.Redirect(c, "/login")
}

func (h *Handler) resetPage(c echo.Context, status int, p views.TokenPage) error {
	return web.Render(c, status, views.ResetPage(h.web.Chrome(c, "Choose a new password"), p))
}
