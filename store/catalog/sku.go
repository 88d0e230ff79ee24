package catalog

import (
	"context"
	"fmt"
	"strconv"
)

// DefaultSKU is the stock-keeping unit an item gets unless an import
// chose another: SF- and its id, at least six digits (SF-000123). The
// migration that added SKUs gave every existing item the same, so an
// item's default SKU never changes.
func DefaultSKU(id int64) string { return fmt.Sprintf("SF-%06d", id) }

// freeSKU is the SKU a new item with id gets: its DefaultSKU, or, when an
// import already gave that SKU to another item, the same with a suffix
// (SF-000123-2). A racing insert that takes it after this read makes the
// insert conflict, and CreateItem tries again.
func (s *Service) freeSKU(ctx context.Context, id int64) string {
	base := DefaultSKU(id)
	sku := base
	for n := 2; n < 100; n++ {
		var taken int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM items WHERE sku = $1`, sku).Scan(&taken); err != nil || taken == 0 {
			return sku // a failed read is caught by the insert's unique index
		}
		sku = base + "-" + strconv.Itoa(n)
	}
	return sku
}
