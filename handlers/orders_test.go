package handlers_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"storefront/store/orders"
)

func TestOrdersPages(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 10)
	alice, bob := a.client(), a.client()
	alice.Register("alice")
	bob.Register("bob")
	var locs []string
	for range 2 {
		alice.setQty("7", "1")
		res := alice.checkout(nil)
		if res.Status != http.StatusSeeOther {
			t.Fatalf("checkout %d", res.Status)
		}
		locs = append(locs, res.Header.Get("Location"))
	}
	list := alice.Get("/orders")
	ids := testids(list.Body, "order", "data-order-id")
	if list.Status != 200 || len(ids) != 2 || "/orders/"+ids[0] != locs[1] || "/orders/"+ids[1] != locs[0] {
		t.Errorf("orders %v, want newest first of %v", ids, locs)
	}
	if got := testids(list.Body, "order-status", "data-status"); len(got) != 2 || got[0] != "pending" {
		t.Errorf("statuses %v", got)
	}
	if res := bob.Get("/orders"); len(testids(res.Body, "order", "data-order-id")) != 0 || !strings.Contains(res.Body, "no orders yet") {
		t.Errorf("bob sees orders")
	}
	for _, tc := range []struct {
		who    *client
		path   string
		status int
	}{
		{alice, locs[0], 200},
		{bob, locs[0], 404}, // someone else's
		{alice, "/orders/999999", 404},
		{alice, "/orders/abc", 404},
		{alice, "/orders/0", 404},
		{alice, "/orders/-1", 404},
		{alice, "/orders?page=0", 400},
		{alice, "/orders?page=99", 200},
		{a.client(), "/orders", 303},
		{a.client(), locs[0], 303},
	} {
		if res := tc.who.Get(tc.path); res.Status != tc.status {
			t.Errorf("GET %s: %d, want %d", tc.path, res.Status, tc.status)
		} else if tc.status == 303 && !strings.HasPrefix(res.Header.Get("Location"), "/login?next=%2Forders") {
			t.Errorf("GET %s: to %q", tc.path, res.Header.Get("Location"))
		}
	}
	mustContain(t, alice.Get("/orders?page=99").Body, "No orders on this page")
	mustContain(t, alice.Get(locs[0]).Body, `data-testid="order-status"`, `data-testid="order-total"`)
}

// TestCancelAsksFirst: cancelling an order takes a confirmation that works
// without JavaScript: the order page links to GET /orders/:id/cancel,
// which changes nothing and shows the order with the POST form that
// cancels it and a way back; only the shopper sees it, and an order past
// cancelling goes back to its page with why.
func TestCancelAsksFirst(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(9, 10)
	shopper := a.client()
	shopper.Register("cautious")
	id := shopper.orderFor("cautious", 9, 2)
	order := shopper.MustGet("/orders/"+itoa(id), http.StatusOK).Body
	confirmURL := "/orders/" + itoa(id) + "/cancel"
	if strings.Contains(order, `method="post" action="`+confirmURL+`"`) {
		t.Error("the order page cancels in one click")
	}
	if link := regexp.MustCompile(`<a [^>]*data-testid="cancel-order"[^>]*>`).FindString(order); !strings.Contains(link, `href="`+confirmURL+`"`) {
		t.Errorf("the order page's cancel is %q, want a link to the confirmation", link)
	}

	page := shopper.MustGet(confirmURL, http.StatusOK).Body
	if a.orderStatus(id) != orders.OrderPending || a.stockOf(9) != 8 {
		t.Fatalf("opening the confirmation changed the order: %s, stock %d", a.orderStatus(id), a.stockOf(9))
	}
	form := regexp.MustCompile(`(?s)<form method="post" action="` + regexp.QuoteMeta(confirmURL) + `"[^>]*>.*?</form>`).FindString(page)
	if !strings.Contains(form, `data-testid="confirm-cancel"`) {
		t.Errorf("the confirmation has no form that cancels: %s", form)
	}
	if !strings.Contains(page, "Order #"+itoa(id)) || !strings.Contains(page, `href="/orders/`+itoa(id)+`"`) {
		t.Error("the confirmation does not name the order or lead back to it")
	}
	other := a.client()
	other.Register("nosy")
	if res := other.Get(confirmURL); res.Status != http.StatusNotFound {
		t.Errorf("another shopper's confirmation: %d", res.Status)
	}
	if res := a.client().Get(confirmURL); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Errorf("a guest's confirmation: %d to %q", res.Status, res.Header.Get("Location"))
	}

	shopper.MustPost(confirmURL, nil, http.StatusSeeOther)
	if a.orderStatus(id) != orders.OrderCancelled || a.stockOf(9) != 10 {
		t.Fatalf("after confirming: %s, stock %d", a.orderStatus(id), a.stockOf(9))
	}
	res := shopper.Get(confirmURL)
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/orders/"+itoa(id) {
		t.Fatalf("the confirmation of a cancelled order: %d to %q", res.Status, res.Header.Get("Location"))
	}
	if page := shopper.MustGet("/orders/"+itoa(id), http.StatusOK).Body; !strings.Contains(textOf(page, "flash"), "can no longer be cancelled") {
		t.Errorf("the order page does not say why: %q", textOf(page, "flash"))
	}
}
