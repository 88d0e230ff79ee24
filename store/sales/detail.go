package sales

import (
	"context"
	"fmt"
	"time"

	"storefront/store/catalog"
)

// Seller is an item's sales in a period.
type Seller struct {
	ItemID       int64
	Name         string // as last sold
	Units        int64
	RevenueCents int64 // its lines' value, without delivery
}

// TopSellers returns the period's best sellers by units, then revenue.
func (s *Service) TopSellers(ctx context.Context, p Period) ([]Seller, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT l.item_id, MAX(l.name), SUM(l.qty), SUM(l.qty * l.price_cents)
		FROM order_lines l JOIN orders o ON o.id = l.order_id
		WHERE o.created_at >= $1 AND NOT `+NotSold+`
		GROUP BY l.item_id ORDER BY SUM(l.qty) DESC, SUM(l.qty * l.price_cents) DESC, l.item_id LIMIT $2`,
		p.Since(s.clock.Now()).Unix(), topSize)
	if err != nil {
		return nil, fmt.Errorf("top sellers: %w", err)
	}
	defer rows.Close()
	var out []Seller
	for rows.Next() {
		var x Seller
		if err := rows.Scan(&x.ItemID, &x.Name, &x.Units, &x.RevenueCents); err != nil {
			return nil, fmt.Errorf("top sellers: %w", err)
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// Bucket is the takings of one hour (today) or one day (7 and 30 days).
type Bucket struct {
	Start        time.Time
	RevenueCents int64
	Orders       int64
}

// Buckets returns the period's takings hour by hour (today) or day by
// day, every bucket present, oldest first.
func (s *Service) Buckets(ctx context.Context, p Period) ([]Bucket, error) {
	since := p.Since(s.clock.Now())
	width, n := int64(86400), p.Days()
	if p == Today {
		width, n = 3600, 24
	}
	out := make([]Bucket, n)
	for i := range out {
		out[i].Start = since.Add(time.Duration(int64(i)*width) * time.Second)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT (o.created_at - $1) / $2, COUNT(*), SUM(o.total_cents) FROM orders o
		WHERE o.created_at >= $1 AND NOT `+NotSold+` GROUP BY 1`, since.Unix(), width)
	if err != nil {
		return nil, fmt.Errorf("sales buckets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var i, orders, cents int64
		if err := rows.Scan(&i, &orders, &cents); err != nil {
			return nil, fmt.Errorf("sales buckets: %w", err)
		}
		if i >= 0 && i < int64(n) { // an order stamped after now (a clock step) is left out
			out[i].Orders, out[i].RevenueCents = orders, cents
		}
	}
	return out, rows.Err()
}

// LowItem is an item on sale running out.
type LowItem struct {
	ItemID int64
	Name   string
	Stock  int64
}

// LowStock returns the items on sale with at most LowAt left, fewest
// first (sold out ones first of all).
func (s *Service) LowStock(ctx context.Context) ([]LowItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, stock FROM items WHERE `+catalog.OnSale+` AND stock <= $1
		ORDER BY stock, id LIMIT $2`, LowAt, lowSize)
	if err != nil {
		return nil, fmt.Errorf("low stock: %w", err)
	}
	defer rows.Close()
	var out []LowItem
	for rows.Next() {
		var x LowItem
		if err := rows.Scan(&x.ItemID, &x.Name, &x.Stock); err != nil {
			return nil, fmt.Errorf("low stock: %w", err)
		}
		out = append(out, x)
	}
	return out, rows.Err()
}
