package reviews

import (
	"context"
	"database/sql"
	"fmt"

	"storefront/store/platform"
)

// ItemsRemovedTx deletes the reviews of items being removed, in the
// removal's transaction (the wiring registers it with the catalog).
func (s *Service) ItemsRemovedTx(ctx context.Context, tx *sql.Tx, ids []int64) error {
	in, args := platform.InList(1, ids)
	if _, err := tx.ExecContext(ctx, `DELETE FROM reviews WHERE item_id IN (`+in+`)`, args...); err != nil {
		return fmt.Errorf("remove reviews: %w", err)
	}
	return nil
}
