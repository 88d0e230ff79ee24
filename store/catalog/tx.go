package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"storefront/store/platform"
)

// Item rows inside other domains' transactions: a picture upload and a
// checkout change an item in the same transaction as their own rows, so
// the items table's SQL stays here and they call it with their tx.

// LockItem records a change of the item in tx (its updated_at), which
// also takes its row lock (the write lock on SQLite), so that concurrent
// changes to one item take turns. ErrNotFound for a missing item.
func LockItem(ctx context.Context, tx *sql.Tx, itemID int64, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE items SET updated_at = $1 WHERE id = $2`, now.Unix(), itemID)
	if err != nil {
		return fmt.Errorf("item %d: %w", itemID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return platform.ErrNotFound
	}
	return nil
}

// TakeStock takes qty of a variant of an item on sale in tx if that many
// are left, with conditional updates (so concurrent checkouts never sell
// more than the stock); variant 0 is the implicit variant of an item
// without options. It returns the variant's stock left and whether it
// took it; when not, the caller rolls back.
func TakeStock(ctx context.Context, tx *sql.Tx, itemID, variantID, qty int64) (left int64, taken bool, err error) {
	if variantID != 0 {
		return takeVariantStock(ctx, tx, itemID, variantID, qty)
	}
	err = tx.QueryRowContext(ctx, `UPDATE items SET stock = stock - $1 WHERE id = $2 AND stock >= $1 AND option_names = '' AND `+OnSale+` RETURNING stock`,
		qty, itemID).Scan(&left)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return left, err == nil, err
}

// PutBackStock returns qty of a variant (0: the implicit one) to its
// stock in tx (a cancelled order): the item's row first, then the
// variant's, the checkout's lock order. A variant removed since is not
// brought back; the item's summed stock then only counts the others.
func PutBackStock(ctx context.Context, tx *sql.Tx, itemID, variantID, qty int64) error {
	if variantID == 0 {
		_, err := tx.ExecContext(ctx, `UPDATE items SET stock = stock + $1 WHERE id = $2`, qty, itemID)
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE items SET stock = stock + $1 WHERE id = $2
		AND EXISTS (SELECT 1 FROM item_variants v WHERE v.id = $3 AND v.item_id = $2)`, qty, itemID, variantID)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE item_variants SET stock = stock + $1 WHERE id = $2 AND item_id = $3`, qty, variantID, itemID)
	return err
}

// StockTx reads the name, stock and archive time of a variant (0: the
// implicit one) of an item in tx; ok is false for a missing item or
// variant.
func StockTx(ctx context.Context, tx *sql.Tx, itemID, variantID int64) (it Item, ok bool, err error) {
	if variantID != 0 {
		return variantStockTx(ctx, tx, itemID, variantID)
	}
	var archived sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT name, stock, archived_at FROM items WHERE id = $1 AND option_names = ''`, itemID).Scan(&it.Name, &it.Stock, &archived)
	it.ID, it.ArchivedAt = itemID, archived.Int64
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, false, nil
	}
	return it, err == nil, err
}

// SKUTx finds the item and variant (0: the item itself) a SKU names, in
// any case, in tx (an order edited by SKU); ok is false when none does.
func SKUTx(ctx context.Context, tx *sql.Tx, sku string) (itemID, variantID int64, ok bool, err error) {
	err = tx.QueryRowContext(ctx, `SELECT item_id, variant_id FROM skus WHERE sku = $1`, strings.ToLower(strings.TrimSpace(sku))).
		Scan(&itemID, &variantID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, nil
	}
	return itemID, variantID, err == nil, err
}
