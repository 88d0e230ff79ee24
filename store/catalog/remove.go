package catalog

import (
	"context"
	"database/sql"
	"fmt"

	"storefront/store/keys"
	"storefront/store/platform"
)

// removeBatch is how many items one transaction of RemoveItems handles.
const removeBatch = 100

// OnRemoveTx registers what another domain deletes of items about to be
// removed (their pictures, their reviews), in the removal's transaction,
// before the items' rows go.
func (s *Service) OnRemoveTx(f func(ctx context.Context, tx *sql.Tx, ids []int64) error) {
	s.removeTx = append(s.removeTx, f)
}

// Removed is what RemoveItems did: the items deleted (never ordered) and
// those archived instead (an order holds them).
type Removed struct{ Deleted, Archived []int64 }

// RemoveItems deletes the items among ids that no order holds, with their
// variants, and what other domains keep about them (OnRemoveTx), and
// archives those an order holds, which stay for the orders' sake. Then
// the removed items' Redis rows go (the row cache, counters, likes, the
// view ranking) and the change is announced (cached pages, search,
// sitemaps). Safe to repeat and to run at once: an item already gone is
// skipped, one already archived is left as it is.
func (s *Service) RemoveItems(ctx context.Context, ids []int64) (Removed, error) {
	var out Removed
	for start := 0; start < len(ids); start += removeBatch {
		r, err := s.removeBatch(ctx, ids[start:min(start+removeBatch, len(ids))])
		if err != nil {
			return out, err
		}
		out.Deleted = append(out.Deleted, r.Deleted...)
		out.Archived = append(out.Archived, r.Archived...)
		if err := s.forgetRemoved(ctx, r); err != nil {
			return out, err
		}
	}
	return out, nil
}

const ordered = `EXISTS (SELECT 1 FROM order_lines o WHERE o.item_id = items.id)`

func (s *Service) removeBatch(ctx context.Context, ids []int64) (Removed, error) {
	var r Removed
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return r, fmt.Errorf("remove items: %w", err)
	}
	defer tx.Rollback()
	in, args := platform.InList(2, ids)
	now := s.clock.Now().Unix()
	if r.Archived, err = queryIDs(ctx, tx, `UPDATE items SET archived_at = $1, updated_at = $1
		WHERE id IN (`+in+`) AND archived_at IS NULL AND `+ordered+` RETURNING id`, append([]any{now}, args...)...); err != nil {
		return r, fmt.Errorf("remove items: archive: %w", err)
	}
	// Touching the rows locks them: a checkout taking their stock waits,
	// then finds them gone; a second removal finds nothing left to do.
	if r.Deleted, err = queryIDs(ctx, tx, `UPDATE items SET updated_at = $1 WHERE id IN (`+in+`) AND NOT `+ordered+` RETURNING id`,
		append([]any{now}, args...)...); err != nil {
		return r, fmt.Errorf("remove items: %w", err)
	}
	if len(r.Deleted) > 0 {
		for _, f := range s.removeTx {
			if err := f(ctx, tx, r.Deleted); err != nil {
				return r, err
			}
		}
		in, args = platform.InList(1, r.Deleted)
		for _, q := range []string{`DELETE FROM item_variants WHERE item_id IN (` + in + `)`, `DELETE FROM items WHERE id IN (` + in + `)`} {
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return r, fmt.Errorf("remove items: %w", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return r, fmt.Errorf("remove items: %w", err)
	}
	return r, nil
}

// forgetRemoved drops the deleted items' Redis rows and announces the
// batch's changes.
func (s *Service) forgetRemoved(ctx context.Context, r Removed) error {
	if len(r.Deleted) > 0 {
		pipe := s.rdb.Pipeline()
		members := make([]any, len(r.Deleted))
		for i, id := range r.Deleted {
			members[i] = platform.FormatID(id)
			pipe.Unlink(ctx, keys.ItemCounts(id), keys.ItemLikes(id), keys.AlsoBought(id))
		}
		for _, z := range []string{keys.ViewRanking, keys.RowSchedule, keys.RowDelay, keys.MostLiked, keys.RecentlyLiked} {
			pipe.ZRem(ctx, z, members...)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("remove items: redis rows: %w", err)
		}
	}
	return s.Changed(ctx, Change{IDs: append(append([]int64{}, r.Deleted...), r.Archived...), Search: true})
}

// queryIDs runs q in tx and returns the ids it answers.
func queryIDs(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
