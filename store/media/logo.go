package media

import (
	"context"
	"database/sql"
	"fmt"

	"storefront/store/platform"
)

// StoreImage stores a processed picture that is not an item's (the shop's
// logo) unless it is stored already.
func (s *Service) StoreImage(ctx context.Context, img ProcessedImage) error {
	return platform.InTx(ctx, s.db, func(tx *sql.Tx) error { return InsertImage(ctx, tx, img, s.clock.Now()) })
}

// DropUnusedImage deletes a stored picture that no item and not the logo
// uses any more (a logo that was replaced).
func (s *Service) DropUnusedImage(ctx context.Context, hash string) error {
	return platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		for _, stmt := range []string{
			`DELETE FROM image_renditions WHERE hash = $1 AND NOT EXISTS (SELECT 1 FROM item_images WHERE hash = $1)
			AND NOT EXISTS (SELECT 1 FROM shop_logo WHERE hash = $1)`,
			`DELETE FROM images WHERE hash = $1 AND NOT EXISTS (SELECT 1 FROM item_images WHERE hash = $1)
			AND NOT EXISTS (SELECT 1 FROM shop_logo WHERE hash = $1)`,
		} {
			if _, err := tx.ExecContext(ctx, stmt, hash); err != nil {
				return fmt.Errorf("drop picture: %w", err)
			}
		}
		return nil
	})
}
