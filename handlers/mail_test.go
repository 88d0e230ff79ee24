package handlers_test

import (
	"context"
	"database/sql"
	"html"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/mail"
	"storefront/store/ratelimit"
	"storefront/store/sessions"
	"storefront/wiring"
)

// outbox reads every outbox row, newest first.
func (a *app) outbox() []mail.Entry {
	a.t.Helper()
	es, _, err := a.store.Mail.Entries(context.Background(), 1000, 0)
	if err != nil {
		a.t.Fatal(err)
	}
	return es
}

// mailsTo returns the outbox rows of kind to address, newest first.
func (a *app) mailsTo(to, kind string) []mail.Entry {
	var out []mail.Entry
	for _, e := range a.outbox() {
		if e.To == to && e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// linkBook keeps the tokens of the single-use links the accounts make, by
// link row, as the accounts' in-transaction listeners hear of them. The
// outbox never holds them (it makes the token again as it sends): with
// no SMTP_URL the messages are kept unsent, and these tokens, known to
// the test alone, are the links' working ones.
type linkBook struct {
	mu     sync.Mutex
	tokens map[int64]string
}

func watchLinks(st *wiring.Services) *linkBook {
	b := &linkBook{tokens: map[int64]string{}}
	st.Sessions.OnTokenTx(func(_ context.Context, _ *sql.Tx, m sessions.TokenMail) error {
		b.mu.Lock()
		b.tokens[m.ID] = m.Token
		b.mu.Unlock()
		return nil
	})
	return b
}

// linkIn is the token of the single-use link of message e, which holds
// only the placeholder in its place.
func (a *app) linkIn(e mail.Entry) string {
	a.t.Helper()
	a.links.mu.Lock()
	token, ok := a.links.tokens[e.Link]
	a.links.mu.Unlock()
	if e.Link == 0 || !ok || !strings.Contains(e.Text, "token="+mail.LinkSecret) || !strings.Contains(e.HTML, "token="+mail.LinkSecret) {
		a.t.Fatalf("no link in message %d:\n%s", e.ID, e.Text)
	}
	return token
}

// emailOf reads an account's address and whether it is verified.
func (a *app) emailOf(name string) (string, bool) {
	a.t.Helper()
	u, err := a.store.Sessions.UserByName(context.Background(), name)
	if err != nil {
		a.t.Fatal(err)
	}
	e, err := a.store.Sessions.Email(context.Background(), u.ID)
	if err != nil {
		a.t.Fatal(err)
	}
	return e.Email, e.Verified
}

// verified registers name and confirms its address through the emailed
// link, returning the signed-in client.
func (a *app) verified(name string) *client {
	a.t.Helper()
	c := a.client()
	c.Register(name)
	msgs := a.mailsTo(apptest.Email(name), "email-verify")
	if len(msgs) != 1 {
		a.t.Fatalf("%d verification messages to %s", len(msgs), name)
	}
	c.MustPost("/account/email/verify", url.Values{"token": {a.linkIn(msgs[0])}}, http.StatusSeeOther)
	if _, ok := a.emailOf(name); !ok {
		a.t.Fatal("address not verified")
	}
	return c
}

// TestRegisterEmail: registration needs a plain address; a bad one is a
// 422 that creates nothing; a good one is stored unverified with its
// verification link in the outbox (kept: no SMTP_URL).
func TestRegisterEmail(t *testing.T) {
	a := newApp(t, nil, nil)
	for _, bad := range []string{"", "ada", "ada@localhost", "Ada <ada@example.com>", "ada@exämple.com", "ada@example.com\r\nBcc: x@example.com",
		"\"a b\"@example.com", "ada@[10.0.0.1]"} {
		res := a.client().Post("/register", url.Values{"username": {"ada_l"}, "password": {"correct horse battery"}, "email": {bad}})
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "Enter an email address such as") {
			t.Errorf("email %q: %d", bad, res.Status)
		}
	}
	if _, err := a.store.Sessions.UserByName(t.Context(), "ada_l"); err == nil {
		t.Fatal("an account was made with a bad address")
	}
	if n := len(a.outbox()); n != 0 {
		t.Fatalf("%d messages after refused registrations", n)
	}
	c := a.client()
	c.Register("ada_l")
	if e, ok := a.emailOf("ada_l"); e != "ada_l@example.com" || ok {
		t.Fatalf("address %q verified=%v", e, ok)
	}
	msgs := a.mailsTo("ada_l@example.com", "email-verify")
	if len(msgs) != 1 || msgs[0].Status != mail.StatusKept || msgs[0].Subject != "Confirm your email address" {
		t.Fatalf("verification messages %+v", msgs)
	}
	page := c.MustGet("/account/email", http.StatusOK).Body
	if v := testids(page, "account-email", "data-verified"); len(v) != 1 || v[0] != "false" {
		t.Fatalf("account email %v", v)
	}
}

// TestVerifyEmailLink: opening the link changes nothing; confirming it
// verifies; it works once; a tampered link, another account's link
// (signed in as someone else) and an expired one are refused with 422
// and change nothing.
func TestVerifyEmailLink(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("vera")
	token := a.linkIn(a.mailsTo("vera@example.com", "email-verify")[0])

	other := a.client()
	other.Register("otto")
	res := other.Get("/account/email/verify?token=" + url.QueryEscape(token))
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "for another account") {
		t.Fatalf("other account's link: %d", res.Status)
	}
	if res := other.Post("/account/email/verify", url.Values{"token": {token}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("other account used the link: %d", res.Status)
	}
	for _, bad := range []string{token[:len(token)-1] + "A", "1." + token[strings.Index(token, ".")+1:], "garbage", "", token + "x"} {
		if bad == token {
			continue
		}
		if res := c.Post("/account/email/verify", url.Values{"token": {bad}}); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "not valid") {
			t.Errorf("tampered %q: %d", bad, res.Status)
		}
	}
	if _, ok := a.emailOf("vera"); ok {
		t.Fatal("verified by a refused link")
	}
	if page := c.MustGet("/account/email/verify?token="+url.QueryEscape(token), http.StatusOK).Body; !strings.Contains(page, "vera@example.com") {
		t.Fatal("the confirm page does not name the address")
	}
	if _, ok := a.emailOf("vera"); ok {
		t.Fatal("opening the link verified the address")
	}
	c.MustPost("/account/email/verify", url.Values{"token": {token}}, http.StatusSeeOther)
	if _, ok := a.emailOf("vera"); !ok {
		t.Fatal("not verified")
	}
	if res := c.Post("/account/email/verify", url.Values{"token": {token}}); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "already used") {
		t.Fatalf("reused: %d", res.Status)
	}

	// A new address: unverified again, and its link expires.
	c.MustPost("/account/email", url.Values{"email": {"vera.new@example.com"}}, http.StatusSeeOther)
	if e, ok := a.emailOf("vera"); e != "vera.new@example.com" || ok {
		t.Fatalf("after a change: %q %v", e, ok)
	}
	if res := c.Post("/account/email", url.Values{"email": {"vera@@example.com"}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("bad new address: %d", res.Status)
	}
	if e, _ := a.emailOf("vera"); e != "vera.new@example.com" {
		t.Fatalf("a refused change changed the address to %q", e)
	}
	fresh := a.linkIn(a.mailsTo("vera.new@example.com", "email-verify")[0])
	a.shiftClock(49 * time.Hour)
	if res := c.Post("/account/email/verify", url.Values{"token": {fresh}}); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "expired") {
		t.Fatalf("expired: %d", res.Status)
	}
	if _, ok := a.emailOf("vera"); ok {
		t.Fatal("verified by an expired link")
	}
}

// shiftClock moves the store's clock forward by d (links expire by it).
func (a *app) shiftClock(d time.Duration) {
	a.shift += d
	shift := a.shift
	a.store.SetClock(func() time.Time { return time.Now().Add(shift) })
}

// TestAskedForEmailOnce: an account without an address is sent to the
// address form after its first sign-in, and not after the next.
func TestAskedForEmailOnce(t *testing.T) {
	a := newApp(t, nil, nil)
	if _, err := a.store.Sessions.CreateUser(t.Context(), "old_timer", apptest.Password); err != nil {
		t.Fatal(err)
	}
	c := a.client()
	res := c.Post("/login", url.Values{"username": {"old_timer"}, "password": {apptest.Password}, "next": {"/cart"}})
	if loc := res.Header.Get("Location"); res.Status != http.StatusSeeOther || loc != "/account/email?first=1&next=%2Fcart" {
		t.Fatalf("first sign-in: %d %q", res.Status, loc)
	}
	if page := c.MustGet("/account/email?first=1&next=%2Fcart", http.StatusOK).Body; len(testids(page, "skip-email", "")) != 1 {
		t.Fatal("no way to skip")
	}
	again := a.client()
	res = again.Post("/login", url.Values{"username": {"old_timer"}, "password": {apptest.Password}, "next": {"/cart"}})
	if loc := res.Header.Get("Location"); loc != "/cart" {
		t.Fatalf("second sign-in went to %q", loc)
	}
}

// TestPasswordReset: the forgotten-password page answers the same for a
// known and an unknown address; only the known one gets a link. The link
// sets a new password once, ends every session of the account, and is
// refused when reused, expired, tampered or of the other kind.
func TestPasswordReset(t *testing.T) {
	a := newApp(t, nil, nil)
	owner := a.verified("rosa")
	other := a.client()
	other.Login("rosa", apptest.Password)

	known := owner.Post("/password/forgot", url.Values{"email": {"rosa@example.com"}})
	unknown := a.client().Post("/password/forgot", url.Values{"email": {"nobody@example.com"}})
	if known.Status != http.StatusOK || unknown.Status != http.StatusOK || len(testids(known.Body, "forgot-sent", "")) != 1 ||
		len(testids(unknown.Body, "forgot-sent", "")) != 1 {
		t.Fatalf("forgot: %d %d", known.Status, unknown.Status)
	}
	if textOf(known.Body, "forgot-sent") != strings.ReplaceAll(textOf(unknown.Body, "forgot-sent"), "nobody@", "rosa@") {
		t.Fatal("the answers differ")
	}
	if n := len(a.mailsTo("nobody@example.com", "password-reset")); n != 0 {
		t.Fatalf("%d messages to an unknown address", n)
	}
	var tokens int
	if err := a.store.DB().QueryRow(`SELECT COUNT(*) FROM account_tokens WHERE kind = 'reset'`).Scan(&tokens); err != nil || tokens != 1 {
		t.Fatalf("%d reset links stored (%v), want the known address's only", tokens, err)
	}
	if res := a.client().Post("/password/forgot", url.Values{"email": {"not an address"}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("bad address: %d", res.Status)
	}
	msgs := a.mailsTo("rosa@example.com", "password-reset")
	if len(msgs) != 1 || msgs[0].Subject != "Reset your password" {
		t.Fatalf("reset messages %+v", msgs)
	}
	token := a.linkIn(msgs[0])
	verifyToken := a.linkIn(a.mailsTo("rosa@example.com", "email-verify")[0])

	// Refused links and a short password change nothing.
	stranger := a.client()
	for _, bad := range []string{verifyToken, token[:len(token)-2] + "xx", "", "12.abc"} {
		if res := stranger.Post("/password/reset", url.Values{"token": {bad}, "password": {"brand new password"}}); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("reset with %q: %d", bad, res.Status)
		}
	}
	if res := stranger.Post("/password/reset", url.Values{"token": {token}, "password": {"short"}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("short password: %d", res.Status)
	}
	if signedInAs(other.home().Body) != "rosa" {
		t.Fatal("a refused reset signed the account out")
	}
	stranger.Login("rosa", apptest.Password) // the old password still works

	form := stranger.MustGet("/password/reset?token="+url.QueryEscape(token), http.StatusOK).Body
	if !strings.Contains(form, "For the account rosa") {
		t.Fatal("the reset form does not name the account")
	}
	res := a.client().Post("/password/reset", url.Values{"token": {token}, "password": {"brand new password"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/login" {
		t.Fatalf("reset: %d", res.Status)
	}
	for _, c := range []*client{owner, other, stranger} {
		if signedInAs(c.home().Body) != "" {
			t.Fatal("a session survived the reset")
		}
	}
	if res := a.client().Post("/login", url.Values{"username": {"rosa"}, "password": {apptest.Password}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("old password after the reset: %d", res.Status)
	}
	a.client().Login("rosa", "brand new password")
	res = a.client().Post("/password/reset", url.Values{"token": {token}, "password": {"another password"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "already used") {
		t.Fatalf("reused: %d", res.Status)
	}

	// An hour later a new link is expired.
	a.client().MustPost("/password/forgot", url.Values{"email": {"rosa@example.com"}}, http.StatusOK)
	late := a.linkIn(a.mailsTo("rosa@example.com", "password-reset")[0])
	a.shiftClock(61 * time.Minute)
	res = a.client().Post("/password/reset", url.Values{"token": {late}, "password": {"another password"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(res.Body), "expired") {
		t.Fatalf("expired: %d", res.Status)
	}
	a.client().Login("rosa", "brand new password")
}

// TestResetLinkRace: many requests with one reset link at once: one sets
// its password, the others are refused.
func TestResetLinkRace(t *testing.T) {
	a := newApp(t, nil, nil)
	a.verified("race")
	a.client().MustPost("/password/forgot", url.Values{"email": {"race@example.com"}}, http.StatusOK)
	token := a.linkIn(a.mailsTo("race@example.com", "password-reset")[0])
	var wg sync.WaitGroup
	codes := make(chan int, 12)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- a.client().Post("/password/reset", url.Values{"token": {token}, "password": {"password number " + itoa(int64(i))}}).Status
		}()
	}
	wg.Wait()
	close(codes)
	ok := 0
	for c := range codes {
		switch c {
		case http.StatusSeeOther:
			ok++
		case http.StatusUnprocessableEntity:
		default:
			t.Errorf("status %d", c)
		}
	}
	if ok != 1 {
		t.Fatalf("%d resets applied, want 1", ok)
	}
}

// TestForgotRateLimited: FORGOT_RATE counts per client address.
func TestForgotRateLimited(t *testing.T) {
	rate, err := ratelimit.ParseRate("2/1h")
	if err != nil {
		t.Fatal(err)
	}
	a := newApp(t, nil, func(c *handlers.Config) { c.Rates.Forgot = rate })
	c := a.client()
	for i := range 2 {
		c.MustPost("/password/forgot", url.Values{"email": {"someone" + itoa(int64(i)) + "@example.com"}}, http.StatusOK)
	}
	if res := c.Post("/password/forgot", url.Values{"email": {"someone9@example.com"}}); res.Status != http.StatusTooManyRequests {
		t.Fatalf("third request: %d", res.Status)
	}
}

// TestOrderEmailsAndTracking: an order's confirmation is in the outbox
// with its lines, totals and address; shipping asks for a tracking number
// (422 without, nothing changed), which the order page and the shipped
// email show; the admin's outbox lists and shows the messages.
func TestOrderEmailsAndTracking(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(5, 10)
	shopper := a.client()
	shopper.Register("mona")
	id := shopper.orderFor("mona", 5, 2)
	placed := a.mailsTo("mona@example.com", "order-placed")
	if len(placed) != 1 || !strings.Contains(placed[0].Subject, "Order "+itoa(id)) {
		t.Fatalf("order messages %+v", placed)
	}
	for _, part := range []string{"2 x ", "Total", "1 Main Street", "London", "/orders/" + itoa(id)} {
		if !strings.Contains(placed[0].Text, part) || !strings.Contains(placed[0].HTML, strings.TrimSuffix(part, " x ")) {
			t.Errorf("confirmation lacks %q", part)
		}
	}
	admin := a.client()
	admin.signInAdmin()
	for _, bad := range []string{"", "   ", strings.Repeat("9", 65), "<script>"} {
		res := admin.Post("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"shipped"}, "tracking": {bad}})
		if res.Status != http.StatusUnprocessableEntity || a.orderStatus(id) != "pending" {
			t.Fatalf("ship with tracking %q: %d, now %s", bad, res.Status, a.orderStatus(id))
		}
	}
	if n := len(a.mailsTo("mona@example.com", "order-shipped")); n != 0 {
		t.Fatalf("%d shipped messages after refused moves", n)
	}
	admin.MustPost("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"shipped"}, "tracking": {"1Z 999-AA/10"}}, http.StatusSeeOther)
	if got := textOf(shopper.MustGet("/orders/"+itoa(id), http.StatusOK).Body, "order-tracking"); got != "1Z 999-AA/10" {
		t.Fatalf("order page tracking %q", got)
	}
	shipped := a.mailsTo("mona@example.com", "order-shipped")
	if len(shipped) != 1 || !strings.Contains(shipped[0].Text, "Tracking number: 1Z 999-AA/10") || !strings.Contains(shipped[0].HTML, "1Z 999-AA/10") {
		t.Fatalf("shipped messages %+v", shipped)
	}
	admin.MustPost("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"delivered"}}, http.StatusSeeOther)
	if n := len(a.mailsTo("mona@example.com", "order-delivered")); n != 1 {
		t.Fatalf("%d delivered messages", n)
	}

	list := admin.MustGet("/admin/outbox", http.StatusOK).Body
	tos, subjects, sts := testids(list, "outbox-row", "data-to"), testids(list, "outbox-row", "data-subject"), testids(list, "outbox-row", "data-status")
	if len(tos) != 4 || tos[0] != "mona@example.com" || html.UnescapeString(subjects[0]) != "Order "+itoa(id)+" was delivered" || sts[0] != "kept" {
		t.Fatalf("outbox rows %v %v %v", tos, subjects, sts)
	}
	msg := admin.MustGet("/admin/outbox/"+itoa(shipped[0].ID), http.StatusOK).Body
	if !strings.Contains(msg, shipped[0].MessageID) || textOf(msg, "outbox-to") != "mona@example.com" || !strings.Contains(msg, "Tracking number: 1Z 999-AA/10") {
		t.Fatal("the message page does not show the message")
	}
	if res := admin.Get("/admin/outbox/999999"); res.Status != http.StatusNotFound {
		t.Fatalf("unknown message: %d", res.Status)
	}
	if res := shopper.Get("/admin/outbox"); res.Status != http.StatusForbidden {
		t.Fatalf("a shopper reads the outbox: %d", res.Status)
	}
}
