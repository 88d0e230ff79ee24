package reviews

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"storefront/store/audit"
	"storefront/store/catalog"
	"storefront/store/platform"
)

// HideReview hides a review for a moderator: it leaves the item's page,
// its rating and count, and the cards' ratings; its author still sees it,
// marked. The item's change is announced, so its cached pages are purged
// on every instance. platform.ErrNotFound for a missing review; hiding
// twice changes nothing more.
func (s *Service) HideReview(ctx context.Context, itemID, userID int64, moderator string) (Review, error) {
	return s.setHidden(ctx, itemID, userID, true, `UPDATE reviews SET hidden_at = $1, hidden_by = $2
		WHERE item_id = $3 AND user_id = $4 AND hidden_at IS NULL`, s.clock.Now().Unix(), moderator)
}

// UnhideReview shows a hidden review again: back on the item's page and in
// its rating, as it was. platform.ErrNotFound for a missing review; one
// that is not hidden is left alone.
func (s *Service) UnhideReview(ctx context.Context, itemID, userID int64) (Review, error) {
	return s.setHidden(ctx, itemID, userID, false, `UPDATE reviews SET hidden_at = NULL, hidden_by = NULL
		WHERE item_id = $1 AND user_id = $2 AND hidden_at IS NOT NULL`)
}

// setHidden runs the hide or unhide update (its last two placeholders the
// item and the author) and, when it changed the row, records it in the
// audit log and announces the item's change.
func (s *Service) setHidden(ctx context.Context, itemID, userID int64, hidden bool, update string, args ...any) (Review, error) {
	var changed int64
	err := platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, update, append(args, itemID, userID)...)
		if err != nil {
			return err
		}
		if changed, err = res.RowsAffected(); err != nil || changed == 0 {
			return err
		}
		kind := "review.hide"
		if !hidden {
			kind = "review.unhide"
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: kind, Target: fmt.Sprintf("review of item %d by user %d", itemID, userID),
			Before: audit.Fields{"hidden": !hidden}, After: audit.Fields{"hidden": hidden}})
	})
	if err != nil {
		return Review{}, fmt.Errorf("hide review: %w", err)
	}
	rv, found, err := s.readMyReview(ctx, itemID, userID)
	switch {
	case err != nil:
		return Review{}, err
	case !found:
		return Review{}, platform.ErrNotFound
	case changed > 0:
		err = s.catalog.Changed(ctx, catalog.Change{IDs: []int64{itemID}})
	}
	return rv, err
}

// HiddenReview is a hidden review as the moderation page lists it.
type HiddenReview struct {
	Review
	ItemName string
	HiddenBy string
	HiddenAt time.Time
}

// HiddenReviews lists the hidden reviews, the most recently hidden first
// (at most n), and how many there are.
func (s *Service) HiddenReviews(ctx context.Context, n int) ([]HiddenReview, int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.item_id, r.user_id, COALESCE(u.username, ''), COALESCE(i.name, ''), r.rating, r.body,
			r.updated_at, r.hidden_at, COALESCE(r.hidden_by, ''), COUNT(*) OVER ()
		FROM reviews r LEFT JOIN users u ON u.id = r.user_id LEFT JOIN items i ON i.id = r.item_id
		WHERE r.hidden_at IS NOT NULL ORDER BY r.hidden_at DESC, r.item_id, r.user_id LIMIT $1`, n)
	if err != nil {
		return nil, 0, fmt.Errorf("hidden reviews: %w", err)
	}
	defer rows.Close()
	var out []HiddenReview
	total := 0
	for rows.Next() {
		h := HiddenReview{Review: Review{Hidden: true}}
		var updated, hidden int64
		if err := rows.Scan(&h.ItemID, &h.UserID, &h.Username, &h.ItemName, &h.Rating, &h.Body, &updated, &hidden, &h.HiddenBy, &total); err != nil {
			return nil, 0, fmt.Errorf("hidden reviews: %w", err)
		}
		h.Updated, h.HiddenAt = platform.UnixTime(updated), platform.UnixTime(hidden)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("hidden reviews: %w", err)
	}
	return out, total, nil
}
