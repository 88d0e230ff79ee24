package apptest_test

import (
	"testing"

	"storefront/handlers/apptest"
	"storefront/store/storetest"
)

// TestBrowserForgottenPassword: a shopper registers, confirms the address
// with the link emailed to it, forgets the password, asks for a link, sets
// a new password from it and signs in with it; the old password no longer
// works. The links are read as they reached the SMTP server (the outbox
// never shows a working one).
func TestBrowserForgottenPassword(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	inbox := apptest.StartSMTP(t)
	app := startBrowserApp(t, map[string]string{"SMTP_URL": inbox.URL()})
	shopper := b.tab(app)

	// latestLink waits for the newest message to the shopper with
	// subject to arrive and returns its link's path.
	latestLink := func(subject string) string {
		t.Helper()
		var path string
		storetest.Eventually(t, func() bool {
			path, _ = inbox.Link("forgetful@example.com", subject)
			return path != ""
		}, "the message "+subject+" delivered")
		return path
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
