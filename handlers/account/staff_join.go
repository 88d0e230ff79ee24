package account

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/views"
)

// JoinStaffForm is GET /staff/join?token=: a staff invitation's form
// (username, password), or why the link cannot be used (422). Opening it
// uses nothing.
func (h *Handler) JoinStaffForm(c echo.Context) error {
	token := c.QueryParam("token")
	inv, err := h.accounts.CheckInvite(c.Request().Context(), token)
	if msg, bad := tokenRefusal(err); bad {
		return h.joinPage(c, http.StatusUnprocessableEntity, views.JoinStaffForm{Error: msg})
	}
	if err != nil {
		return err
	}
	return h.joinPage(c, http.StatusOK, views.JoinStaffForm{Token: token, Email: inv.Email, Role: string(inv.Role)})
}

// JoinStaff is POST /staff/join (token, username, password): the link is
// used and the staff account made in one transaction, then signed in. A
// bad username or password, a taken username or a link that cannot be
// used (forged, used, expired) is a 422 and changes nothing; REGISTER_RATE
// limits it per client address, as new accounts are.
func (h *Handler) JoinStaff(c echo.Context) error {
	token := c.FormValue("token")
	f := accountForm{Username: c.FormValue("username"), Password: c.FormValue("password")}
	ctx := c.Request().Context()
	inv, err := h.accounts.CheckInvite(ctx, token)
	if msg, bad := tokenRefusal(err); bad {
		return h.joinPage(c, http.StatusUnprocessableEntity, views.JoinStaffForm{Error: msg})
	}
	if err != nil {
		return err
	}
	if err := h.web.Limit(c, keys.RateRegister, c.RealIP(), h.rates.Register, "Too many new accounts from your address."); err != nil {
		return err
	}
	form := views.JoinStaffForm{Token: token, Email: inv.Email, Role: string(inv.Role), Username: f.Username}
	if errs := f.validate(); len(errs) > 0 {
		form.Errors = errs
		return h.joinPage(c, http.StatusUnprocessableEntity, form)
	}
	u, err := h.accounts.AcceptInvite(ctx, token, f.Username, f.Password)
	if errors.Is(err, platform.ErrConflict) {
		form.Errors = map[string]string{"username": "That username is taken."}
		return h.joinPage(c, http.StatusUnprocessableEntity, form)
	}
	if msg, bad := tokenRefusal(err); bad {
		return h.joinPage(c, http.StatusUnprocessableEntity, views.JoinStaffForm{Error: msg})
	}
	if err != nil {
		return err
	}
	h.web.Log().Info("staff joined", "user_id", u.ID, "role", string(u.Role))
	note, err := h.signIn(c, u)
	if err != nil {
		return err
	}
	h.web.SetFlash(c, "Welcome to the team, "+u.Username+"! You are signed in as "+string(u.Role)+"."+note)
	return web.Redirect(c, "/admin")
}

func (h *Handler) joinPage(c echo.Context, status int, f views.JoinStaffForm) error {
	return web.Render(c, status, views.JoinStaffPage(h.web.Chrome(c, "Join the team"), f))
}
