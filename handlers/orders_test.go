package handlers_test

import (
	"net/http"
	"strings"
	"testing"
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
