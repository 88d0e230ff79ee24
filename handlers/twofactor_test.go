package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/ratelimit"
	"storefront/store/storetest"
)

// code is the authenticator's code for secret at the store's time.
func (a *app) code(t *testing.T, secret string) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, time.Now().Add(a.shift))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// nextStep moves the store's clock to the next TOTP time step, so the
// next code is a fresh one.
func (a *app) nextStep() { a.shiftClock(30 * time.Second) }

// setUpTwoFactor turns two-factor on for the signed-in client and returns
// its secret and recovery codes.
func setUpTwoFactor(t *testing.T, a *app, c *client) (string, []string) {
	t.Helper()
	page := c.MustGet("/account/two-factor", http.StatusOK).Body
	secret := textOf(page, "totp-secret")
	codes := recoveryCodes(page)
	if secret == "" || len(codes) < 8 || !strings.Contains(page, `src="data:image/png;base64,`) || len(testids(page, "totp-form", "")) != 1 {
		t.Fatalf("set-up page: secret %q, %d recovery codes, QR code %v", secret, len(codes), strings.Contains(page, "data:image/png"))
	}
	// A wrong code changes nothing; the page keeps the same secret.
	res := c.Post("/account/two-factor", url.Values{"action": {"enable"}, "code": {"000000"}})
	if res.Status != http.StatusUnprocessableEntity || textOf(res.Body, "totp-secret") != secret {
		t.Fatalf("wrong set-up code: %d, secret %q want %q", res.Status, textOf(res.Body, "totp-secret"), secret)
	}
	c.MustPost("/account/two-factor", url.Values{"action": {"enable"}, "code": {a.code(t, secret)}}, http.StatusSeeOther)
	after := c.MustGet("/account/two-factor", http.StatusOK).Body
	if len(recoveryCodes(after)) != 0 || textOf(after, "totp-secret") != "" || !strings.Contains(after, `data-testid="two-factor-on"`) {
		t.Fatal("the secret or the recovery codes are shown again once two-factor is on")
	}
	return secret, codes
}

func recoveryCodes(page string) []string {
	var out []string
	for _, part := range strings.Split(page, `data-testid="recovery-code">`)[1:] {
		out = append(out, part[:strings.Index(part, "<")])
	}
	return out
}

// signInWithPassword does the password step and checks it leads to the
// code step, the browser not yet signed in.
func signInWithPassword(t *testing.T, c *client, name, password string) {
	t.Helper()
	res := c.Post("/login", url.Values{"username": {name}, "password": {password}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/login/two-factor" {
		t.Fatalf("password step: %d to %q", res.Status, res.Header.Get("Location"))
	}
	if who := signedInAs(c.Get("/").Body); who != "" {
		t.Fatalf("signed in as %q before the code", who)
	}
	if res := c.Get("/account"); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("/account before the code: %d %q", res.Status, res.Header.Get("Location"))
	}
	c.MustGet("/login/two-factor", http.StatusOK)
}

func TestTwoFactorForStaffAndMembers(t *testing.T) {
	a := newApp(t, nil, func(cfg *handlers.Config) {
		cfg.StaffTwoFactor = []string{"owner"}
		cfg.Rates.Login = ratelimit.Rate{{N: 6, Per: time.Hour}}
	})

	// The owner's role needs it: the password leads to the set-up, and no
	// admin page opens before it is on.
	owner := a.client()
	res := owner.Post("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account/two-factor" {
		t.Fatalf("owner's sign-in: %d to %q, want the two-factor set-up", res.Status, res.Header.Get("Location"))
	}
	for _, p := range []string{"/admin", "/admin/orders", "/admin/settings"} {
		if res := owner.Get(p); res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/account/two-factor" {
			t.Fatalf("%s without two-factor: %d to %q", p, res.Status, res.Header.Get("Location"))
		}
	}
	if !strings.Contains(owner.MustGet("/account/two-factor", http.StatusOK).Body, `data-testid="two-factor-required"`) {
		t.Error("the set-up page does not say the role needs it")
	}
	secret, codes := setUpTwoFactor(t, a, owner)
	owner.MustGet("/admin", http.StatusOK)

	// A new browser: the password alone opens nothing.
	b := a.client()
	signInWithPassword(t, b, "admin", storetest.AdminPassword)
	if res := b.Get("/admin"); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("/admin before the code: %d to %q", res.Status, res.Header.Get("Location"))
	}
	// The code the set-up used is spent: the same time step is refused.
	if res := b.Post("/login/two-factor", url.Values{"code": {a.code(t, secret)}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("the set-up's code signed in again: %d", res.Status)
	}
	a.nextStep()
	fresh := a.code(t, secret)
	// Another browser without the pending cookie cannot use the step.
	stranger := a.client()
	if res := stranger.Post("/login/two-factor", url.Values{"code": {fresh}}); res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/login" {
		t.Fatalf("second step without a pending sign-in: %d to %q", res.Status, res.Header.Get("Location"))
	}
	b.MustPost("/login/two-factor", url.Values{"code": {fresh}}, http.StatusSeeOther)
	b.MustGet("/admin", http.StatusOK)
	if res := b.Get("/login/two-factor"); res.Status != http.StatusSeeOther {
		t.Fatalf("the pending sign-in outlived its code: %d", res.Status)
	}

	// A code is accepted once, on any browser.
	c := a.client()
	signInWithPassword(t, c, "admin", storetest.AdminPassword)
	if res := c.Post("/login/two-factor", url.Values{"code": {fresh}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a used code signed in again: %d", res.Status)
	}
	// A recovery code once ever, whatever its case and dashes.
	c.MustPost("/login/two-factor", url.Values{"code": {strings.ToLower(strings.ReplaceAll(codes[0], "-", ""))}}, http.StatusSeeOther)
	c.MustGet("/admin", http.StatusOK)
	d := a.client()
	signInWithPassword(t, d, "admin", storetest.AdminPassword)
	if res := d.Post("/login/two-factor", url.Values{"code": {codes[0]}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a recovery code worked twice: %d", res.Status)
	}
	d.MustPost("/login/two-factor", url.Values{"code": {codes[1]}}, http.StatusSeeOther)

	// Any member may turn it on; wrong codes count toward the sign-in
	// limit (6 failures per account and address here).
	m := a.client()
	m.Register("mona")
	mSecret, _ := setUpTwoFactor(t, a, m) // one wrong code counted
	w := a.client()
	signInWithPassword(t, w, "mona", apptest.Password)
	for i := range 5 {
		if res := w.Post("/login/two-factor", url.Values{"code": {"123456"}}); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("wrong code %d: %d", i+1, res.Status)
		}
	}
	a.nextStep()
	if res := w.Post("/login/two-factor", url.Values{"code": {a.code(t, mSecret)}}); res.Status != http.StatusTooManyRequests {
		t.Fatalf("after 6 wrong codes: %d, want 429", res.Status)
	}
	if who := signedInAs(w.Get("/").Body); who != "" {
		t.Fatalf("signed in as %q past the limit", who)
	}

	// Turning it off needs a code.
	if res := m.Post("/account/two-factor", url.Values{"action": {"disable"}, "code": {""}}); res.Status != http.StatusTooManyRequests && res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("turned off without a code: %d", res.Status)
	}
	off := a.client()
	off.Register("otto")
	oSecret, _ := setUpTwoFactor(t, a, off)
	if res := off.Post("/account/two-factor", url.Values{"action": {"disable"}, "code": {"999999"}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("turned off with a wrong code: %d", res.Status)
	}
	a.nextStep()
	off.MustPost("/account/two-factor", url.Values{"action": {"disable"}, "code": {a.code(t, oSecret)}}, http.StatusSeeOther)
	again := a.client()
	if res := again.Post("/login", url.Values{"username": {"otto"}, "password": {apptest.Password}}); res.Status != http.StatusSeeOther || res.Header.Get("Location") == "/login/two-factor" {
		t.Fatalf("sign-in after turning it off: %d to %q", res.Status, res.Header.Get("Location"))
	}
}

func TestDashboardAsksOwnerForTwoFactor(t *testing.T) {
	a := newApp(t, nil, nil) // STAFF_2FA none: the password alone signs in
	owner := a.client()
	owner.MustPost("/login", url.Values{"username": {"admin"}, "password": {storetest.AdminPassword}}, http.StatusSeeOther)
	if !strings.Contains(owner.MustGet("/admin", http.StatusOK).Body, `data-testid="two-factor-ask"`) {
		t.Fatal("the dashboard does not ask the owner to turn two-factor on")
	}
	setUpTwoFactor(t, a, owner)
	if strings.Contains(owner.MustGet("/admin", http.StatusOK).Body, `data-testid="two-factor-ask"`) {
		t.Fatal("the dashboard still asks once it is on")
	}
}
