package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

// TakeStock takes qty of an item on sale in tx if that many are left,
// with one conditional update (so concurrent checkouts never sell more
// than the stock). It returns the stock left and whether it took it.
func TakeStock(ctx context.Context, tx *sql.Tx, itemID, qty int64) (left int64, taken bool, err error) {
	err = tx.QueryRowContext(ctx, `UPDATE items SET stock = stock - $1 WHERE id = $2 AND stock >= $1 AND `+OnSale+` RETURNING stock`,
		qty, itemID).Scan(&left)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return left, err == nil, err
}

// PutBackStock returns qty of an item to its stock in tx (a cancelled order).
func PutBackStock(ctx context.Context, tx *sql.Tx, itemID, qty int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE items SET stock = stock + $1 WHERE id = $2`, qty, itemID)
	return err
}

// StockTx reads an item's name, stock and archive time in tx; ok is false
// for a missing item.
func StockTx(ctx context.Context, tx *sql.Tx, itemID int64) (it Item, ok bool, err error) {
	var archived sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT name, stock, archived_at FROM items WHERE id = $1`, itemID).Scan(&it.Name, &it.Stock, &archived)
	it.ID, it.ArchivedAt = itemID, archived.Int64
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, false, nil
	}
	return it, err == nil, err
}

// PricesTx reads the names and prices of items in tx (a checkout's
// snapshot, taken after its stock updates so that they are the committed
// values at the moment of sale).
func PricesTx(ctx context.Context, tx *sql.Tx, ids []int64) (map[int64]Item, error) {
	ph, args := platform.InList(1, ids)
	rs, err := tx.QueryContext(ctx, `SELECT id, name, price_cents FROM items WHERE id IN (`+ph+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := make(map[int64]Item, len(ids))
	for rs.Next() {
		var it Item
		if err := rs.Scan(&it.ID, &it.Name, &it.PriceCents); err != nil {
			return nil, err
		}
		out[it.ID] = it
	}
	return out, rs.Err()
}
