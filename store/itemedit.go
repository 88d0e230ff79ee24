package store

import (
	"context"
	"fmt"
)

// ItemEdit is what an admin may change on an item.
type ItemEdit struct {
	Name        string
	PriceCents  int64
	Stock       int64
	Category    string
	Description string
}

// UpdateItem saves an admin's edit and makes it visible at once: the
// item's cached pages and cached row are purged (PurgeItemPages) and its
// name is forgotten here.
func (s *Store) UpdateItem(ctx context.Context, id int64, e ItemEdit) (Item, error) {
	res, err := s.db.ExecContext(ctx,
		`UPDATE items SET name = $1, price_cents = $2, stock = $3, description = $4, category = $5, updated_at = $6 WHERE id = $7`,
		e.Name, e.PriceCents, e.Stock, e.Description, e.Category, s.clock.Now().Unix(), id)
	if err != nil {
		return Item{}, fmt.Errorf("update item %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return Item{}, ErrNotFound
	}
	s.pages.names.forget(id)
	s.searchChanged(ctx)
	if err := s.PurgeItemPages(ctx, id); err != nil {
		return Item{}, err
	}
	return s.Item(ctx, id)
}
