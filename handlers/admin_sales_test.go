package handlers_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/store/sales"
	"storefront/views"
)

// salesBySQL is a period's orders and revenue computed straight from the
// orders table: every order placed since, cancelled ones excluded.
func (a *app) salesBySQL(t *testing.T, since time.Time) (orders, cents int64) {
	t.Helper()
	err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*), COALESCE(SUM(total_cents), 0) FROM orders
		WHERE status <> 'cancelled' AND created_at >= $1`, since.Unix()).Scan(&orders, &cents)
	if err != nil {
		t.Fatal(err)
	}
	return orders, cents
}

// backdate moves an order's placing time days back.
func (a *app) backdate(t *testing.T, id int64, days int) {
	t.Helper()
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE orders SET created_at = created_at - $1 WHERE id = $2`, int64(days)*86400, id); err != nil {
		t.Fatal(err)
	}
}

// periodAttr reads an int64 data attribute of the hook of one period.
func periodAttr(t *testing.T, body, hook, period, attr string) int64 {
	t.Helper()
	periods, vals := testids(body, hook, "data-period"), testids(body, hook, attr)
	for i, p := range periods {
		if p == period && i < len(vals) {
			n, err := strconv.ParseInt(vals[i], 10, 64)
			if err != nil {
				t.Fatalf("%s %s: %q", hook, attr, vals[i])
			}
			return n
		}
	}
	t.Fatalf("no %s for %s", hook, period)
	return 0
}

// TestSalesPage: revenue, orders, average order value, conversion and
// refunds of today, 7 and 30 days equal what SQL says of the orders the
// test placed (a cancelled one left out, others moved back in time), and
// what the test itself added up; the best sellers, the chart's bars and
// the low-stock list follow; the page is linked from the dashboard and
// only the admin sees it.
func TestSalesPage(t *testing.T) {
	a := newApp(t, nil, nil)
	if _, err := a.store.DB().ExecContext(t.Context(), `UPDATE items SET stock = 50`); err != nil {
		t.Fatal(err)
	}
	shopper := a.client()
	shopper.Register("salesy")
	total := func(id int64) int64 { return a.orderTotal(t, itoa(id)) }
	today1 := shopper.orderFor("salesy", 5, 3)
	today2 := shopper.orderFor("salesy", 6, 1)
	cancelled := shopper.orderFor("salesy", 5, 4)
	days3 := shopper.orderFor("salesy", 8, 2)
	days20 := shopper.orderFor("salesy", 6, 1)
	days40 := shopper.orderFor("salesy", 6, 5)
	a.backdate(t, days3, 3)
	a.backdate(t, days20, 20)
	a.backdate(t, days40, 40)
	admin := a.client()
	admin.signInAdmin()
	admin.MustPost("/admin/orders/"+itoa(cancelled)+"/status", map[string][]string{"status": {"cancelled"}}, http.StatusSeeOther)
	a.setStock(9, 2)
	a.setStock(10, 0)
	a.setStock(11, 1)
	admin.MustPost("/admin/items/11/archive", nil, http.StatusSeeOther)

	// A refund made today of a 3-day-old order counts today, by when it
	// was made.
	if _, err := a.store.Orders.RefundOrder(t.Context(), days3, 150, "admin:test"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(admin.Get("/admin").Body, `href="/admin/sales"`) {
		t.Error("the dashboard does not link to the sales page")
	}
	want := map[sales.Period][2]int64{ // orders, revenue, added up here
		sales.Today: {2, total(today1) + total(today2)},
		sales.Week:  {3, total(today1) + total(today2) + total(days3)},
		sales.Month: {4, total(today1) + total(today2) + total(days3) + total(days20)},
	}
	var page string
	for attempt := 0; ; attempt++ {
		before := time.Now()
		page = admin.MustGet("/admin/sales", http.StatusOK).Body
		if sales.Today.Since(before) == sales.Today.Since(time.Now()) || attempt == 2 {
			break // else midnight (UTC) passed while the page was read: read it again
		}
	}
	now := time.Now()
	for _, p := range sales.Periods {
		n, cents := a.salesBySQL(t, p.Since(now))
		if n != want[p][0] || cents != want[p][1] {
			t.Fatalf("%s: SQL says %d orders, %d cents; the test placed %v", p, n, cents, want[p])
		}
		if got := periodAttr(t, page, "sales-orders", string(p), "data-count"); got != n {
			t.Errorf("%s: sales-orders %d, SQL %d", p, got, n)
		}
		if got := periodAttr(t, page, "sales-revenue", string(p), "data-cents"); got != cents {
			t.Errorf("%s: sales-revenue %d, SQL %d", p, got, cents)
		}
		if got, avg := periodAttr(t, page, "sales-average", string(p), "data-cents"), (2*cents+n)/(2*n); got != avg {
			t.Errorf("%s: average %d, want %d", p, got, avg)
		}
		sessions := periodAttr(t, page, "sales-sessions", string(p), "data-count")
		if sessions < 2 { // the shopper's and the admin's at least
			t.Errorf("%s: %d sessions", p, sessions)
		}
		if conv := textOf(rowOf(t, page, string(p)), "sales-conversion"); conv != views.Percent(float64(n)/float64(sessions)) {
			t.Errorf("%s: conversion %q for %d orders and %d sessions", p, conv, n, sessions)
		}
		var refunded int64
		if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COALESCE(SUM(cents), 0) FROM order_refunds WHERE status = 'done' AND at >= $1`,
			p.Since(now).Unix()).Scan(&refunded); err != nil {
			t.Fatal(err)
		}
		if got := periodAttr(t, page, "sales-refunds", string(p), "data-cents"); got != refunded || refunded != 150 {
			t.Errorf("%s: refunds %d, SQL %d, the test refunded 150", p, got, refunded)
		}
	}
	// The best sellers of the week: item 5's 3 units (not its cancelled 4).
	if top := listAttrs(page, "top-sellers", "data-item-id", "data-units"); len(top) != 3 || top[0] != "5:3" {
		t.Errorf("best sellers %v", top)
	}
	// One bar a day, adding up to the week's revenue.
	if bars, sum := chartBars(t, page); bars != 7 || sum != want[sales.Week][1] {
		t.Errorf("7 days: %d bars adding up to %d", bars, sum)
	}
	for p, n := range map[string]int{"today": 24, "30d": 30} {
		body := admin.MustGet("/admin/sales?period="+p, http.StatusOK).Body
		if bars, sum := chartBars(t, body); bars != n || sum != want[sales.Period(p)][1] {
			t.Errorf("%s: %d bars adding up to %d", p, bars, sum)
		}
	}
	// Low stock: on sale with at most 5 left, fewest first.
	if low := testids(page, "low-stock", "data-item-id"); strings.Join(low, ",") != "10,9" {
		t.Errorf("low stock %v, want 10,9", low)
	}

	if res := admin.Get("/admin/sales?period=year"); res.Status != http.StatusBadRequest {
		t.Errorf("unknown period: %d", res.Status)
	}
	if res := shopper.Get("/admin/sales"); res.Status != http.StatusForbidden {
		t.Errorf("a shopper on the sales page: %d", res.Status)
	}
}

// rowOf is the summary row of one period.
func rowOf(t *testing.T, body, period string) string {
	t.Helper()
	i := strings.Index(body, `<tr data-period="`+period+`"`)
	if i < 0 {
		t.Fatalf("no row for %s", period)
	}
	row := body[i:]
	return row[:strings.Index(row, "</tr>")]
}

// listAttrs reads two attributes of the children of the list hook.
func listAttrs(body, hook, a1, a2 string) []string {
	i := strings.Index(body, `data-testid="`+hook+`"`)
	if i < 0 {
		return nil
	}
	list := body[i:]
	list = list[:strings.Index(list, "</ol>")]
	var out []string
	for _, li := range strings.Split(list, "<li ")[1:] {
		tag := " " + li[:strings.Index(li, ">")]
		out = append(out, attrOf(tag, a1)+":"+attrOf(tag, a2))
	}
	return out
}

// chartBars counts the sales chart's bars and adds up their takings.
func chartBars(t *testing.T, body string) (int, int64) {
	t.Helper()
	var n int
	var sum int64
	for _, part := range strings.Split(body, `<rect class="chart-bar"`)[1:] {
		c, err := strconv.ParseInt(attrOf(part[:strings.Index(part, ">")], "data-cents"), 10, 64)
		if err != nil {
			t.Fatalf("bar: %v", err)
		}
		n++
		sum += c
	}
	return n, sum
}
