package account

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/png"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"storefront/handlers/web"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/ratelimit"
	"storefront/store/sessions"
	"storefront/views"
)

// TwoFactor is what the two-factor pages ask of the sessions domain.
type TwoFactor interface {
	TwoFactor(ctx context.Context, userID int64) (sessions.TwoFactor, error)
	EnableTwoFactor(ctx context.Context, userID int64, sealed string, codes []string) error
	DisableTwoFactor(ctx context.Context, userID int64) error
	UseRecoveryCode(ctx context.Context, userID int64, code string) (bool, error)
	CheckTOTP(ctx context.Context, userID int64, secret, code string) (bool, error)
	SaveTwoFactorSetup(ctx context.Context, userID int64, sealed string, ttl time.Duration) error
	TwoFactorSetup(ctx context.Context, userID int64) (string, error)
	DropTwoFactorSetup(ctx context.Context, userID int64) error
	StartPendingSignIn(ctx context.Context, handle string, userID int64, next string, ttl time.Duration) error
	PendingSignIn(ctx context.Context, handle string) (int64, string, error)
	EndPendingSignIn(ctx context.Context, handle string) (bool, error)
}

// setupTTL is how long a set-up in progress (the secret shown, the
// recovery codes shown) waits for its confirming code: reloading the page
// meanwhile shows the same secret, so an app that scanned it still works.
const setupTTL = 15 * time.Minute

// recoveryCodes is how many recovery codes a set-up makes.
const recoveryCodes = 10

// setup is a set-up in progress, sealed in Redis until confirmed.
type setup struct {
	URL   string   `json:"url"`
	Codes []string `json:"codes"`
}

// newRecoveryCode is 10 random base32 characters (50 bits), shown as
// two groups of five.
func newRecoveryCode() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	var sb strings.Builder
	for i, x := range b {
		if i == 5 {
			sb.WriteByte('-')
		}
		sb.WriteByte(alphabet[int(x)%len(alphabet)])
	}
	return sb.String()
}

// loadSetup reads the account's set-up in progress, or starts a new one.
func (h *Handler) loadSetup(c echo.Context, u sessions.User) (setup, error) {
	ctx := c.Request().Context()
	if sealed, err := h.twoFactor.TwoFactorSetup(ctx, u.ID); err != nil {
		return setup{}, err
	} else if sealed != "" {
		var st setup
		if plain, err := h.web.Open(sealed); err == nil && json.Unmarshal([]byte(plain), &st) == nil && st.URL != "" {
			return st, nil
		}
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: h.web.Shop().Name, AccountName: u.Username,
		Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return setup{}, err
	}
	st := setup{URL: key.URL()}
	for range recoveryCodes {
		st.Codes = append(st.Codes, newRecoveryCode())
	}
	raw, _ := json.Marshal(st)
	sealed, err := h.web.Seal(string(raw))
	if err != nil {
		return setup{}, err
	}
	return st, h.twoFactor.SaveTwoFactorSetup(ctx, u.ID, sealed, setupTTL)
}

// setupView is the page model of a set-up in progress.
func setupView(st setup) (views.TwoFactorSetup, error) {
	key, err := otp.NewKeyFromURL(st.URL)
	if err != nil {
		return views.TwoFactorSetup{}, err
	}
	img, err := key.Image(200, 200)
	if err != nil {
		return views.TwoFactorSetup{}, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return views.TwoFactorSetup{}, err
	}
	return views.TwoFactorSetup{Secret: key.Secret(), Codes: st.Codes,
		QR: templ.SafeURL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))}, nil
}

// TwoFactorForm shows the account's two-factor page: the set-up, or the
// form that turns it off.
func (h *Handler) TwoFactorForm(c echo.Context) error {
	return h.twoFactorPage(c, http.StatusOK, "")
}

func (h *Handler) twoFactorPage(c echo.Context, status int, msg string) error {
	web.NoStore(c)
	ctx := c.Request().Context()
	u, err := h.accounts.UserByID(ctx, web.SessionOf(c).UserID)
	if err != nil {
		return err
	}
	t, err := h.twoFactor.TwoFactor(ctx, u.ID)
	if err != nil {
		return err
	}
	var v views.TwoFactorSetup
	if t.Enabled {
		v = views.TwoFactorSetup{Enabled: true, RecoveryLeft: t.RecoveryLeft}
	} else {
		st, err := h.loadSetup(c, u)
		if err != nil {
			return err
		}
		if v, err = setupView(st); err != nil {
			return err
		}
	}
	v.Required, v.Error = h.web.TwoFactorRequired(string(u.Role)), msg
	return web.Render(c, status, views.TwoFactorPage(h.web.Chrome(c, "Two-factor sign-in"), v))
}

// SaveTwoFactor turns two-factor sign-in on (the set-up's code) or off
// (a code from the app or a recovery code). Wrong codes count toward the
// sign-in limits: a stolen session cannot guess its way to turning it off.
func (h *Handler) SaveTwoFactor(c echo.Context) error {
	ctx := c.Request().Context()
	u, err := h.accounts.UserByID(ctx, web.SessionOf(c).UserID)
	if err != nil {
		return err
	}
	code := strings.TrimSpace(c.FormValue("code"))
	t, err := h.twoFactor.TwoFactor(ctx, u.ID)
	if err != nil {
		return err
	}
	if c.FormValue("action") == "disable" {
		if !t.Enabled {
			h.web.SetFlash(c, "Two-factor sign-in is already off.")
			return web.Redirect(c, "/account/two-factor")
		}
		ok, err := h.checkCode(c, u, t, code)
		if err != nil || !ok {
			return errOr(err, h.twoFactorPage(c, http.StatusUnprocessableEntity, "That code is not right (or was used already). Try the next code your app shows."))
		}
		if err := h.twoFactor.DisableTwoFactor(ctx, u.ID); err != nil {
			return err
		}
		h.web.Log().Info("two-factor off", "user_id", u.ID)
		h.web.SetFlash(c, "Two-factor sign-in is off.")
		return web.Redirect(c, "/account")
	}
	if t.Enabled {
		h.web.SetFlash(c, "Two-factor sign-in is already on.")
		return web.Redirect(c, "/account/two-factor")
	}
	st, err := h.loadSetup(c, u)
	if err != nil {
		return err
	}
	key, err := otp.NewKeyFromURL(st.URL)
	if err != nil {
		return err
	}
	ok, err := h.limitedCheck(c, u, func() (bool, error) { return h.twoFactor.CheckTOTP(ctx, u.ID, key.Secret(), code) })
	if err != nil || !ok {
		return errOr(err, h.twoFactorPage(c, http.StatusUnprocessableEntity, "That code is not right. Type the 6 digits your app shows now."))
	}
	sealed, err := h.web.Seal(key.Secret())
	if err != nil {
		return err
	}
	if err := h.twoFactor.EnableTwoFactor(ctx, u.ID, sealed, st.Codes); err != nil && !errors.Is(err, platform.ErrConflict) {
		return err
	}
	if err := h.twoFactor.DropTwoFactorSetup(ctx, u.ID); err != nil {
		return err
	}
	h.web.Log().Info("two-factor on", "user_id", u.ID)
	h.web.SetFlash(c, "Two-factor sign-in is on. Keep your recovery codes safe.")
	if u.IsAdmin {
		return web.Redirect(c, "/admin")
	}
	return web.Redirect(c, "/account")
}

// errOr is err when there is one, else page.
func errOr(err, page error) error {
	if err != nil {
		return err
	}
	return page
}

// limitedCheck runs check under the sign-in limits: each try takes a slot
// per client address and per (account, address) first, so concurrent
// guesses cannot overshoot, and a right code gives both back.
func (h *Handler) limitedCheck(c echo.Context, u sessions.User, check func() (bool, error)) (bool, error) {
	ip := c.RealIP()
	byAddr, err := h.web.Admit(c, keys.RateLoginAddr, ip, h.rates.LoginAddr, "Too many failed sign-ins from your address.")
	if err != nil {
		return false, err
	}
	byPair, err := h.web.Admit(c, keys.RateLogin, limitSubject(u.Username)+"|"+ip, h.rates.Login, "Too many failed sign-ins for this account.")
	if err != nil {
		return false, errors.Join(err, h.web.Refund(c, byAddr))
	}
	ok, err := check()
	if err != nil || !ok {
		return false, err
	}
	for _, a := range []ratelimit.Admission{byAddr, byPair} {
		if err := h.web.Refund(c, a); err != nil {
			return false, err
		}
	}
	return true, nil
}

// checkCode checks a code from the app (6 digits, each time step once)
// or a recovery code (each once ever) of an account with two-factor on.
func (h *Handler) checkCode(c echo.Context, u sessions.User, t sessions.TwoFactor, code string) (bool, error) {
	ctx := c.Request().Context()
	return h.limitedCheck(c, u, func() (bool, error) {
		if code == "" {
			return false, nil
		}
		if len(code) == 6 && strings.Trim(code, "0123456789") == "" {
			secret, err := h.web.Open(t.Sealed)
			if err != nil {
				h.web.Log().Error("two-factor secret unreadable with the cookie keys in force", "user_id", u.ID)
				return false, nil
			}
			return h.twoFactor.CheckTOTP(ctx, u.ID, secret, code)
		}
		return h.twoFactor.UseRecoveryCode(ctx, u.ID, code)
	})
}

// startSecondStep parks a sign-in whose password passed until its code
// does: the visitor stays signed out, and the pending state is bound to
// this browser by a cookie holding its random handle.
func (h *Handler) startSecondStep(c echo.Context, u sessions.User, next string) error {
	handle := web.NewHandle()
	if err := h.twoFactor.StartPendingSignIn(c.Request().Context(), handle, u.ID, next, web.PendingSignInTTL); err != nil {
		return err
	}
	h.web.SetPendingSignIn(c, handle)
	return web.Redirect(c, "/login/two-factor")
}

// pending reads the browser's pending sign-in.
func (h *Handler) pending(c echo.Context) (sessions.User, string, string, error) {
	handle := web.PendingSignIn(c)
	if handle == "" {
		return sessions.User{}, "", "", platform.ErrNotFound
	}
	id, next, err := h.twoFactor.PendingSignIn(c.Request().Context(), handle)
	if err != nil {
		return sessions.User{}, "", "", err
	}
	u, err := h.accounts.UserByID(c.Request().Context(), id)
	return u, next, handle, err
}

// signInAgain sends a browser without a live pending sign-in back to the
// password step.
func (h *Handler) signInAgain(c echo.Context) error {
	h.web.ClearPendingSignIn(c)
	h.web.SetFlash(c, "Your sign-in timed out: enter your password again.")
	return web.Redirect(c, "/login")
}

// SecondStepForm shows the code form of a pending sign-in.
func (h *Handler) SecondStepForm(c echo.Context) error {
	web.NoStore(c)
	if _, _, _, err := h.pending(c); errors.Is(err, platform.ErrNotFound) {
		return h.signInAgain(c)
	} else if err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, views.TwoFactorLoginPage(h.web.Chrome(c, "Your sign-in code"), views.TwoFactorLogin{}))
}

// SecondStep checks the code of a pending sign-in and, when it is right,
// signs the account in.
func (h *Handler) SecondStep(c echo.Context) error {
	web.NoStore(c)
	u, next, handle, err := h.pending(c)
	if errors.Is(err, platform.ErrNotFound) {
		return h.signInAgain(c)
	} else if err != nil {
		return err
	}
	ctx := c.Request().Context()
	t, err := h.twoFactor.TwoFactor(ctx, u.ID)
	if err != nil {
		return err
	}
	if !t.Enabled {
		// Turned off since the password step: the password was enough.
		ok, err := h.twoFactor.EndPendingSignIn(ctx, handle)
		if err != nil || !ok {
			return errOr(err, h.signInAgain(c))
		}
		h.web.ClearPendingSignIn(c)
		return h.finishSignIn(c, u, next)
	}
	ok, err := h.checkCode(c, u, t, strings.TrimSpace(c.FormValue("code")))
	if err != nil {
		return err
	}
	if !ok {
		return web.Render(c, http.StatusUnprocessableEntity, views.TwoFactorLoginPage(h.web.Chrome(c, "Your sign-in code"),
			views.TwoFactorLogin{Error: "That code is not right (or was used already). Type the code your app shows now, or a recovery code."}))
	}
	// Of two second steps racing on one pending sign-in, one signs in.
	if ok, err := h.twoFactor.EndPendingSignIn(ctx, handle); err != nil || !ok {
		return errOr(err, h.signInAgain(c))
	}
	h.web.ClearPendingSignIn(c)
	return h.finishSignIn(c, u, next)
}
