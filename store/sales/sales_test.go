package sales_test

import (
	"testing"
	"time"

	"storefront/store/sales"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// TestPeriodEdges: a period starts at a UTC midnight and includes it; an
// order one second earlier belongs to the longer periods only; cancelled
// and unpaid card orders never count; the buckets add up to the summary,
// each order in its hour or day; sessions are counted by their last visit.
func TestPeriodEdges(t *testing.T) {
	st := wiringtest.New(t)
	now := time.Date(2026, 3, 10, 10, 30, 0, 0, time.UTC)
	st.SetClock(func() time.Time { return now })
	ctx := t.Context()
	midnight := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	for i, o := range []struct {
		at     time.Time
		status string
		cents  int64
	}{
		{midnight, "pending", 1000},                            // today, first hour
		{midnight.Add(-time.Second), "paid", 2000},             // yesterday: 7d and 30d
		{now.Add(-time.Minute), "delivered", 4000},             // today, 10:00
		{midnight.AddDate(0, 0, -6), "shipped", 8000},          // the 7 days' first instant
		{midnight.AddDate(0, 0, -6).Add(-1), "shipped", 16000}, // 30d only
		{midnight.AddDate(0, 0, -29), "paid", 32000},           // the 30 days' first instant
		{midnight.AddDate(0, 0, -30), "paid", 64000},           // too old
		{now.Add(-time.Hour), "cancelled", 128000},             // never counts
		{now.Add(-time.Hour), "awaiting_payment", 256000},      // never counts
	} {
		if _, err := st.DB().ExecContext(ctx, `INSERT INTO orders (id, user_id, status, total_cents, created_at) VALUES ($1, 0, $2, $3, $4)`,
			i+1, o.status, o.cents, o.at.Unix()); err != nil {
			t.Fatal(err)
		}
	}
	st.SetClock(func() time.Time { return now.Add(-3 * 24 * time.Hour) })
	if err := st.Sessions.CreateSession(ctx, "token-old", 0); err != nil {
		t.Fatal(err)
	}
	st.SetClock(func() time.Time { return now })
	for _, tok := range []string{"token-a", "token-b"} {
		if err := st.Sessions.CreateSession(ctx, tok, 0); err != nil {
			t.Fatal(err)
		}
	}
	want := map[sales.Period]struct{ orders, cents, sessions int64 }{
		sales.Today: {2, 5000, 2},
		sales.Week:  {4, 15000, 3},
		sales.Month: {6, 63000, 3},
	}
	for _, p := range sales.Periods {
		s, err := st.Sales.Summary(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		w := want[p]
		if s.Orders != w.orders || s.RevenueCents != w.cents || s.Sessions != w.sessions || s.RefundCents != 0 {
			t.Errorf("%s: %d orders, %d cents, %d sessions; want %+v", p, s.Orders, s.RevenueCents, s.Sessions, w)
		}
		if s.AverageCents != (2*w.cents+w.orders)/(2*w.orders) {
			t.Errorf("%s: average %d", p, s.AverageCents)
		}
		buckets, err := st.Sales.Buckets(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var sum, n int64
		for _, b := range buckets {
			sum, n = sum+b.RevenueCents, n+b.Orders
		}
		if sum != w.cents || n != w.orders {
			t.Errorf("%s: buckets add up to %d cents, %d orders", p, sum, n)
		}
		if !buckets[0].Start.Equal(p.Since(now)) {
			t.Errorf("%s: first bucket at %v", p, buckets[0].Start)
		}
	}
	today, err := st.Sales.Buckets(ctx, sales.Today)
	if err != nil {
		t.Fatal(err)
	}
	if len(today) != 24 || today[0].RevenueCents != 1000 || today[10].RevenueCents != 4000 {
		t.Errorf("today's hours: %d buckets, 00:00 %d, 10:00 %d", len(today), today[0].RevenueCents, today[10].RevenueCents)
	}
	week, err := st.Sales.Buckets(ctx, sales.Week)
	if err != nil {
		t.Fatal(err)
	}
	if len(week) != 7 || week[0].RevenueCents != 8000 || week[5].RevenueCents != 2000 || week[6].RevenueCents != 5000 {
		t.Errorf("the week's days: %+v", week)
	}
}
