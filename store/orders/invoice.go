package orders

import (
	"context"
	"database/sql"
	"fmt"
)

// Invoice numbers have no gaps: every number is an order, in the order
// the checkouts committed. The number is taken from the one-row
// invoice_counter inside the checkout's transaction, as its last step
// before the order row is written: a checkout that fails after taking it
// rolls the counter back with everything else, so no number is skipped,
// and the row's lock makes concurrent checkouts take numbers one after
// another (PostgreSQL holds it until the commit; SQLite has one writer
// anyway). The lock is held only for the order's own inserts, after the
// stock and the prices were settled. An order cancelled later keeps its
// number: its invoice says it was cancelled, as a ledger must.
func takeInvoiceNumber(ctx context.Context, tx *sql.Tx) (int64, error) {
	var n int64
	err := tx.QueryRowContext(ctx, `UPDATE invoice_counter SET next_number = next_number + 1 WHERE id = 1 RETURNING next_number - 1`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("checkout: invoice number: %w", err)
	}
	return n, nil
}
