package catalog

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrSKUTaken is a SKU that another item or variant has already, whatever
// the case: a SKU names one item or one variant. The database holds every
// SKU in its skus table (kept by triggers on items and item_variants), so
// a write that would share one fails on every path.
var ErrSKUTaken = errors.New("SKU taken")

// DefaultSKU is the stock-keeping unit an item gets unless an import
// chose another: SF- and its id, at least six digits (SF-000123). The
// migration that added SKUs gave every existing item the same, so an
// item's default SKU never changes.
func DefaultSKU(id int64) string { return fmt.Sprintf("SF-%06d", id) }

// freeSKU is the SKU a new item with id gets: its DefaultSKU, or, when an
// import or a variant already took that SKU, the same with a suffix
// (SF-000123-2). A racing insert that takes it after this read makes the
// insert fail with ErrSKUTaken, and CreateItem tries again.
func (s *Service) freeSKU(ctx context.Context, id int64) string {
	base := DefaultSKU(id)
	sku := base
	for n := 2; n < 100; n++ {
		var taken int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM skus WHERE sku = $1`, strings.ToLower(sku)).Scan(&taken); err != nil || taken == 0 {
			return sku // a failed read is caught by the skus table's key
		}
		sku = base + "-" + strconv.Itoa(n)
	}
	return sku
}

// isSKUConflict reports whether err is the database refusing a SKU that
// the skus table (or the items' own unique index) already holds.
func isSKUConflict(err error) bool {
	if err == nil {
		return false
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pe.Code == "23505" && (pe.ConstraintName == "skus_pkey" || pe.ConstraintName == "items_sku" || pe.ConstraintName == "item_variants_sku_key")
	}
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed: skus.sku") || strings.Contains(msg, "UNIQUE constraint failed: items.sku") ||
		strings.Contains(msg, "UNIQUE constraint failed: item_variants.sku")
}

// skuError is err as ErrSKUTaken when it is a SKU conflict, else err.
func skuError(err error) error {
	if isSKUConflict(err) {
		return fmt.Errorf("%w (%v)", ErrSKUTaken, err)
	}
	return err
}
