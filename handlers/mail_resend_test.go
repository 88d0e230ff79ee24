package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"storefront/handlers/apptest"
	"storefront/store/mail"
	"storefront/store/storetest"
)

// TestResendFailedEmail: a message the server refused is failed, and the
// outbox offers the admin to send it again. Sending again queues it once
// however many times it is asked (at once or after), it is delivered
// once, and its link (made again at sending) works. A shopper cannot ask
// for it, an unknown message is a 404, and without SMTP_URL it is a 422.
func TestResendFailedEmail(t *testing.T) {
	in := apptest.StartSMTP(t)
	in.Refuse(true)
	a := newMailingApp(t, in)
	shopper := a.client()
	shopper.Register("resent")
	var failed mail.Entry
	storetest.Eventually(t, func() bool {
		ms := a.mailsTo("resent@example.com", "email-verify")
		if len(ms) == 1 {
			failed = ms[0]
		}
		return failed.Status == mail.StatusFailed
	}, "the refused message failed")
	admin := a.client()
	admin.signInAdmin()
	if n := len(testids(admin.MustGet("/admin/outbox", http.StatusOK).Body, "outbox-resend", "")); n != 1 {
		t.Fatalf("%d send-again buttons on the outbox, want the failed message's", n)
	}
	path := "/admin/outbox/" + itoa(failed.ID) + "/resend"
	if n := len(testids(admin.MustGet("/admin/outbox/"+itoa(failed.ID), http.StatusOK).Body, "outbox-resend", "")); n != 1 {
		t.Fatalf("%d send-again buttons on the failed message", n)
	}
	if res := shopper.Post(path, nil); res.Status != http.StatusForbidden {
		t.Fatalf("a shopper sends again: %d", res.Status)
	}
	if e, _ := a.store.Mail.Entry(t.Context(), failed.ID); e.Status != mail.StatusFailed {
		t.Fatalf("after a shopper's try: %s", e.Status)
	}
	if res := admin.Post("/admin/outbox/999999/resend", nil); res.Status != http.StatusNotFound {
		t.Fatalf("an unknown message: %d", res.Status)
	}

	in.Refuse(false)
	var wg sync.WaitGroup
	codes := make(chan int, 6)
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := admin.Post(path, nil)
			codes <- res.Status
		}()
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusSeeOther {
			t.Fatalf("send again: %d", c)
		}
	}
	storetest.Eventually(t, func() bool {
		e, err := a.store.Mail.Entry(t.Context(), failed.ID)
		return err == nil && e.Status == mail.StatusSent
	}, "the message sent again")
	admin.MustPost(path, nil, http.StatusSeeOther)
	if flash := textOf(admin.MustGet("/admin/outbox/"+itoa(failed.ID), http.StatusOK).Body, "flash"); !strings.Contains(flash, "is sent: nothing to send again") {
		t.Fatalf("sending a sent message again says %q", flash)
	}
	e, err := a.store.Mail.Entry(t.Context(), failed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != mail.StatusSent || e.Attempts != 1 {
		t.Fatalf("after sending again: %s, %d attempts", e.Status, e.Attempts)
	}
	if n := len(in.Messages()); n != 1 {
		t.Fatalf("the server took %d messages, want the one sent again", n)
	}
	_, token := in.Link("resent@example.com", "Confirm your email address")
	shopper.MustPost("/account/email/verify", url.Values{"token": {token}}, http.StatusSeeOther)
	if _, ok := a.emailOf("resent"); !ok {
		t.Fatal("the link sent again does not confirm the address")
	}

	kept := newApp(t, nil, nil)
	kept.client().Register("kept")
	keeper := kept.client()
	keeper.signInAdmin()
	id := kept.mailsTo("kept@example.com", "email-verify")[0].ID
	if res := keeper.Post("/admin/outbox/"+itoa(id)+"/resend", nil); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("sending again without SMTP_URL: %d", res.Status)
	}
}
