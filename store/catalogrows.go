package store

import "context"

// CatalogRows returns the current catalog rows (price, stock, name) for
// ids, in no particular order; ids that name no item are missing from the
// map. It is the one read path for "what does this item cost and how many
// are left" outside the item pages: the cart page, cart validation and the
// checkout's pre-check use it. Scheduled rows come from the row cache
// (`inv:<id>`, one pipelined read), the rest from the database. The
// checkout transaction itself always re-checks stock and takes its price
// snapshot from the database, so a row-cache copy a few seconds old can
// never oversell.
func (s *Store) CatalogRows(ctx context.Context, ids []int64) (map[int64]Item, error) {
	return s.rowsFromCache(ctx, ids)
}
