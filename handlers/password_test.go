package handlers_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/store/ratelimit"
)

// TestChangePassword: a wrong current password or a short new one is a
// 422 and changes nothing; a change keeps this session, ends every other
// one, and only the new password signs in; the attempts are rate limited.
func TestChangePassword(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) { c.Rates.Password = ratelimit.Rate{{N: 3, Per: time.Hour}} })
	here, there := a.client(), a.client()
	here.Register("pat")
	if res := there.Post("/login", url.Values{"username": {"pat"}, "password": {"correct horse battery"}}); res.Status != http.StatusSeeOther {
		t.Fatal("second sign-in")
	}
	if res := a.client().Get("/account/password"); res.Status != http.StatusSeeOther {
		t.Errorf("anonymous form: %d", res.Status)
	}
	if res := here.Get("/account/password"); res.Status != http.StatusOK || len(testids(res.Body, "password-form", "")) != 1 {
		t.Fatalf("form: %d", res.Status)
	}
	for _, bad := range []url.Values{
		{"current": {"not my password"}, "new": {"a much better one"}},
		{"current": {"correct horse battery"}, "new": {"short"}},
	} {
		if res := here.Post("/account/password", bad); res.Status != http.StatusUnprocessableEntity || len(testids(res.Body, "field-error", "")) != 1 {
			t.Errorf("bad change %v: %d", bad, res.Status)
		}
	}
	if textOf(there.Get("/").Body, "user-name") != "pat" {
		t.Fatal("a refused change signed the other device out")
	}
	res := here.Post("/account/password", url.Values{"current": {"correct horse battery"}, "new": {"a much better one"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("change: %d", res.Status)
	}
	if got := textOf(here.Get("/").Body, "user-name"); got != "pat" {
		t.Errorf("this session ended: %q", got)
	}
	if got := textOf(there.Get("/").Body, "user-name"); got != "" {
		t.Errorf("the other device is still signed in as %q", got)
	}
	if res := a.client().Post("/login", url.Values{"username": {"pat"}, "password": {"correct horse battery"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("old password: %d", res.Status)
	}
	if res := a.client().Post("/login", url.Values{"username": {"pat"}, "password": {"a much better one"}}); res.Status != http.StatusSeeOther {
		t.Errorf("new password: %d", res.Status)
	}
	if res := here.Post("/account/password", url.Values{"current": {"x"}, "new": {"y"}}); res.Status != http.StatusTooManyRequests {
		t.Errorf("fourth attempt: %d, want 429", res.Status)
	}
}
