package handlers_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestPageCopyAndLabels: the home page's empty most-liked hint asks only
// signed-out visitors to sign in; an unknown page says it once, without
// Echo's status text; the registration inputs are described by their
// hints; the admin's catalog search is a search landmark of its own name.
func TestPageCopyAndLabels(t *testing.T) {
	a := newApp(t, nil, nil)
	const signInHint, likeHint = "Sign in and like items to put them here.", "Like items to put them here."

	guest := a.client()
	home := guest.MustGet("/", http.StatusOK).Body
	if !strings.Contains(home, signInHint) {
		t.Errorf("signed out, the home page does not say %q", signInHint)
	}
	missing := guest.Get("/no-such-page")
	if missing.Status != http.StatusNotFound || strings.Contains(missing.Body, "<p>Not Found</p>") || !strings.Contains(missing.Body, "We could not find") {
		t.Errorf("404 page: %d, want the friendly message without Echo's status text", missing.Status)
	}
	register := guest.MustGet("/register", http.StatusOK).Body
	for _, input := range []string{"username", "password"} {
		re := regexp.MustCompile(`<input id="` + input + `"[^>]*aria-describedby="` + input + `-hint"`)
		if !re.MatchString(register) || !strings.Contains(register, `id="`+input+`-hint"`) {
			t.Errorf("/register: #%s is not described by #%s-hint", input, input)
		}
	}

	shopper := a.client()
	shopper.Register("liker")
	home = shopper.MustGet("/", http.StatusOK).Body
	if strings.Contains(home, signInHint) || !strings.Contains(home, likeHint) {
		t.Errorf("signed in, the home page's most-liked hint is not %q", likeHint)
	}

	admin := a.client()
	admin.signInAdmin()
	items := admin.MustGet("/admin/items", http.StatusOK).Body
	if !strings.Contains(items, `role="search" aria-label="Search the catalog"`) {
		t.Error("/admin/items: the catalog search landmark has no name of its own")
	}
}
