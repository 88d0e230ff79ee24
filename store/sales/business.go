package sales

import (
	"context"
	"fmt"
	"strings"

	"storefront/store/catalog"
)

// ToFulfil are the orders the shop still has to send: paid or processed,
// not yet shipped (nor cancelled).
const toFulfil = `status IN ('paid', 'processed')`

// FulfilOrder is an order waiting to be sent, oldest first.
type FulfilOrder struct {
	ID         int64
	Status     string
	TotalCents int64
	Currency   string
	Items      int64
	CreatedAt  int64 // unix seconds
}

// ToFulfil counts the orders to send and returns the oldest limit of them.
func (s *Service) ToFulfil(ctx context.Context, limit int) (int, []FulfilOrder, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE `+toFulfil).Scan(&n); err != nil {
		return 0, nil, fmt.Errorf("orders to fulfil: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT o.id, o.status, o.total_cents, o.currency, o.created_at,
		(SELECT COALESCE(SUM(l.qty), 0) FROM order_lines l WHERE l.order_id = o.id)
		FROM orders o WHERE o.`+toFulfil+` ORDER BY o.id LIMIT $1`, limit)
	if err != nil {
		return 0, nil, fmt.Errorf("orders to fulfil: %w", err)
	}
	defer rows.Close()
	var out []FulfilOrder
	for rows.Next() {
		var o FulfilOrder
		if err := rows.Scan(&o.ID, &o.Status, &o.TotalCents, &o.Currency, &o.CreatedAt, &o.Items); err != nil {
			return 0, nil, fmt.Errorf("orders to fulfil: %w", err)
		}
		out = append(out, o)
	}
	return n, out, rows.Err()
}

// LowVariant is what runs low: an item without options, or one variant
// of an item with options (Variant names its options, SKU is its own).
type LowVariant struct {
	ItemID    int64
	VariantID int64 // 0 for an item without options
	Name      string
	Variant   string // "M / Red", "" for an item without options
	SKU       string
	Stock     int64
}

// LowVariants returns what is on sale with at most LowAt left, per
// variant: an item with options is low where one of its variants is,
// whatever the others hold. Fewest first.
func (s *Service) LowVariants(ctx context.Context) ([]LowVariant, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, 0, name, '', '', '', COALESCE(sku, ''), stock FROM items
		WHERE `+catalog.OnSale+` AND option_names = '' AND stock <= $1
		UNION ALL
		SELECT i.id, v.id, i.name, v.option1, v.option2, v.option3, v.sku, v.stock FROM item_variants v JOIN items i ON i.id = v.item_id
		WHERE i.`+catalog.OnSale+` AND i.option_names <> '' AND v.stock <= $2
		ORDER BY 8, 1, 2 LIMIT $3`, LowAt, LowAt, lowSize)
	if err != nil {
		return nil, fmt.Errorf("low stock per variant: %w", err)
	}
	defer rows.Close()
	var out []LowVariant
	for rows.Next() {
		var x LowVariant
		var o1, o2, o3 string
		if err := rows.Scan(&x.ItemID, &x.VariantID, &x.Name, &o1, &o2, &o3, &x.SKU, &x.Stock); err != nil {
			return nil, fmt.Errorf("low stock per variant: %w", err)
		}
		var opts []string
		for _, o := range []string{o1, o2, o3} {
			if o != "" {
				opts = append(opts, o)
			}
		}
		x.Variant = strings.Join(opts, " / ")
		out = append(out, x)
	}
	return out, rows.Err()
}

// SetupFacts are what the setup checklist of a new shop ticks: whether
// the catalog has an item and whether the admin saved a shipping zone.
type SetupFacts struct {
	Items      int
	ZonesSaved bool
}

// Setup reads the setup checklist's facts.
func (s *Service) Setup(ctx context.Context) (SetupFacts, error) {
	var f SetupFacts
	var zones int
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM items WHERE `+catalog.OnSale+`),
		(SELECT COUNT(*) FROM shipping_zones WHERE saved_by_admin)`).Scan(&f.Items, &zones)
	if err != nil {
		return SetupFacts{}, fmt.Errorf("setup checklist: %w", err)
	}
	f.ZonesSaved = zones > 0
	return f, nil
}
