package apptest_test

import (
	"slices"
	"testing"

	"storefront/handlers/apptest"
)

// TestE2ESessions registers, views items, finds them in recently viewed,
// signs out and signs back in.
func TestE2ESessions(t *testing.T) {
	apptest.Parallel(t)
	tb := newBrowser(t).tab(startBrowserApp(t, nil))
	tb.navigate("/register")
	tb.screenshot("register")
	tb.fill("#username", "x")
	tb.fill("#password", "short")
	tb.click(`form[action="/register"] button[type="submit"]`)
	tb.waitFor(`[data-testid="field-error"]`)
	if n := tb.count(`[data-testid="field-error"]`); n != 3 {
		t.Errorf("%d field errors, want 3 (name, password, email)", n)
	}
	tb.screenshot("register-errors")
	tb.fill("#username", "browser_user")
	tb.fill("#password", "correct horse battery")
	tb.fill("#email", "browser_user@example.com")
	tb.click(`form[action="/register"] button[type="submit"]`)
	tb.waitFor(`[data-testid="user-name"]`)
	if got := tb.text(`[data-testid="user-name"]`); got != "browser_user" {
		t.Fatalf("signed in as %q", got)
	}
	if got := tb.text(`[data-testid="flash"]`); got == "" {
		t.Error("no welcome message")
	}

	for _, id := range []string{"5", "6", "7", "5"} {
		tb.navigate("/items/" + id)
		tb.waitFor(`[data-testid="item"]`)
	}
	want := []string{"5", "7", "6"}
	// The item page lists the others, not the item the visitor is on.
	if got := tb.attrs(`[data-testid="recently-viewed"] [data-item-id]`, "data-item-id"); !slices.Equal(got, want[1:]) {
		t.Errorf("item page recently viewed %v, want %v", got, want[1:])
	}
	tb.navigate("/")
	if got := tb.attrs(`[data-testid="recently-viewed"] [data-item-id]`, "data-item-id"); !slices.Equal(got, want) {
		t.Fatalf("home recently viewed %v, want %v", got, want)
	}
	tb.screenshot("home-signed-in")
	// The list links to the items.
	tb.click(`[data-testid="recently-viewed"] [data-item-id="7"] a`)
	tb.waitFor(`[data-testid="item"][data-item-id="7"]`)

	tb.click(`form[action="/logout"] button`)
	tb.waitFor(`a[href="/login"]`)
	if tb.count(`[data-testid="user-name"]`) != 0 {
		t.Fatal("still signed in after signing out")
	}
	if n := tb.count(`[data-testid="recently-viewed"] [data-item-id]`); n != 0 {
		t.Errorf("%d recently viewed items after signing out", n)
	}

	tb.click(`a[href="/login"]`)
	tb.waitFor(`form[action="/login"]`)
	tb.fill("#username", "Browser_User")
	tb.fill("#password", "correct horse battery")
	tb.click(`form[action="/login"] button[type="submit"]`)
	tb.waitFor(`[data-testid="user-name"]`)
	if got := tb.text(`[data-testid="user-name"]`); got != "browser_user" {
		t.Fatalf("signed back in as %q", got)
	}
	tb.navigate("/items/9")
	tb.navigate("/")
	if got := tb.attrs(`[data-testid="recently-viewed"] [data-item-id]`, "data-item-id"); !slices.Equal(got, []string{"9"}) {
		t.Errorf("recently viewed after signing back in: %v", got)
	}
}
