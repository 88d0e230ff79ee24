package store

import "context"

// RowsFromCacheForTest exposes the row cache read path to store_test.
func RowsFromCacheForTest(s *Store, ctx context.Context, ids []int64) (map[int64]Item, error) {
	return s.rowsFromCache(ctx, ids)
}
