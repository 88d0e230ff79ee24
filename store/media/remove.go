package media

import (
	"context"
	"database/sql"
	"fmt"

	"storefront/store/platform"
)

// ItemsRemovedTx deletes the pictures of items being removed, in the
// removal's transaction (the wiring registers it with the catalog): their
// links, and each picture no other item shows, with its renditions.
func (s *Service) ItemsRemovedTx(ctx context.Context, tx *sql.Tx, ids []int64) error {
	in, args := platform.InList(1, ids)
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT hash FROM item_images WHERE item_id IN (`+in+`)`, args...)
	if err != nil {
		return fmt.Errorf("remove pictures: %w", err)
	}
	var hashes []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			rows.Close()
			return fmt.Errorf("remove pictures: %w", err)
		}
		hashes = append(hashes, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("remove pictures: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM item_images WHERE item_id IN (`+in+`)`, args...); err != nil {
		return fmt.Errorf("remove pictures: %w", err)
	}
	for _, h := range hashes {
		for _, q := range []string{
			`DELETE FROM image_renditions WHERE hash = $1 AND NOT EXISTS (SELECT 1 FROM item_images WHERE hash = $1)
			AND NOT EXISTS (SELECT 1 FROM shop_logo WHERE hash = $1)`,
			`DELETE FROM images WHERE hash = $1 AND NOT EXISTS (SELECT 1 FROM item_images WHERE hash = $1)
			AND NOT EXISTS (SELECT 1 FROM shop_logo WHERE hash = $1)`,
		} {
			if _, err := tx.ExecContext(ctx, q, h); err != nil {
				return fmt.Errorf("remove pictures: %w", err)
			}
		}
	}
	return nil
}
