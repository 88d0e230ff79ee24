package handlers_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/storetest"
	"storefront/wiring"
)

// staffMember registers name as a shopper, gives the account role
// straight in the database, and returns a client signed in as it.
func (a *app) staffMember(name, role string) *client {
	a.t.Helper()
	c := a.client()
	c.Register(name)
	if _, err := a.store.DB().ExecContext(a.t.Context(), `UPDATE users SET role = $1, is_admin = TRUE WHERE username = $2`, role, name); err != nil {
		a.t.Fatal(err)
	}
	return c
}

// idOf is an account's id by name, as a path segment.
func (a *app) idOf(name string) string { return itoa(a.userID(name)) }

// staffGrants is who may use each group of admin routes, written out here
// apart from the code's own table so that a change to either shows.
var staffGrants = map[web.Perm][]string{
	web.PermStaff:      {"owner", "manager", "fulfilment", "support", "moderator"},
	web.PermCatalog:    {"owner", "manager"},
	web.PermPricing:    {"owner", "manager"},
	web.PermOrders:     {"owner", "manager", "fulfilment", "support"},
	web.PermFulfil:     {"owner", "manager", "fulfilment"},
	web.PermNotes:      {"owner", "manager", "support"},
	web.PermReturns:    {"owner", "manager", "support"},
	web.PermRefunds:    {"owner", "manager"},
	web.PermReports:    {"owner", "manager"},
	web.PermModeration: {"owner", "moderator"},
	web.PermSettings:   {"owner"},
	web.PermTeam:       {"owner"},
}

// TestStaffRouteRules walks every route the router has: each one under
// /admin has a group (a new admin route without one fails here, and
// refuses everyone at run time), and each role gets past the guard exactly
// on the groups it was granted (403 otherwise), a shopper on none.
func TestStaffRouteRules(t *testing.T) {
	a := newApp(t, nil, nil)
	clients := map[string]*client{}
	for _, role := range []string{"owner", "manager", "fulfilment", "support", "moderator"} {
		clients[role] = a.staffMember("st_"+role, role)
	}
	shopper := a.client()
	shopper.Register("st_shopper")
	fill := strings.NewReplacer(":id", "999999", ":name", "nobody_here", ":n", "0", ":code", "NOPE", ":ref", "999999-1", ":file", "x", ":slug", "no-such-page")
	seen := 0
	for _, r := range a.h.Router().Routes() {
		if !strings.HasPrefix(r.Path, "/admin") || r.Method == echo.RouteNotFound || r.Method == http.MethodHead {
			continue
		}
		seen++
		perm, ok := a.h.StaffRule(r.Method, r.Path)
		if !ok {
			t.Errorf("%s %s has no staff rule: give it a group in routes.go", r.Method, r.Path)
			continue
		}
		if _, known := staffGrants[perm]; !known {
			t.Errorf("%s %s: group %q is not in this test's table", r.Method, r.Path, perm)
			continue
		}
		path := fill.Replace(r.Path)
		for role, c := range clients {
			var res int
			if r.Method == http.MethodGet {
				res = c.Get(path).Status
			} else {
				res = c.Post(path, url.Values{}).Status
			}
			may := false
			for _, g := range staffGrants[perm] {
				may = may || g == role
			}
			if may && res == http.StatusForbidden {
				t.Errorf("%s %s (%s): %s got 403", r.Method, path, perm, role)
			}
			if !may && res != http.StatusForbidden {
				t.Errorf("%s %s (%s): %s got %d, want 403", r.Method, path, perm, role, res)
			}
		}
		var res int
		if r.Method == http.MethodGet {
			res = shopper.Get(path).Status
		} else {
			res = shopper.Post(path, url.Values{}).Status
		}
		if res != http.StatusForbidden {
			t.Errorf("%s %s: a shopper got %d, want 403", r.Method, path, res)
		}
	}
	if seen < 60 {
		t.Fatalf("only %d admin routes found", seen)
	}
	// An unknown path under /admin is still a 404 for the staff.
	if res := clients["fulfilment"].Get("/admin/no-such-page"); res.Status != http.StatusNotFound {
		t.Errorf("unknown admin page: %d", res.Status)
	}
}

// inviteLink finds the invitation's link in its email.
var inviteLink = regexp.MustCompile(`https://shop\.example\.com(/staff/join\?token=[A-Za-z0-9._-]+)`)

// TestFulfilmentInvitedByTheOwner: the owner invites someone as fulfilment
// by email (through a real SMTP server); the link's form makes the staff
// account, which views, processes and ships orders and gets 403 on prices,
// refunds, bans, settings and staff; the dashboard links only orders. The
// link works once; a forged link is refused. Removed from the staff, the
// member is out at once.
func TestFulfilmentInvitedByTheOwner(t *testing.T) {
	inbox := newSMTPInbox(t)
	smtpOpt := inbox.options(t)
	a := newApp(t, func(o *wiring.Options) { smtpOpt(o); o.ShopURL = "https://shop.example.com/" }, nil)
	a.runWorkers()
	owner := a.client()
	owner.signInAdmin()

	for _, bad := range []url.Values{
		{"email": {"not an address"}, "role": {"fulfilment"}},
		{"email": {"pat@example.com"}, "role": {"janitor"}},
		{"email": {"pat@example.com"}, "role": {""}},
	} {
		if res := owner.Post("/admin/staff", bad); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("invite %v: %d, want 422", bad, res.Status)
		}
	}
	owner.MustPost("/admin/staff", url.Values{"email": {"pat@example.com"}, "role": {"fulfilment"}}, http.StatusSeeOther)
	// The outbox keeps no working link: only the email as sent has one.
	if strings.Contains(owner.MustGet("/admin/outbox", http.StatusOK).Body, "token=") {
		// The list shows subjects only; the message page shows the placeholder.
		t.Log("the outbox list shows a token parameter")
	}
	var path string
	storetest.Eventually(t, func() bool {
		got := inbox.to("pat@example.com", "Join the team")
		if len(got) == 0 {
			return false
		}
		if m := inviteLink.FindStringSubmatch(got[0].Text); m != nil {
			path = m[1]
		}
		return true
	}, "the invitation delivered")
	if path == "" {
		t.Fatal("the invitation has no link")
	}

	pat := a.client()
	form := pat.MustGet(path, http.StatusOK)
	if got := textOf(form.Body, "invite-role"); got != "fulfilment" {
		t.Fatalf("the invitation's page says %q", got)
	}
	token := strings.TrimPrefix(path, "/staff/join?token=")
	// A bad username keeps the link working.
	if res := pat.Post("/staff/join", url.Values{"token": {token}, "username": {"x"}, "password": {"correct horse battery"}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a bad username: %d", res.Status)
	}
	if res := pat.Post("/staff/join", url.Values{"token": {token}, "username": {"admin"}, "password": {"correct horse battery"}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a taken username: %d", res.Status)
	}
	res := pat.Post("/staff/join", url.Values{"token": {token}, "username": {"pat"}, "password": {"correct horse battery"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/admin" {
		t.Fatalf("join: %d %s %.300s", res.Status, res.Header.Get("Location"), res.Body)
	}
	// Used once: the same link again, and a forged one, are refused.
	again := a.client()
	for name, tok := range map[string]string{
		"reused": token,
		"forged": strings.SplitN(token, ".", 2)[0] + "." + strings.Repeat("A", 43),
		"junk":   "12.nope",
	} {
		if res := again.Get("/staff/join?token=" + url.QueryEscape(tok)); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s link: %d, want 422", name, res.Status)
		}
		res := again.Post("/staff/join", url.Values{"token": {tok}, "username": {"mallory"}, "password": {"correct horse battery"}})
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "link") {
			t.Errorf("%s link posted: %d", name, res.Status)
		}
	}
	if _, err := a.store.Sessions.UserByName(t.Context(), "mallory"); err == nil {
		t.Fatal("a refused link made an account")
	}
	staff := owner.MustGet("/admin/staff", http.StatusOK).Body
	ids, emails, roles := testids(staff, "staff-row", "data-user-id"), testids(staff, "staff-row", "data-email"), testids(staff, "staff-row", "data-role")
	found := false
	for i := range ids {
		if emails[i] == "pat@example.com" {
			found = roles[i] == "fulfilment" && ids[i] == a.idOf("pat")
		}
	}
	if !found {
		t.Fatalf("staff rows: %v %v %v", ids, emails, roles)
	}

	// Pat's work: orders to view, process and ship.
	a.setStock(5, 10)
	shopper := a.client()
	shopper.Register("sam")
	id := shopper.orderFor("sam", 5, 1)
	a.fulfil()
	dash := pat.MustGet("/admin", http.StatusOK).Body
	if links := testids(dash, "admin-nav", "data-testid"); len(links) != 1 {
		t.Fatalf("nav: %v", links)
	}
	if !strings.Contains(dash, `href="/admin/orders"`) || strings.Contains(dash, `href="/admin/items"`) || strings.Contains(dash, `href="/admin/settings"`) {
		t.Fatal("the dashboard links pages fulfilment may not open")
	}
	pat.MustGet("/admin/orders", http.StatusOK)
	pat.MustGet("/admin/orders/"+itoa(id), http.StatusOK)
	pat.MustPost("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"paid"}}, http.StatusSeeOther)
	pat.MustPost("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"shipped"}, "tracking": {"TRACK-9"}}, http.StatusSeeOther)
	if got := a.orderStatus(id); got != "shipped" {
		t.Fatalf("order %d is %s", id, got)
	}
	price := a.priceOf(5)
	for _, tc := range []struct {
		method, path string
		form         url.Values
	}{
		{"POST", "/admin/items/5", url.Values{"name": {"Cheap"}, "price": {"0.01"}, "stock": {"1"}, "category": {"x"}}},
		{"GET", "/admin/discounts", nil},
		{"GET", "/admin/refunds", nil},
		{"POST", "/admin/refunds/1/settle", url.Values{"note": {"cash"}}},
		{"POST", "/admin/users/sam/ban", nil},
		{"GET", "/admin/settings", nil},
		{"POST", "/admin/settings", url.Values{"name": {"Pat's shop"}}},
		{"GET", "/admin/staff", nil},
		{"POST", "/admin/staff", url.Values{"email": {"friend@example.com"}, "role": {"owner"}}},
		{"POST", "/admin/staff/" + a.idOf("pat") + "/role", url.Values{"role": {"owner"}}},
		{"GET", "/admin/audit", nil},
		{"POST", "/admin/orders/" + itoa(id) + "/notes", url.Values{"body": {"hi"}}},
	} {
		var res int
		var body string
		if tc.method == "GET" {
			r := pat.Get(tc.path)
			res, body = r.Status, r.Body
		} else {
			r := pat.Post(tc.path, tc.form)
			res, body = r.Status, r.Body
		}
		if res != http.StatusForbidden || !strings.Contains(body, "fulfilment") {
			t.Errorf("%s %s: %d, want 403 naming the role", tc.method, tc.path, res)
		}
	}
	if a.priceOf(5) != price {
		t.Fatal("fulfilment changed a price")
	}
	if u, _ := a.store.Sessions.UserByName(t.Context(), "sam"); u.Banned {
		t.Fatal("fulfilment banned a shopper")
	}
	// Cancelling gives the money back: not fulfilment's to do.
	id2 := shopper.orderFor("sam", 5, 1)
	if res := pat.Post("/admin/orders/"+itoa(id2)+"/status", url.Values{"status": {"cancelled"}}); res.Status != http.StatusForbidden {
		t.Errorf("fulfilment cancelling: %d", res.Status)
	}

	// Another role: the very next request has it.
	owner.MustPost("/admin/staff/"+a.idOf("pat")+"/role", url.Values{"role": {"moderator"}}, http.StatusSeeOther)
	if res := pat.Get("/admin/orders"); res.Status != http.StatusForbidden {
		t.Errorf("moderator on orders: %d", res.Status)
	}
	pat.MustGet("/admin/moderation", http.StatusOK)
	// Removed: out at once, signed out everywhere; the account stays.
	owner.MustPost("/admin/staff/"+a.idOf("pat")+"/remove", nil, http.StatusSeeOther)
	if res := pat.Get("/admin/moderation"); res.Status != http.StatusSeeOther && res.Status != http.StatusForbidden {
		t.Errorf("removed member: %d", res.Status)
	}
	pat.Login("pat", "correct horse battery")
	if res := pat.Get("/admin"); res.Status != http.StatusForbidden {
		t.Errorf("removed member signed in again: %d", res.Status)
	}
}

// TestLastOwnerStays: the last owner can be neither demoted nor removed
// (422, nothing changes); of two owners demoting each other at once, one
// stays an owner.
func TestLastOwnerStays(t *testing.T) {
	a := newApp(t, nil, nil)
	owner := a.client()
	owner.signInAdmin()
	adminID := a.idOf("admin")
	owners := func() int {
		var n int
		if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM users WHERE role = 'owner'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{"/admin/staff/" + adminID + "/role", url.Values{"role": {"manager"}}},
		{"/admin/staff/" + adminID + "/remove", nil},
	} {
		res := owner.Post(tc.path, tc.form)
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "last owner") {
			t.Errorf("%s: %d, want 422 saying why", tc.path, res.Status)
		}
	}
	if res := owner.Post("/admin/staff/"+adminID+"/role", url.Values{"role": {"king"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("a role nobody has: %d", res.Status)
	}
	if owners() != 1 {
		t.Fatalf("%d owners", owners())
	}
	if res := owner.Post("/admin/staff/999999/role", url.Values{"role": {"manager"}}); res.Status != http.StatusNotFound {
		t.Errorf("no such member: %d", res.Status)
	}

	for round := range 5 {
		name := "olga" + itoa(int64(round))
		olga := a.staffMember(name, "owner")
		olgaID := a.idOf(name)
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for i, step := range []struct {
			c  *client
			id string
		}{{owner, olgaID}, {olga, adminID}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = step.c.Post("/admin/staff/"+step.id+"/role", url.Values{"role": {"support"}}).Status
			}()
		}
		wg.Wait()
		if n := owners(); n != 1 {
			t.Fatalf("round %d: %d owners after both demoted each other (%v)", round, n, codes)
		}
		if codes[0] != http.StatusSeeOther && codes[1] != http.StatusSeeOther {
			t.Fatalf("round %d: neither demotion went through: %v", round, codes)
		}
		// Whoever stayed owner carries on as the owner of the next round.
		if codes[1] == http.StatusSeeOther {
			owner, adminID = olga, olgaID
		}
	}
}
