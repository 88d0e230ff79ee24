package sales

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"storefront/store/platform"
)

// Visitors counts the sessions seen since a time.
type Visitors interface {
	SeenSince(ctx context.Context, since time.Time) (int64, error)
}

// Service reads the sales numbers.
type Service struct {
	db       *sql.DB
	clock    *platform.Clock
	visitors Visitors
}

// New returns the sales reports over the shared base.
func New(b platform.Base, v Visitors) *Service {
	return &Service{db: b.DB, clock: b.Clock, visitors: v}
}

// NotSold is the SQL condition of an order that is no sale: cancelled, or
// placed with a card and not paid yet.
const NotSold = `o.status IN ('cancelled', 'awaiting_payment')`

// Period is a span the sales page reports on.
type Period string

// The periods, each ending now and starting at a UTC midnight.
const (
	Today   Period = "today"
	Week    Period = "7d"
	Month   Period = "30d"
	LowAt          = 5  // an item on sale with at most this many left is low on stock
	topSize        = 10 // best sellers shown
	lowSize        = 20 // low-stock items shown
)

// Periods are the periods in the order the page shows them.
var Periods = []Period{Today, Week, Month}

// Valid reports whether p is one of Periods.
func (p Period) Valid() bool { return p == Today || p == Week || p == Month }

// Days is how many calendar days (UTC) the period spans, today included.
func (p Period) Days() int {
	switch p {
	case Week:
		return 7
	case Month:
		return 30
	}
	return 1
}

// Since is the period's first instant: the UTC midnight Days()-1 days
// before now's.
func (p Period) Since(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d-(p.Days()-1), 0, 0, 0, 0, time.UTC)
}

// Summary is a period's totals.
type Summary struct {
	Period       Period
	Since        time.Time
	RevenueCents int64
	Orders       int64
	// AverageCents is RevenueCents / Orders, rounded half up; 0 without orders.
	AverageCents int64
	Sessions     int64
	RefundCents  int64
}

// Conversion is orders per session seen, 0 without sessions.
func (s Summary) Conversion() float64 {
	if s.Sessions == 0 {
		return 0
	}
	return float64(s.Orders) / float64(s.Sessions)
}

// Summary reads a period's totals.
func (s *Service) Summary(ctx context.Context, p Period) (Summary, error) {
	since := p.Since(s.clock.Now())
	sum := Summary{Period: p, Since: since}
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(o.total_cents), 0) FROM orders o
		WHERE o.created_at >= $1 AND NOT `+NotSold, since.Unix()).Scan(&sum.Orders, &sum.RevenueCents)
	if err != nil {
		return Summary{}, fmt.Errorf("sales %s: %w", p, err)
	}
	if sum.Orders > 0 {
		sum.AverageCents = (2*sum.RevenueCents + sum.Orders) / (2 * sum.Orders)
	}
	if sum.Sessions, err = s.visitors.SeenSince(ctx, since); err != nil {
		return Summary{}, fmt.Errorf("sales %s: %w", p, err)
	}
	if sum.RefundCents, err = s.refunds(ctx, since); err != nil {
		return Summary{}, fmt.Errorf("sales %s: %w", p, err)
	}
	return sum, nil
}

// refunds is what was given back since: the refunds done (a refund
// still with its payment provider is not money back yet).
func (s *Service) refunds(ctx context.Context, since time.Time) (int64, error) {
	var cents int64
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(cents), 0) FROM order_refunds WHERE status = 'done' AND at >= $1`,
		since.Unix()).Scan(&cents)
	if err != nil {
		return 0, fmt.Errorf("sales: refunds: %w", err)
	}
	return cents, nil
}
