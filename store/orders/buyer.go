package orders

import (
	"context"
	"database/sql"
	"fmt"

	"storefront/store/platform"
)

// lockBuyer is the checkout transaction's first step: it takes the
// shopper's account row (on PostgreSQL a row lock, so a ban waits for a
// checkout already under way, and a checkout after the ban sees it) and
// refuses a banned account with platform.ErrBanned. Guests (0) have no row.
func lockBuyer(ctx context.Context, tx *sql.Tx, userID int64) error {
	if userID <= 0 {
		return nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE users SET banned_at = banned_at WHERE id = $1 AND banned_at IS NULL`, userID)
	if err != nil {
		return fmt.Errorf("checkout: account: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("checkout: account: %w", err)
	} else if n == 0 {
		return platform.ErrBanned
	}
	return nil
}
