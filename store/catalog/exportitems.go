package catalog

import (
	"context"
	"fmt"
)

// exportBatch is how many rows EachItem reads at a time: the export holds
// no database connection while it writes to a slow client.
const exportBatch = 500

// EachItem calls f with every item of the catalog, archived ones too, by
// id, reading them in batches (an item created during the export after
// its batch was read is left out; none is seen twice). It stops at f's
// first error and returns it.
func (s *Service) EachItem(ctx context.Context, f func(Item) error) error {
	after := int64(-1)
	for {
		rows, err := s.db.QueryContext(ctx, `SELECT `+itemColumns+` FROM items WHERE id > $1 ORDER BY id LIMIT $2`, after, exportBatch)
		if err != nil {
			return fmt.Errorf("export items: %w", err)
		}
		batch := make([]Item, 0, exportBatch)
		for rows.Next() {
			it, err := scanItem(rows)
			if err != nil {
				rows.Close()
				return fmt.Errorf("export items: %w", err)
			}
			batch = append(batch, it)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("export items: %w", err)
		}
		for _, it := range batch {
			if err := f(it); err != nil {
				return err
			}
		}
		if len(batch) < exportBatch {
			return nil
		}
		after = batch[len(batch)-1].ID
	}
}
