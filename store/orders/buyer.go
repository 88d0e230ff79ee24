package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"storefront/store/platform"
)

// lockBuyer is the checkout transaction's first step: it takes the
// shopper's account row (on PostgreSQL a row lock, so a ban waits for a
// checkout already under way, and a checkout after the ban sees it) and
// refuses a banned account with platform.ErrBanned. It returns the
// account's email address ("" for none), which a discount code's
// per-customer cap compares with guests'. Guests (0) have no row.
func lockBuyer(ctx context.Context, tx *sql.Tx, userID int64) (string, error) {
	if userID <= 0 {
		return "", nil
	}
	var email sql.NullString
	err := tx.QueryRowContext(ctx, `UPDATE users SET banned_at = banned_at WHERE id = $1 AND banned_at IS NULL RETURNING email`, userID).Scan(&email)
	if errors.Is(err, sql.ErrNoRows) {
		return "", platform.ErrBanned
	}
	if err != nil {
		return "", fmt.Errorf("checkout: account: %w", err)
	}
	return email.String, nil
}
