package handlers_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"storefront/handlers/apptest"
	"storefront/store/mail"
	"storefront/store/storetest"
	"storefront/wiring"
)

// newMailingApp is newApp delivering its email to in, with the outbox's
// worker running until the test ends.
func newMailingApp(t *testing.T, in *apptest.SMTPInbox) *app {
	t.Helper()
	cfg, err := mail.ParseSMTPURL(in.URL())
	if err != nil {
		t.Fatal(err)
	}
	a := newApp(t, func(o *wiring.Options) {
		o.Mail = mail.Options{SMTP: cfg, Poll: 20 * time.Millisecond, RetryBase: 50 * time.Millisecond}
	}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.store.Mail.Worker().Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return a
}

// deliveredLink waits for the outbox to send its newest message of kind
// to address and returns the token of the link the server received in it.
func (a *app) deliveredLink(in *apptest.SMTPInbox, to, kind, subject string) string {
	a.t.Helper()
	storetest.Eventually(a.t, func() bool {
		ms := a.mailsTo(to, kind)
		return len(ms) > 0 && ms[0].Status == mail.StatusSent
	}, kind+" sent to "+to)
	_, token := in.Link(to, subject)
	if token == "" {
		a.t.Fatalf("no %q with a link reached the server for %s", subject, to)
	}
	return token
}

// TestOutboxGivesNoWorkingLink: an admin who reads every page of the
// outbox and every stored outbox row, and tries each string there that
// looks like a link's token (or could be made one with any link's number)
// on the reset and confirmation forms, is refused every time; the
// messages that reached the SMTP server carry links that work.
func TestOutboxGivesNoWorkingLink(t *testing.T) {
	in := apptest.StartSMTP(t)
	a := newMailingApp(t, in)
	victim := a.client()
	victim.Register("victim")
	verify := a.deliveredLink(in, "victim@example.com", "email-verify", "Confirm your email address")
	if res := victim.Post("/account/email/verify", url.Values{"token": {verify}}); res.Status != http.StatusSeeOther {
		t.Fatalf("the delivered confirmation link: %d", res.Status)
	}
	a.client().MustPost("/password/forgot", url.Values{"email": {"victim@example.com"}}, http.StatusOK)
	reset := a.deliveredLink(in, "victim@example.com", "password-reset", "Reset your password")

	// What the admin can read: the outbox's pages and its stored rows.
	admin := a.client()
	admin.signInAdmin()
	var seen []string
	seen = append(seen, admin.MustGet("/admin/outbox", http.StatusOK).Body)
	for _, e := range a.outbox() {
		seen = append(seen, admin.MustGet("/admin/outbox/"+itoa(e.ID), http.StatusOK).Body, fmt.Sprintf("%+v", e))
	}
	rows, err := a.store.DB().QueryContext(t.Context(), `SELECT * FROM outbox`)
	if err != nil {
		t.Fatal(err)
	}
	seen = append(seen, dumpRows(t, rows)...)
	var linkIDs []string
	if err := func() error {
		rs, err := a.store.DB().QueryContext(t.Context(), `SELECT id FROM account_tokens`)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var id int64
			if err := rs.Scan(&id); err != nil {
				return err
			}
			linkIDs = append(linkIDs, itoa(id))
		}
		return rs.Err()
	}(); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(seen, "\n")
	tries := map[string]bool{}
	for _, tok := range regexp.MustCompile(`[0-9]+\.[A-Za-z0-9_-]{20,}`).FindAllString(all, -1) {
		tries[tok] = true
	}
	for _, secret := range regexp.MustCompile(`[A-Za-z0-9_-]{43}`).FindAllString(all, -1) {
		for _, id := range linkIDs {
			tries[id+"."+secret] = true
		}
	}
	for _, m := range regexp.MustCompile(`token=([^"&\s<]+)`).FindAllStringSubmatch(all, -1) {
		tries[m[1]] = true
	}
	if len(tries) == 0 {
		t.Fatal("nothing to try: the test would prove nothing")
	}
	thief := a.client()
	for tok := range tries {
		if res := thief.Post("/password/reset", url.Values{"token": {tok}, "password": {"the thief's password"}}); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("reset with %q from the outbox: %d", tok, res.Status)
		}
	}
	if res := a.client().Post("/login", url.Values{"username": {"victim"}, "password": {"the thief's password"}}); res.Status == http.StatusSeeOther {
		t.Fatal("the admin took the account over from the outbox")
	}
	if !strings.Contains(all, mail.LinkSecret) {
		t.Fatal("the outbox does not show where the links go")
	}

	// The link the victim received works.
	a.client().MustPost("/password/reset", url.Values{"token": {reset}, "password": {"the victim's new password"}}, http.StatusSeeOther)
	a.client().Login("victim", "the victim's new password")
	if res := a.client().Post("/login", url.Values{"username": {"victim"}, "password": {apptest.Password}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("the old password after the reset: %d", res.Status)
	}
}

// dumpRows renders every row of rows, each column as text.
func dumpRows(t *testing.T, rows *sql.Rows) []string {
	t.Helper()
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			fmt.Fprintf(&b, "%s=%v\n", cols[i], v)
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
