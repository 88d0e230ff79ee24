package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/store"
	"storefront/views"
)

// accountStore is the part of the store that accounts use.
type accountStore interface {
	CreateUser(ctx context.Context, username, password string) (store.User, error)
	Authenticate(ctx context.Context, username, password string) (store.User, error)
}

// rateStore is the shared sliding-window limiter.
type rateStore interface {
	Allow(ctx context.Context, name, subject string, limit int, window time.Duration) (bool, time.Duration, error)
}

var usernameRE = regexp.MustCompile(`^[A-Za-z0-9_]{3,32}$`)

// accountForm is the posted username and password.
type accountForm struct {
	Username string `form:"username"`
	Password string `form:"password"`
	Next     string `form:"next"`
}

func (f *accountForm) validate() map[string]string {
	errs := map[string]string{}
	if !usernameRE.MatchString(f.Username) {
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
		return f, badRequest("The form could not be read.")
	}
	f.Username = strings.TrimSpace(f.Username)
	f.Next = localPath(f.Next, "/")
	return f, nil
}

// limit applies a rate limit and returns a rateLimited error when over it.
func (h *Handler) limit(c echo.Context, name, subject string, r Rate, msg string) error {
	ok, wait, err := h.store.Allow(c.Request().Context(), name, subject, r.N, r.Per)
	if err != nil {
		return err
	}
	if !ok {
		secs := int((wait + time.Second - 1) / time.Second)
		return &rateLimited{retryAfter: max(secs, 1), msg: fmt.Sprintf("%s Try again in %s.", msg, humanWait(secs))}
	}
	return nil
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

func humanWait(secs int) string {
	if secs < 90 {
		return fmt.Sprintf("%d seconds", max(secs, 1))
	}
	return fmt.Sprintf("%d minutes", (secs+59)/60)
}

// RegisterForm shows the registration form.
func (h *Handler) RegisterForm(c echo.Context) error {
	noStore(c)
	return render(c, http.StatusOK, views.RegisterPage(h.chrome(c, "Create an account"), views.AccountForm{Next: localPath(c.QueryParam("next"), "")}))
}

// Register creates an account and signs it in.
func (h *Handler) Register(c echo.Context) error {
	f, err := readAccountForm(c)
	if err != nil {
		return err
	}
	if err := h.limit(c, "register", c.RealIP(), h.cfg.Rates.Register, "Too many new accounts from your address."); err != nil {
		return err
	}
	if errs := f.validate(); len(errs) > 0 {
		return h.registerError(c, f, errs, "")
	}
	u, err := h.store.CreateUser(c.Request().Context(), f.Username, f.Password)
	if errors.Is(err, store.ErrConflict) {
		return h.registerError(c, f, map[string]string{"username": "That username is taken."}, "")
	}
	if err != nil {
		return err
	}
	if err := h.signIn(c, u); err != nil {
		return err
	}
	h.setFlash(c, "Welcome, "+u.Username+"! Your account is ready.")
	return redirect(c, f.Next)
}

func (h *Handler) registerError(c echo.Context, f accountForm, errs map[string]string, msg string) error {
	noStore(c)
	return render(c, http.StatusUnprocessableEntity, views.RegisterPage(h.chrome(c, "Create an account"),
		views.AccountForm{Username: f.Username, Next: f.Next, Errors: errs, Error: msg}))
}

// LoginForm shows the sign-in form.
func (h *Handler) LoginForm(c echo.Context) error {
	noStore(c)
	return render(c, http.StatusOK, views.LoginPage(h.chrome(c, "Sign in"), views.AccountForm{Next: localPath(c.QueryParam("next"), "")}))
}

// Login checks the password and signs the shopper in on a new token.
func (h *Handler) Login(c echo.Context) error {
	f, err := readAccountForm(c)
	if err != nil {
		return err
	}
	if err := h.limit(c, "login-ip", c.RealIP(), h.cfg.Rates.Login, "Too many sign-in attempts."); err != nil {
		return err
	}
	if err := h.limit(c, "login-user", limitSubject(f.Username), h.cfg.Rates.Login, "Too many sign-in attempts for this account."); err != nil {
		return err
	}
	if f.Username == "" || f.Password == "" || len(f.Password) > 1024 {
		return h.loginError(c, f, "Enter your username and password.")
	}
	u, err := h.store.Authenticate(c.Request().Context(), f.Username, f.Password)
	if errors.Is(err, store.ErrBadCredentials) {
		return h.loginError(c, f, "Wrong username or password.")
	}
	if err != nil {
		return err
	}
	if err := h.signIn(c, u); err != nil {
		return err
	}
	h.setFlash(c, "Signed in as "+u.Username+".")
	return redirect(c, f.Next)
}

func (h *Handler) loginError(c echo.Context, f accountForm, msg string) error {
	noStore(c)
	return render(c, http.StatusUnprocessableEntity, views.LoginPage(h.chrome(c, "Sign in"),
		views.AccountForm{Username: f.Username, Next: f.Next, Error: msg}))
}

// signIn rotates the token: a new session for the user carries the cart
// and recently viewed items over, and the old token stops working.
func (h *Handler) signIn(c echo.Context, u store.User) error {
	s := session(c)
	token := h.newToken()
	if err := h.store.SignIn(c.Request().Context(), s.Token, token, u.ID); err != nil {
		return err
	}
	claim := &userClaim{ID: u.ID, Name: u.Username, Admin: u.IsAdmin, LoginAt: time.Now().Unix()}
	if err := h.setSessionCookies(c, token, claim); err != nil {
		return err
	}
	s.Token, s.UserID, s.UserName, s.IsAdmin = token, u.ID, u.Username, u.IsAdmin
	return nil
}

// Logout ends the server-side session and clears both cookies.
func (h *Handler) Logout(c echo.Context) error {
	s := session(c)
	if s.Token != "" {
		if err := h.store.EndSession(c.Request().Context(), s.Token); err != nil {
			return err
		}
	}
	h.clearCookie(c, tokenCookie)
	h.clearCookie(c, userCookie)
	h.setFlash(c, "You are signed out.")
	return redirect(c, "/")
}
