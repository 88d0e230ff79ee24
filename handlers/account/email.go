package account

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/keys"
	"storefront/store/mail"
	"storefront/store/sessions"
	"storefront/views"
)

// badEmail is the message for an address the shop does not accept.
const badEmail = "Enter an email address such as name@example.com (plain letters, digits and . _ % + - only)."

// EmailForm is GET /account/email?next=&first= (signed in only): the
// account's address, to set or change. first=1 is the one time an account
// without an address is asked after signing in; it may skip.
func (h *Handler) EmailForm(c echo.Context) error {
	s := web.SessionOf(c)
	e, err := h.accounts.Email(c.Request().Context(), s.UserID)
	if err != nil {
		return err
	}
	f := views.EmailForm{Current: e.Email, Verified: e.Verified, Next: web.LocalPath(c.QueryParam("next"), "/account/email"),
		FirstAsk: c.QueryParam("first") == "1" && e.Email == ""}
	return web.Render(c, http.StatusOK, views.EmailPage(h.web.Chrome(c, "Your email address"), f))
}

// SetEmail is POST /account/email (email, next; signed in only): the
// account gets the new, unverified address, and a verification link is
// emailed to it in the same transaction. At most EMAIL_RATE per account.
func (h *Handler) SetEmail(c echo.Context) error {
	s := web.SessionOf(c)
	if err := h.web.Limit(c, keys.RateEmail, web.Itoa(s.UserID), h.rates.Email, "Too many address changes: try again later."); err != nil {
		return err
	}
	next := web.LocalPath(c.FormValue("next"), "/account/email")
	email, err := mail.ParseAddress(c.FormValue("email"))
	if err != nil {
		ctx := c.Request().Context()
		e, rerr := h.accounts.Email(ctx, s.UserID)
		if rerr != nil {
			return rerr
		}
		return web.Render(c, http.StatusUnprocessableEntity, views.EmailPage(h.web.Chrome(c, "Your email address"),
			views.EmailForm{Current: e.Email, Verified: e.Verified, Email: c.FormValue("email"), Next: next, Errors: map[string]string{"email": badEmail}}))
	}
	if err := h.accounts.SetEmail(c.Request().Context(), s.UserID, email); err != nil {
		return err
	}
	return h.web.Done(c, "We sent a link to "+email+": follow it to confirm the address.", next)
}

// VerifyForm is GET /account/email/verify?token=: what the link confirms,
// with a button. Opening the link changes nothing (mail scanners open
// links); a link that cannot be used says why, with a 422.
func (h *Handler) VerifyForm(c echo.Context) error {
	token := c.QueryParam("token")
	email, err := h.accounts.CheckVerify(c.Request().Context(), token, web.SessionOf(c).UserID)
	if msg, bad := tokenRefusal(err); bad {
		return h.verifyPage(c, http.StatusUnprocessableEntity, views.TokenPage{Error: msg})
	}
	if err != nil {
		return err
	}
	return h.verifyPage(c, http.StatusOK, views.TokenPage{Token: token, Email: email})
}

// VerifyEmail is POST /account/email/verify (token): the account's address
// is confirmed and the link spent. Signed in as another account, the link
// is refused; signed out, it works (it came to the address's owner).
func (h *Handler) VerifyEmail(c echo.Context) error {
	email, err := h.accounts.VerifyEmail(c.Request().Context(), c.FormValue("token"), web.SessionOf(c).UserID)
	if msg, bad := tokenRefusal(err); bad {
		return h.verifyPage(c, http.StatusUnprocessableEntity, views.TokenPage{Error: msg})
	}
	if err != nil {
		return err
	}
	to := "/"
	if web.SessionOf(c).UserID > 0 {
		to = "/account/email"
	}
	return h.web.Done(c, "Thank you: "+email+" is confirmed.", to)
}

func (h *Handler) verifyPage(c echo.Context, status int, p views.TokenPage) error {
	return web.Render(c, status, views.VerifyEmailPage(h.web.Chrome(c, "Confirm your email address"), p))
}

// tokenRefusal is what the visitor is told about a link that cannot be
// used, and whether it is one.
func tokenRefusal(err error) (string, bool) {
	switch {
	case errors.Is(err, sessions.ErrTokenUsed):
		return "This link was already used. Each link works once.", true
	case errors.Is(err, sessions.ErrTokenExpired):
		return "This link has expired. Ask for a new one.", true
	case errors.Is(err, sessions.ErrTokenOtherAccount):
		return "This link is for another account. Sign out, or sign in to that account, to use it.", true
	case errors.Is(err, sessions.ErrTokenInvalid):
		return "This link is not valid. Copy the whole link from the email, or ask for a new one.", true
	}
	return "", false
}
