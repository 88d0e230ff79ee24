package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"storefront/store/cart"
	"storefront/store/orders"
)

// orderFor places an order of qty of item for a signed-in client, through
// the cart and the store's checkout, and returns its id.
func (c *client) orderFor(name string, item int64, qty int) int64 {
	c.a.t.Helper()
	if res := c.setQty(itoa(item), itoa(int64(qty))); res.Status != http.StatusSeeOther {
		c.a.t.Fatalf("add to cart: %d %.200s", res.Status, res.Body)
	}
	o, err := c.checkoutAs(name)
	if err != nil {
		c.a.t.Fatalf("checkout: %v", err)
	}
	return o.ID
}

// checkoutAs checks out the client's cart through the store, as the
// signed-in account name (the one place these tests call the checkout).
func (c *client) checkoutAs(name string) (orders.Order, error) {
	u, err := c.a.store.Sessions.UserByName(context.WithoutCancel(c.a.t.Context()), name)
	if err != nil {
		return orders.Order{}, err
	}
	return c.a.store.Orders.Checkout(context.WithoutCancel(c.a.t.Context()), orders.CheckoutRequest{Cart: cart.Owner{UserID: u.ID, Token: c.Cookie("sid")},
		Shipping: orders.ShippingStandard, Payment: orders.PayInvoice, ExpectTotal: -1, Address: orders.Address{Name: "Ada Lovelace", Line1: "1 Main Street", City: "London", Postcode: "N1 1AA", Country: "GB"}})
}

func (a *app) orderStatus(id int64) string {
	a.t.Helper()
	var s string
	if err := a.store.DB().QueryRowContext(a.t.Context(), `SELECT status FROM orders WHERE id = $1`, id).Scan(&s); err != nil {
		a.t.Fatal(err)
	}
	return s
}

func (a *app) orderEvents(id int64) []string {
	a.t.Helper()
	rows, err := a.store.DB().QueryContext(a.t.Context(), `SELECT status FROM order_events WHERE order_id = $1 ORDER BY id`, id)
	if err != nil {
		a.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			a.t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestOrderLifecycleThroughAdmin drives an order along its whole path:
// the worker processes it, the admin moves it forward (each move on the
// admin list, the timeline and the shopper's notifications), and every
// backward, repeated or unknown move is a 422 that changes nothing.
func TestOrderLifecycleThroughAdmin(t *testing.T) {
	a, logs := newLoggedApp(t)
	a.setStock(5, 10)
	shopper := a.client()
	shopper.Register("olga")
	id := shopper.orderFor("olga", 5, 2)
	if a.orderStatus(id) != orders.OrderPending || a.stockOf(5) != 8 {
		t.Fatalf("placed: %s, stock %d", a.orderStatus(id), a.stockOf(5))
	}
	a.fulfil()
	if got := a.orderStatus(id); got != orders.OrderProcessed {
		t.Fatalf("after the worker: %s", got)
	}
	admin := a.client()
	admin.signInAdmin()

	list := admin.Get("/admin/orders?status=processed")
	if list.Status != http.StatusOK {
		t.Fatalf("admin orders: %d", list.Status)
	}
	if ids, st := testids(list.Body, "admin-order-row", "data-order-id"), testids(list.Body, "admin-order-row", "data-status"); len(ids) != 1 || ids[0] != itoa(id) || st[0] != "processed" {
		t.Fatalf("processed orders %v %v", ids, st)
	}
	if ids := testids(admin.Get("/admin/orders?status=paid").Body, "admin-order-row", "data-order-id"); len(ids) != 0 {
		t.Fatalf("paid orders before the move: %v", ids)
	}

	for _, to := range []string{"paid", "shipped"} {
		res := admin.Post("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {to}, "tracking": {"TRACK-1"}})
		if res.Status != http.StatusSeeOther || a.orderStatus(id) != to {
			t.Fatalf("move to %s: %d, now %s", to, res.Status, a.orderStatus(id))
		}
	}
	// Refused: backward, to the same status, unknown, a cancel after shipping.
	for _, to := range []string{"paid", "shipped", "processed", "pending", "lost", "", "cancelled"} {
		res := admin.Post("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {to}})
		if res.Status != http.StatusUnprocessableEntity {
			t.Errorf("move shipped -> %q: %d, want 422", to, res.Status)
		}
		if a.orderStatus(id) != "shipped" {
			t.Fatalf("a refused move changed the order to %s", a.orderStatus(id))
		}
	}
	if res := shopper.Post("/orders/"+itoa(id)+"/cancel", nil); res.Status != http.StatusUnprocessableEntity || a.stockOf(5) != 8 {
		t.Fatalf("shopper cancel after shipping: %d, stock %d", res.Status, a.stockOf(5))
	}
	if res := admin.Post("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"delivered"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("deliver: %d", res.Status)
	}
	if res := admin.Post("/admin/orders/999999/status", url.Values{"status": {"paid"}}); res.Status != http.StatusNotFound {
		t.Errorf("missing order: %d", res.Status)
	}
	// Only the admin moves orders.
	if res := shopper.Post("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {"paid"}}); res.Status != http.StatusForbidden {
		t.Errorf("shopper moving an order: %d", res.Status)
	}

	if got := strings.Join(a.orderEvents(id), ","); got != "processed,paid,shipped,delivered" {
		t.Errorf("events %s", got)
	}
	// The shopper's page: status and the whole timeline.
	page := shopper.Get("/orders/" + itoa(id))
	if got := testids(page.Body, "order-status", "data-status"); len(got) != 1 || got[0] != "delivered" {
		t.Errorf("order-status %v", got)
	}
	if strings.Contains(page.Body, `data-testid="cancel-order"`) {
		t.Error("a delivered order offers to cancel")
	}
	i := strings.Index(page.Body, `data-testid="order-timeline"`)
	if i < 0 {
		t.Fatal("no order-timeline")
	}
	tl := page.Body[i:]
	tl = tl[:strings.Index(tl, "</ol>")]
	var steps []string
	for _, s := range []string{"pending", "processed", "paid", "shipped", "delivered"} {
		if strings.Contains(tl, `data-status="`+s+`"`) {
			steps = append(steps, s)
		}
	}
	if len(steps) != 5 {
		t.Errorf("timeline shows %v", steps)
	}
	// The admin opens the shopper's order; another shopper gets a 404.
	if res := admin.Get("/orders/" + itoa(id)); res.Status != http.StatusOK || !strings.Contains(res.Body, "olga") {
		t.Errorf("admin on the shopper's order: %d", res.Status)
	}
	other := a.client()
	other.Register("peeky")
	if res := other.Get("/orders/" + itoa(id)); res.Status != http.StatusNotFound {
		t.Errorf("another shopper on the order: %d", res.Status)
	}
	// Every change reached the shopper's notifications.
	notes := shopper.Get("/notifications")
	if kinds := testids(notes.Body, "notification", "data-kind"); strings.Count(strings.Join(kinds, ","), "order") != 4 {
		t.Errorf("notifications %v, want 4 order notes", kinds)
	}
	// One audit line per admin move that applied.
	moves := 0
	for _, rec := range logs.lines("admin action") {
		if rec["action"] == "move order" && rec["target"] == "order "+itoa(id) {
			moves++
		}
	}
	if moves != 3 {
		t.Errorf("%d audit lines for moves, want 3", moves)
	}
	if res := admin.Get("/admin/orders?status=nonsense"); res.Status != http.StatusBadRequest {
		t.Errorf("unknown status filter: %d", res.Status)
	}
	if res := admin.Get("/admin/orders?page=0"); res.Status != http.StatusBadRequest {
		t.Errorf("page 0: %d", res.Status)
	}
}

// TestShopperCancelReturnsStock: the shopper cancels until it ships; the
// stock comes back once, a second cancel is a 422, someone else's order a
// 404, and the item's cached page is purged (it shows the new stock).
func TestShopperCancelReturnsStock(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(9, 4)
	shopper := a.client()
	shopper.Register("cara")
	before := shopper.Get("/items/9") // cached
	if textOf(before.Body, "item-stock") == "" {
		t.Fatal("no stock on the item page")
	}
	id := shopper.orderFor("cara", 9, 3)
	if a.stockOf(9) != 1 {
		t.Fatalf("stock after order %d", a.stockOf(9))
	}
	other := a.client()
	other.Register("mallory")
	if res := other.Post("/orders/"+itoa(id)+"/cancel", nil); res.Status != http.StatusNotFound || a.orderStatus(id) != "pending" {
		t.Fatalf("another shopper's cancel: %d", res.Status)
	}
	if res := shopper.Get("/orders/" + itoa(id)); !strings.Contains(res.Body, `data-testid="cancel-order"`) {
		t.Fatal("a pending order offers no cancel")
	}
	res := shopper.Post("/orders/"+itoa(id)+"/cancel", nil)
	if res.Status != http.StatusSeeOther || a.orderStatus(id) != "cancelled" || a.stockOf(9) != 4 {
		t.Fatalf("cancel: %d, status %s, stock %d", res.Status, a.orderStatus(id), a.stockOf(9))
	}
	if res := shopper.Post("/orders/"+itoa(id)+"/cancel", nil); res.Status != http.StatusUnprocessableEntity || a.stockOf(9) != 4 {
		t.Fatalf("second cancel: %d, stock %d", res.Status, a.stockOf(9))
	}
	// The worker comes late: a cancelled order stays cancelled.
	a.fulfil()
	if a.orderStatus(id) != "cancelled" {
		t.Fatalf("the worker moved a cancelled order to %s", a.orderStatus(id))
	}
	if got := textOf(shopper.Get("/items/9").Body, "item-stock"); !strings.Contains(got, "4") {
		t.Errorf("item page stock after the cancel %q", got)
	}
	if got := strings.Join(a.orderEvents(id), ","); got != "cancelled" {
		t.Errorf("events %s", got)
	}
}

// TestTwoAdminsMoveOneOrderAtOnce: two admins send the same move for one
// order many times at once; exactly one applies, the rest are 422, and a
// cancel returns the stock once.
func TestTwoAdminsMoveOneOrderAtOnce(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(11, 50)
	shopper := a.client()
	shopper.Register("race")
	admins := []*client{a.client(), a.client()}
	for _, ad := range admins {
		ad.signInAdmin()
	}
	for round := 0; round < 5; round++ {
		id := shopper.orderFor("race", 11, 2)
		stock := a.stockOf(11)
		var wg sync.WaitGroup
		codes := make(chan int, 8)
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				to := []string{"cancelled", "paid"}[round%2]
				codes <- admins[i%2].Post("/admin/orders/"+itoa(id)+"/status", url.Values{"status": {to}}).Status
			}(i)
		}
		wg.Wait()
		close(codes)
		won, refused := 0, 0
		for c := range codes {
			switch c {
			case http.StatusSeeOther:
				won++
			case http.StatusUnprocessableEntity:
				refused++
			default:
				t.Fatalf("unexpected status %d", c)
			}
		}
		st := a.orderStatus(id)
		events := a.orderEvents(id)
		if won != 1 || refused != 7 || len(events) != 1 || events[0] != st {
			t.Fatalf("round %d: %d won, %d refused, events %v, status %s", round, won, refused, events, st)
		}
		want := stock
		if st == "cancelled" {
			want = stock + 2
		}
		if got := a.stockOf(11); got != want {
			t.Fatalf("round %d: status %s, stock %d, want %d", round, st, got, want)
		}
	}
}

// TestAdminOrderSearch: /admin/orders?q= finds orders by number (with or
// without #), by the shopper's or the delivery name, or by email
// (case-insensitive, any part), combined with the status filter and
// paging; the query stays in the search field, the status links and the
// pager's links. A guest's order reads "(guest, email)" in the admin's
// breadcrumb.
func TestAdminOrderSearch(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(5, 100)
	place := func(c *client, name, email string) int64 {
		t.Helper()
		c.setQty("5", "1")
		res := c.checkout(func(f url.Values) {
			f.Set("name", name)
			if email != "" {
				f.Set("email", email)
			}
		})
		if res.Status != http.StatusSeeOther {
			t.Fatalf("checkout for %s: %d %.300s", name, res.Status, res.Body)
		}
		return int64(a.orderCount())
	}
	olga := a.client()
	olga.Register("olga")
	byOlga := place(olga, "Olga Petrova", "")
	byAda := place(a.client(), "Ada Lovelace", "Ada.King@Example.com")
	bob := a.client()
	bob.Register("bobby")
	byBob := place(bob, "Robert Smith", "")
	admin := a.client()
	admin.signInAdmin()
	admin.MustPost("/admin/orders/"+itoa(byBob)+"/status", url.Values{"status": {"cancelled"}}, http.StatusSeeOther)

	find := func(query string) []string {
		t.Helper()
		return testids(admin.MustGet("/admin/orders?"+query, http.StatusOK).Body, "admin-order-row", "data-order-id")
	}
	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{"q=" + url.QueryEscape("#"+itoa(byAda)), []int64{byAda}},
		{"q=" + itoa(byAda), []int64{byAda}},
		{"q=%20" + itoa(byOlga) + "%20", []int64{byOlga}},
		{"q=ada", []int64{byAda}},
		{"q=LOVELACE", []int64{byAda}},
		{"q=example.COM", []int64{byAda}},
		{"q=king%40", []int64{byAda}},
		{"q=olga", []int64{byOlga}},   // the account's name
		{"q=petrov", []int64{byOlga}}, // the delivery name
		{"q=bobby", []int64{byBob}},
		{"q=o", []int64{byBob, byAda, byOlga}},
		{"q=o&status=cancelled", []int64{byBob}},
		{"q=o&status=pending", []int64{byAda, byOlga}},
		{"q=nobody", nil},
		{"q=%25", nil},
		{"q=_", nil},
		{"q=%23999999", nil},
		{"q=", []int64{byBob, byAda, byOlga}},
	} {
		var want []string
		for _, id := range tc.want {
			want = append(want, itoa(id))
		}
		if got := find(tc.query); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: orders %v, want %v", tc.query, got, want)
		}
	}
	if res := admin.Get("/admin/orders?q=" + strings.Repeat("x", 201)); res.Status != http.StatusBadRequest {
		t.Errorf("a query over 200 characters: %d", res.Status)
	}

	// Many matches: the pager's links keep the query and the status.
	for i := 0; i < 55; i++ {
		if _, err := a.store.DB().ExecContext(t.Context(), `INSERT INTO orders (user_id, status, total_cents, created_at, email, ship_name)
			VALUES (0, 'pending', 100, 1, 'bulk@example.com', 'Bulk Buyer')`); err != nil {
			t.Fatal(err)
		}
	}
	page := admin.MustGet("/admin/orders?q=Bulk&status=pending", http.StatusOK).Body
	if got := len(testids(page, "admin-order-row", "data-order-id")); got != 50 {
		t.Errorf("first page of 55 matches: %d rows", got)
	}
	if !strings.Contains(page, `name="q" type="search" value="Bulk"`) && !strings.Contains(page, `value="Bulk"`) {
		t.Error("the search field lost the query")
	}
	next := regexp.MustCompile(`<a href="([^"]*)" rel="next"`).FindStringSubmatch(page)
	if next == nil || !strings.Contains(next[1], "q=Bulk") || !strings.Contains(next[1], "status=pending") || !strings.Contains(next[1], "page=2") {
		t.Fatalf("the next-page link %v does not keep the query", next)
	}
	if got := len(testids(admin.MustGet(strings.ReplaceAll(next[1], "&amp;", "&"), http.StatusOK).Body, "admin-order-row", "data-order-id")); got != 5 {
		t.Errorf("second page: %d rows, want 5", got)
	}
	for _, link := range regexp.MustCompile(`href="(/admin/orders\?status=[^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.Contains(link[1], "q=Bulk") {
			t.Errorf("status link %s drops the query", link[1])
		}
	}

	// A guest's order in the admin's breadcrumb and list.
	guest := admin.MustGet("/orders/"+itoa(byAda), http.StatusOK).Body
	crumb := regexp.MustCompile(`(?s)<nav class="breadcrumb"[^>]*>(.*?)</nav>`).FindStringSubmatch(guest)
	if crumb == nil || !strings.Contains(crumb[1], "Order #"+itoa(byAda)+" (guest, Ada.King@Example.com)") {
		t.Errorf("guest order breadcrumb %v", crumb)
	}
	member := admin.MustGet("/orders/"+itoa(byOlga), http.StatusOK).Body
	if crumb := regexp.MustCompile(`(?s)<nav class="breadcrumb"[^>]*>(.*?)</nav>`).FindStringSubmatch(member); crumb == nil || !strings.Contains(crumb[1], "Order #"+itoa(byOlga)+" of olga") {
		t.Errorf("member order breadcrumb %v", crumb)
	}
	row := regexp.MustCompile(`(?s)<tr data-testid="admin-order-row" data-order-id="` + itoa(byAda) + `".*?</tr>`).FindString(admin.MustGet("/admin/orders?q=ada", http.StatusOK).Body)
	if !strings.Contains(row, "Ada.King@Example.com") || !strings.Contains(row, "Ada Lovelace") {
		t.Errorf("the guest's row does not name the guest: %s", row)
	}
}
