package orders

import (
	"context"
	"fmt"

	"storefront/store/platform"
)

// LinesOf reads the lines of several orders in one query, by order id,
// each order's by item and variant (the admin's export of order lines);
// an order without lines, or not found, is missing from the map.
func (s *Service) LinesOf(ctx context.Context, ids []int64) (map[int64][]OrderLine, error) {
	out := make(map[int64][]OrderLine, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	ph, args := platform.InList(1, ids)
	rows, err := s.db.QueryContext(ctx, `SELECT order_id, item_id, variant_id, sku, variant, name, price_cents, qty FROM order_lines
		WHERE order_id IN (`+ph+`) ORDER BY order_id, item_id, variant_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("order lines: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var l OrderLine
		if err := rows.Scan(&id, &l.ItemID, &l.VariantID, &l.SKU, &l.Variant, &l.Name, &l.PriceCents, &l.Qty); err != nil {
			return nil, fmt.Errorf("order lines: %w", err)
		}
		out[id] = append(out[id], l)
	}
	return out, rows.Err()
}
