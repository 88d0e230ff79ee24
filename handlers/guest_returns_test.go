package handlers_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"storefront/store/storetest"
	"storefront/wiring"
)

// guestLink finds the absolute link to a guest's order in an email.
var guestLink = regexp.MustCompile(`https://shop\.example\.com(/guest-orders/(\d+)\?key=[A-Za-z0-9_-]{22})`)

// TestGuestEmailsLinkToTheOrderAndReturns: with SMTP_URL and SHOP_URL
// set, every email about a guest's order (placed, shipped, delivered, each
// step of a return) reaches a real SMTP server with an absolute link to
// the order on SHOP_URL; the link opens the order, whose return form a
// guest uses as a member does: refusals are 422s that change nothing, a
// wrong or another order's key is a 404, and the return's email links back.
func TestGuestEmailsLinkToTheOrderAndReturns(t *testing.T) {
	inbox := newSMTPInbox(t)
	smtpOpt := inbox.options(t)
	a := newApp(t, func(o *wiring.Options) { smtpOpt(o); o.ShopURL = "https://shop.example.com/" }, nil)
	a.runWorkers()
	a.setStock(5, 10)
	guest := a.client()
	guest.setQty("5", "2")
	res := guest.checkout(func(f url.Values) { f.Set("email", "gina@example.com") })
	if res.Status != http.StatusSeeOther {
		t.Fatalf("guest checkout: %d %.300s", res.Status, res.Body)
	}
	placedAt := res.Header.Get("Location")
	link := func(subject string) string {
		t.Helper()
		var m []string
		storetest.Eventually(t, func() bool {
			got := inbox.to("gina@example.com", subject)
			if len(got) == 0 {
				return false
			}
			m = guestLink.FindStringSubmatch(got[0].Text)
			return true
		}, "the email "+subject+" delivered")
		if m == nil {
			t.Fatalf("the email %q has no absolute link to the order", subject)
		}
		return m[1]
	}
	path := link("thank you")
	if path != placedAt {
		t.Fatalf("the confirmation links to %s, the checkout sent the guest to %s", path, placedAt)
	}
	id := regexp.MustCompile(`/guest-orders/(\d+)`).FindStringSubmatch(path)[1]
	stranger := a.client()
	if page := stranger.MustGet(path, http.StatusOK); !strings.Contains(page.Body, "gina@example.com") {
		t.Fatal("the emailed link does not open the order")
	}
	admin := a.client()
	admin.signInAdmin()
	admin.MustPost("/admin/orders/"+id+"/status", url.Values{"status": {"shipped"}, "tracking": {"TRACK-1"}}, http.StatusSeeOther)
	if got := link("has shipped"); got != path {
		t.Errorf("the shipped email links to %s", got)
	}
	admin.MustPost("/admin/orders/"+id+"/status", url.Values{"status": {"delivered"}}, http.StatusSeeOther)
	if got := link("was delivered"); got != path {
		t.Errorf("the delivered email links to %s", got)
	}

	page := stranger.MustGet(path, http.StatusOK)
	action := strings.Replace(path, "?", "/returns?", 1)
	if forms := testids(page.Body, "return-form", "action"); len(forms) != 1 || forms[0] != strings.ReplaceAll(action, "&", "&amp;") {
		t.Fatalf("the guest's order page has return forms %v, want one posting to %s", forms, action)
	}
	before := a.returnState()
	wrongKey := "/guest-orders/" + id + "/returns?key=" + strings.Repeat("A", 22)
	for _, p := range []string{wrongKey, "/guest-orders/" + id + "/returns"} {
		if res := stranger.Post(p, url.Values{"line": {"5"}, "qty-5": {"1"}, "reason": {"x"}}); res.Status != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", p, res.Status)
		}
	}
	for name, form := range map[string]url.Values{
		"no line":  {"reason": {"too big"}},
		"too many": {"line": {"5"}, "qty-5": {"3"}, "reason": {"too big"}},
		"reason":   {"line": {"5"}, "qty-5": {"1"}, "reason": {" "}},
	} {
		res := stranger.Post(action, form)
		if res.Status != http.StatusUnprocessableEntity || textOf(res.Body, "return-error") == "" {
			t.Errorf("%s: %d, want 422 with why", name, res.Status)
		}
		if len(testids(res.Body, "return-form", "action")) != 1 {
			t.Errorf("%s: the refused form is not shown again on the guest's page", name)
		}
	}
	if s := a.returnState(); s != before {
		t.Fatalf("refusals changed something: %v -> %v", before, s)
	}
	res = stranger.Post(action, url.Values{"line": {"5"}, "qty-5": {"1"}, "reason": {"Too small"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != path+"#returns" {
		t.Fatalf("ask: %d to %q", res.Status, res.Header.Get("Location"))
	}
	page = stranger.MustGet(path, http.StatusOK)
	if got := testids(page.Body, "order-return", "data-status"); len(got) != 1 || got[0] != "requested" {
		t.Fatalf("order returns %v", got)
	}
	if got := link("Return "); got != path {
		t.Errorf("the return's email links to %s", got)
	}
}
