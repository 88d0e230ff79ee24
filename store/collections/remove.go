package collections

import (
	"context"
	"database/sql"
	"fmt"

	"storefront/store/platform"
)

// ItemsRemovedTx takes items being removed out of the hand-picked
// collections, in the removal's transaction (the catalog calls it).
func (s *Service) ItemsRemovedTx(ctx context.Context, tx *sql.Tx, ids []int64) error {
	in, args := platform.InList(1, ids)
	if _, err := tx.ExecContext(ctx, `DELETE FROM collection_items WHERE item_id IN (`+in+`)`, args...); err != nil {
		return fmt.Errorf("remove collection items: %w", err)
	}
	return nil
}
