package account

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/cart"
	"storefront/store/keys"
	"storefront/store/mail"
	"storefront/store/platform"
	"storefront/store/ratelimit"
	"storefront/store/sessions"
	"storefront/views"
)

// accountForm is the posted username and password.
type accountForm struct {
	Username string `form:"username"`
	Password string `form:"password"`
	Email    string `form:"email"` // registration only
	Next     string `form:"next"`
}

func (f *accountForm) validate() map[string]string {
	errs := map[string]string{}
	if !web.ValidUsername(f.Username) {
		errs["username"] = "Use 3 to 32 letters, digits or underscores."
	}
	if n := utf8.RuneCountInString(f.Password); n < 8 || n > 128 {
		errs["password"] = "Use 8 to 128 characters."
	}
	return errs
}

func readAccountForm(c echo.Context) (accountForm, error) {
	var f accountForm
	if err := c.Bind(&f); err != nil {
		return f, web.BadRequest("The form could not be read.")
	}
	f.Username = strings.TrimSpace(f.Username)
	f.Next = web.LocalPath(f.Next, "/")
	return f, nil
}

// limitSubject is the rate-limit subject for a typed username: lower case
// (names are unique ignoring case), and a digest for anything too long to be
// a username, so that a huge form value makes no huge Redis key.
func limitSubject(name string) string {
	name = strings.ToLower(name)
	if len(name) > 64 {
		sum := sha256.Sum256([]byte(name))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	return name
}

// RegisterForm shows the registration form.
func (h *Handler) RegisterForm(c echo.Context) error {
	return web.Render(c, http.StatusOK, views.RegisterPage(h.web.Chrome(c, "Create an account"), views.AccountForm{Next: web.LocalPath(c.QueryParam("next"), "")}))
}

// Register creates an account and signs it in.
func (h *Handler) Register(c echo.Context) error {
	f, err := readAccountForm(c)
	if err != nil {
		return err
	}
	if err := h.web.Limit(c, keys.RateRegister, c.RealIP(), h.rates.Register, "Too many new accounts from your address."); err != nil {
		return err
	}
	errs := f.validate()
	if email, err := mail.ParseAddress(f.Email); err != nil {
		errs["email"] = badEmail
	} else {
		f.Email = email
	}
	if len(errs) > 0 {
		return h.registerError(c, f, errs, "")
	}
	u, err := h.accounts.Register(c.Request().Context(), f.Username, f.Password, f.Email)
	if errors.Is(err, platform.ErrConflict) {
		return h.registerError(c, f, map[string]string{"username": "That username is taken."}, "")
	}
	if err != nil {
		return err
	}
	note, err := h.signIn(c, u)
	if err != nil {
		return err
	}
	h.web.SetFlash(c, "Welcome, "+u.Username+"! Your account is ready: we sent a link to "+f.Email+" to confirm it."+note)
	return web.Redirect(c, f.Next)
}

func (h *Handler) registerError(c echo.Context, f accountForm, errs map[string]string, msg string) error {
	return web.Render(c, http.StatusUnprocessableEntity, views.RegisterPage(h.web.Chrome(c, "Create an account"),
		views.AccountForm{Username: f.Username, Email: f.Email, Next: f.Next, Errors: errs, Error: msg}))
}

// LoginForm shows the sign-in form.
func (h *Handler) LoginForm(c echo.Context) error {
	return web.Render(c, http.StatusOK, views.LoginPage(h.web.Chrome(c, "Sign in"), views.AccountForm{Next: web.LocalPath(c.QueryParam("next"), "")}))
}

// Login checks the password and signs the shopper in on a new token.
//
// Only failures count against the limits, per (account, client address)
// and per client address: a stranger failing from other addresses can
// never keep the owner out, and an owner who signs in often is never
// refused. Each attempt takes a slot before the password is checked (so
// concurrent guesses cannot overshoot the limit) and a success gives both
// slots back.
func (h *Handler) Login(c echo.Context) error {
	f, err := readAccountForm(c)
	if err != nil {
		return err
	}
	ip := c.RealIP()
	byAddr, err := h.web.Admit(c, keys.RateLoginAddr, ip, h.rates.LoginAddr, "Too many failed sign-ins from your address.")
	if err != nil {
		return err
	}
	byPair, err := h.web.Admit(c, keys.RateLogin, limitSubject(f.Username)+"|"+ip, h.rates.Login, "Too many failed sign-ins for this account.")
	if err != nil {
		// Refused before the password was checked: no failure to count.
		if rerr := h.web.Refund(c, byAddr); rerr != nil {
			return rerr
		}
		return err
	}
	if f.Username == "" || f.Password == "" || len(f.Password) > 1024 {
		return h.loginError(c, f, "Enter your username and password.")
	}
	u, err := h.accounts.Authenticate(c.Request().Context(), f.Username, f.Password)
	if errors.Is(err, sessions.ErrBadCredentials) {
		return h.loginError(c, f, "Wrong username or password.")
	}
	if errors.Is(err, platform.ErrBanned) {
		return h.loginBanned(c, f)
	}
	if err != nil {
		return err
	}
	for _, a := range []ratelimit.Admission{byAddr, byPair} {
		if err := h.web.Refund(c, a); err != nil {
			return err
		}
	}
	t, err := h.twoFactor.TwoFactor(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	if t.Enabled {
		return h.startSecondStep(c, u, f.Next)
	}
	return h.finishSignIn(c, u, f.Next)
}

// finishSignIn signs u in once every step passed and sends them on: a
// staff role that needs two-factor sign-in and has not set it up goes to
// its set-up first, an account made before addresses existed is asked for
// one, once.
func (h *Handler) finishSignIn(c echo.Context, u sessions.User, next string) error {
	note, err := h.signIn(c, u)
	if errors.Is(err, platform.ErrBanned) {
		return h.loginBanned(c, accountForm{Username: u.Username, Next: next})
	} else if err != nil {
		return err
	}
	h.web.SetFlash(c, "Signed in as "+u.Username+"."+note)
	if h.web.TwoFactorRequired(string(u.Role)) {
		t, err := h.twoFactor.TwoFactor(c.Request().Context(), u.ID)
		if err != nil {
			return err
		}
		if !t.Enabled {
			h.web.SetFlash(c, "Signed in as "+u.Username+". Your role needs two-factor sign-in: turn it on to reach the admin pages."+note)
			return web.Redirect(c, "/account/two-factor")
		}
	}
	if !u.IsAdmin {
		// An account made before addresses existed is asked for one, once.
		ask, err := h.accounts.AskEmailOnce(c.Request().Context(), u.ID)
		if err != nil {
			return err
		}
		if ask {
			return web.Redirect(c, "/account/email?first=1&next="+url.QueryEscape(next))
		}
	}
	return web.Redirect(c, next)
}

func (h *Handler) loginError(c echo.Context, f accountForm, msg string) error {
	return web.Render(c, http.StatusUnprocessableEntity, views.LoginPage(h.web.Chrome(c, "Sign in"),
		views.AccountForm{Username: f.Username, Next: f.Next, Error: msg}))
}

// loginBanned refuses a banned account's sign-in (403) with a clear message.
func (h *Handler) loginBanned(c echo.Context, f accountForm) error {
	return web.Render(c, http.StatusForbidden, views.LoginPage(h.web.Chrome(c, "Sign in"),
		views.AccountForm{Username: f.Username, Next: f.Next, Error: web.BannedMessage}))
}

// signIn rotates the token: a new session for the user carries the
// recently viewed items over, merges the guest cart into the account's
// cart, and the old token stops working. It returns a note for the flash
// when some guest cart lines did not fit. The
// ban is checked again once the session exists: a ban that landed since
// the password check either saw this session (and ended it) or is seen
// here, and the new session is ended (ErrBanned).
func (h *Handler) signIn(c echo.Context, u sessions.User) (string, error) {
	s := web.SessionOf(c)
	token := h.web.NewToken()
	ctx := c.Request().Context()
	dropped, err := h.accounts.SignIn(ctx, s.Token, token, u.ID)
	if err != nil {
		return "", err
	}
	// The device only names the session on the account page: signing in
	// does not fail for it.
	if err := h.accounts.NoteDevice(ctx, u.ID, token, sessions.Device(c.Request().UserAgent())); err != nil {
		h.web.Log().Warn("sign in: device not noted", "user_id", u.ID, "err", err)
	}
	if now, err := h.accounts.UserByID(ctx, u.ID); err != nil || now.Banned {
		_ = h.accounts.EndSession(context.WithoutCancel(ctx), token)
		if err != nil {
			return "", err
		}
		return "", platform.ErrBanned
	}
	if err := h.web.SetSignedIn(c, s, token, u); err != nil {
		return "", err
	}
	if dropped > 0 {
		return fmt.Sprintf(" Your cart holds at most %d different items: %d from this visit did not fit.", cart.MaxLines, dropped), nil
	}
	return "", nil
}

// Logout ends the server-side session and clears both cookies.
func (h *Handler) Logout(c echo.Context) error {
	s := web.SessionOf(c)
	if s.Token != "" {
		if err := h.accounts.EndSession(c.Request().Context(), s.Token); err != nil {
			return err
		}
	}
	h.web.Anonymous(c, s, true)
	h.web.SetFlash(c, "You are signed out.")
	return web.Redirect(c, "/")
}
