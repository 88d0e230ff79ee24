package apptest_test

import (
	"regexp"
	"testing"

	"storefront/handlers/apptest"
)

var resetLink = regexp.MustCompile(`/(password/reset|account/email/verify)\?token=([0-9]+\.[A-Za-z0-9_-]{43})`)

// TestBrowserForgottenPassword: a shopper registers, confirms the address
// with the link the admin's outbox shows, forgets the password, asks for
// a link, sets a new password from it and signs in with it; the old
// password no longer works. The links are read as sent, from the outbox
// pages (no SMTP_URL: messages are kept there).
func TestBrowserForgottenPassword(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, nil)
	shopper := b.tab(app)
	admin := b.freshTab(t, app)
	admin.navigate("/login?next=/admin/outbox")
	admin.fill("#username", "admin")
	admin.fill("#password", app.AdminPassword)
	admin.click(`form[action="/login"] button[type=submit]`)
	admin.waitFor(`h1`)

	// latestLink opens the newest outbox message to the shopper with
	// subject and returns its link's path.
	latestLink := func(subject string) string {
		t.Helper()
		admin.navigate("/admin/outbox")
		row := `[data-testid=outbox-row][data-to="forgetful@example.com"][data-subject="` + subject + `"]`
		admin.waitFor(row)
		if st := admin.attr(row, "data-status"); st != "kept" {
			t.Fatalf("message %q is %s", subject, st)
		}
		admin.click(row + ` a`)
		admin.waitFor(`[data-testid=outbox-text]`)
		m := resetLink.FindStringSubmatch(admin.text(`[data-testid=outbox-text]`))
		if m == nil {
			t.Fatalf("no link in %q", subject)
		}
		return m[0]
	}

	shopper.navigate("/register")
	shopper.fill("#username", "forgetful")
	shopper.fill("#password", "correct horse battery")
	shopper.fill("#email", "forgetful@example.com")
	shopper.click(`form[action="/register"] button[type=submit]`)
	shopper.waitFor(`[data-testid=user-name]`)
	shopper.navigate(latestLink("Confirm your email address"))
	shopper.click(`[data-testid=verify-form] button[type=submit]`)
	shopper.waitFor(`[data-testid=account-email][data-verified=true]`)
	shopper.click(`form[action="/logout"] button`)
	shopper.waitFor(`a[href="/login"]`)

	shopper.navigate("/login")
	shopper.click(`[data-testid=forgot-link]`)
	shopper.waitFor(`[data-testid=forgot-form]`)
	shopper.fill("#email", "forgetful@example.com")
	shopper.click(`[data-testid=forgot-form] button[type=submit]`)
	shopper.waitFor(`[data-testid=forgot-sent]`)
	shopper.screenshot("forgot-sent")

	shopper.navigate(latestLink("Reset your password"))
	shopper.waitFor(`[data-testid=reset-form]`)
	shopper.fill("#password", "a brand new password")
	shopper.click(`[data-testid=reset-form] button[type=submit]`)
	shopper.waitFor(`form[action="/login"]`)
	shopper.fill("#username", "forgetful")
	shopper.fill("#password", "correct horse battery")
	shopper.click(`form[action="/login"] button[type=submit]`)
	shopper.waitFor(`[data-testid=field-error]`)
	shopper.fill("#username", "forgetful")
	shopper.fill("#password", "a brand new password")
	shopper.click(`form[action="/login"] button[type=submit]`)
	shopper.waitFor(`[data-testid=user-name]`)
	if got := shopper.text(`[data-testid=user-name]`); got != "forgetful" {
		t.Fatalf("signed in as %q", got)
	}
}
