package store

import (
	"context"
	"fmt"
	"storefront/store/keys"
	"strconv"
	"strings"
)

// NewItem is what an admin fills in to create an item.
type NewItem struct {
	Name        string
	PriceCents  int64
	Stock       int64
	Category    string
	Description string
}

// CreateItem adds an item to the catalog and returns it. The id is the
// next after the largest (the demo catalog is inserted with its own ids,
// which PostgreSQL's identity does not see); two admins creating at once
// may pick the same id, and the loser takes the next (each round one
// of them wins, so a few tries suffice).
// The slug carries the id, so it is unique whatever the name.
func (s *Store) CreateItem(ctx context.Context, n NewItem) (Item, error) {
	base := slugify(n.Name)
	if base == "" {
		base = "item"
	}
	for attempt := 0; attempt < 32; attempt++ {
		var id int64
		if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM items`).Scan(&id); err != nil {
			return Item{}, fmt.Errorf("create item: %w", err)
		}
		res, err := s.db.ExecContext(ctx, `INSERT INTO items (id, slug, name, description, category, price_cents, stock, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
			id, base+"-"+strconv.FormatInt(id, 10), n.Name, n.Description, n.Category, n.PriceCents, n.Stock, s.clock.Now().Unix())
		if err != nil {
			return Item{}, fmt.Errorf("create item: %w", err)
		}
		if k, err := res.RowsAffected(); err == nil && k == 1 {
			// Cached search results must now include the item.
			if err := s.rdb.Incr(ctx, keys.SearchGen).Err(); err != nil {
				return Item{}, fmt.Errorf("create item: %w", err)
			}
			return s.Item(ctx, id)
		}
	}
	return Item{}, fmt.Errorf("create item: %w", ErrConflict)
}

// SetItemArchived takes an item off sale (archived) or puts it back. An
// archived item leaves listings, search, category counts and the cards of
// every list; its page answers Gone; carts and checkouts refuse it (the
// checkout's stock update carries the condition, so one racing with the
// archive cannot buy it after the commit); past orders keep it. Its cached
// pages and row are purged at once, so no instance serves the old page.
// It reports whether anything changed.
func (s *Store) SetItemArchived(ctx context.Context, id int64, archived bool) (bool, error) {
	q := `UPDATE items SET archived_at = $1, updated_at = $1 WHERE id = $2 AND archived_at IS NULL`
	if !archived {
		q = `UPDATE items SET archived_at = NULL, updated_at = $1 WHERE id = $2 AND archived_at IS NOT NULL`
	}
	res, err := s.db.ExecContext(ctx, q, s.clock.Now().Unix(), id)
	if err != nil {
		return false, fmt.Errorf("archive item %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("archive item %d: %w", id, err)
	}
	if n == 0 {
		if _, err := s.Item(ctx, id); err != nil {
			return false, err
		}
		return false, nil
	}
	s.pages.names.forget(id)
	s.searchChanged(ctx)
	if err := s.PurgeItemPages(ctx, id); err != nil {
		return true, err
	}
	return true, nil
}

// AdminItemQuery selects a page of the admin's item list: every item,
// archived ones too, matched on the name or the id.
type AdminItemQuery struct {
	Q       string
	Page    int // from 1
	PerPage int
}

// AdminItems returns one page of the admin's item list, by id, and how
// many items match.
func (s *Store) AdminItems(ctx context.Context, q AdminItemQuery) (ItemPage, error) {
	where, args := "1=1", []any{}
	if q.Q != "" {
		args = append(args, "%"+likeEscape(strings.ToLower(q.Q))+"%")
		where = `LOWER(name) LIKE $1 ESCAPE '\'`
		if id, err := strconv.ParseInt(q.Q, 10, 64); err == nil {
			args = append(args, id)
			where = `(` + where + ` OR id = $2)`
		}
	}
	var page ItemPage
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM items WHERE `+where, args...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("admin items: %w", err)
	}
	offset := (q.Page - 1) * q.PerPage
	if offset >= page.Total {
		return page, nil
	}
	n := len(args)
	args = append(args, q.PerPage, offset)
	rows, err := s.db.QueryContext(ctx, `SELECT `+itemColumns+` FROM items WHERE `+where+
		` ORDER BY id LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2), args...)
	if err != nil {
		return page, fmt.Errorf("admin items: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return page, fmt.Errorf("admin items: %w", err)
		}
		page.Items = append(page.Items, it)
	}
	return page, rows.Err()
}
