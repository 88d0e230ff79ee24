package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"storefront/store/audit"
	"storefront/store/platform"
)

// NewItem is what an admin fills in to create an item.
type NewItem struct {
	Name        string
	PriceCents  int64
	Stock       int64
	Category    string
	Description string
	// Tags are the words rule collections pick items by (ParseTags).
	Tags []string
}

// CreateItem adds an item to the catalog and returns it. The id is the
// next after the largest (the demo catalog is inserted with its own ids,
// which PostgreSQL's identity does not see); two admins creating at once
// may pick the same id, and the loser takes the next (each round one
// of them wins, so a few tries suffice). Its SKU is its default one, or
// that with a suffix when an import or a variant already has it.
// The slug carries the id, so it is unique whatever the name.
func (s *Service) CreateItem(ctx context.Context, n NewItem) (Item, error) {
	base := Slugify(n.Name)
	if base == "" {
		base = "item"
	}
	for attempt := 0; attempt < 32; attempt++ {
		var id int64
		if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM items`).Scan(&id); err != nil {
			return Item{}, fmt.Errorf("create item: %w", err)
		}
		res, err := s.db.ExecContext(ctx, `INSERT INTO items (id, slug, name, description, category, price_cents, stock, updated_at, sku, created_at, tags)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $8, $10) ON CONFLICT DO NOTHING`,
			id, base+"-"+strconv.FormatInt(id, 10), n.Name, n.Description, n.Category, n.PriceCents, n.Stock, s.clock.Now().Unix(), s.freeSKU(ctx, id), storedTags(n.Tags))
		if isSKUConflict(err) {
			continue // another item or variant took the SKU since freeSKU read it
		}
		if err != nil {
			return Item{}, fmt.Errorf("create item: %w", err)
		}
		if k, err := res.RowsAffected(); err == nil && k == 1 {
			if err := s.ensureCategories(ctx, s.db, n.Category); err != nil {
				return Item{}, err
			}
			// Cached search results must now include the item.
			if err := s.Changed(ctx, Change{IDs: []int64{id}, Search: true}); err != nil {
				return Item{}, fmt.Errorf("create item: %w", err)
			}
			return s.Item(ctx, id)
		}
	}
	return Item{}, fmt.Errorf("create item: %w", platform.ErrConflict)
}

// SetItemArchived takes an item off sale (archived) or puts it back. An
// archived item leaves listings, search, category counts and the cards of
// every list; its page answers Gone; carts and checkouts refuse it (the
// checkout's stock update carries the condition, so one racing with the
// archive cannot buy it after the commit); past orders keep it. Its cached
// pages and row are purged at once (Changed), so no instance serves the
// old page.
// It reports whether anything changed.
func (s *Service) SetItemArchived(ctx context.Context, id int64, archived bool) (bool, error) {
	q := `UPDATE items SET archived_at = $1, updated_at = $1 WHERE id = $2 AND archived_at IS NULL`
	if !archived {
		q = `UPDATE items SET archived_at = NULL, updated_at = $1 WHERE id = $2 AND archived_at IS NOT NULL`
	}
	var n int64
	err := platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, s.clock.Now().Unix(), id)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		kind := "item.archive"
		if !archived {
			kind = "item.restore"
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: kind, Target: "item " + strconv.FormatInt(id, 10),
			Before: audit.Fields{"archived": !archived}, After: audit.Fields{"archived": archived}})
	})
	if err != nil {
		return false, fmt.Errorf("archive item %d: %w", id, err)
	}
	if n == 0 {
		if _, err := s.Item(ctx, id); err != nil {
			return false, err
		}
		return false, nil
	}
	return true, s.Changed(ctx, Change{IDs: []int64{id}, Search: true})
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
func (s *Service) AdminItems(ctx context.Context, q AdminItemQuery) (ItemPage, error) {
	where, args := "1=1", []any{}
	if q.Q != "" {
		args = append(args, platform.Contains(q.Q))
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

// ItemEdit is what an admin may change on an item.
type ItemEdit struct {
	Name        string
	PriceCents  int64
	Stock       int64
	Category    string
	Description string
	// Tags replace the item's tags unless KeepTags (a form without the
	// field, from before tags could be edited).
	Tags     []string
	KeepTags bool
}

// UpdateItem saves an admin's edit and makes it visible at once (the
// stock of an item with options is its variants' and stays): the
// change is announced (Changed), so the item's cached row and name go and
// its cached pages are purged.
func (s *Service) UpdateItem(ctx context.Context, id int64, e ItemEdit) (Item, error) {
	lock := ""
	if platform.KindOf(s.db) == platform.DBPostgres {
		lock = " FOR UPDATE"
	}
	err := platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		var was ItemEdit
		var options, tags string
		err := tx.QueryRowContext(ctx, `SELECT name, price_cents, stock, description, category, option_names, tags FROM items WHERE id = $1`+lock, id).
			Scan(&was.Name, &was.PriceCents, &was.Stock, &was.Description, &was.Category, &options, &tags)
		if errors.Is(err, sql.ErrNoRows) {
			return platform.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("update item %d: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE items SET name = $1, price_cents = $2, stock = CASE WHEN option_names = '' THEN $3 ELSE stock END, description = $4, category = $5, updated_at = $6 WHERE id = $7`,
			e.Name, e.PriceCents, e.Stock, e.Description, e.Category, s.clock.Now().Unix(), id); err != nil {
			return fmt.Errorf("update item %d: %w", id, err)
		}
		stock := e.Stock
		if options != "" {
			stock = was.Stock // the variants' stock, unchanged here
		}
		newTags := tags
		if !e.KeepTags {
			newTags = storedTags(e.Tags)
			if _, err := tx.ExecContext(ctx, `UPDATE items SET tags = $1 WHERE id = $2`, newTags, id); err != nil {
				return fmt.Errorf("update item %d: %w", id, err)
			}
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "item.edit", Target: "item " + strconv.FormatInt(id, 10),
			Before: audit.Fields{"name": was.Name, "price_cents": was.PriceCents, "stock": was.Stock, "description": was.Description, "category": was.Category,
				"tags": strings.Trim(tags, ",")},
			After: audit.Fields{"name": e.Name, "price_cents": e.PriceCents, "stock": stock, "description": e.Description, "category": e.Category,
				"tags": strings.Trim(newTags, ",")}})
	})
	if err != nil {
		return Item{}, err
	}
	if err := s.ensureCategories(ctx, s.db, e.Category); err != nil {
		return Item{}, err
	}
	if err := s.Changed(ctx, Change{IDs: []int64{id}, Search: true}); err != nil {
		return Item{}, err
	}
	return s.Item(ctx, id)
}

// Slugify turns a name into the URL words of its slug: lower case letters
// and digits, runs of anything else as one dash.
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// AddItems inserts rows with their own ids, leaving alone the ones that
// exist (the demo catalog, seeded by every instance that starts on an
// empty database).
func (s *Service) AddItems(ctx context.Context, items []Item) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	const batch = 100
	for start := 0; start < len(items); start += batch {
		end := min(start+batch, len(items))
		args := make([]any, 0, (end-start)*9)
		for _, it := range items[start:end] {
			sku := it.SKU
			if sku == "" {
				sku = DefaultSKU(it.ID)
			}
			args = append(args, it.ID, it.Slug, it.Name, it.Description, it.Category, it.PriceCents, it.Stock, it.UpdatedAt, sku, it.UpdatedAt)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO items (id, slug, name, description, category, price_cents, stock, updated_at, sku, created_at) VALUES `+
			platform.ValueRows(1, end-start, 10)+` ON CONFLICT DO NOTHING`, args...); err != nil {
			return err
		}
	}
	names := map[string]bool{}
	var fresh []string
	for _, it := range items {
		if !names[it.Category] {
			names[it.Category] = true
			fresh = append(fresh, it.Category)
		}
	}
	if err := s.ensureCategories(ctx, tx, fresh...); err != nil {
		return err
	}
	return tx.Commit()
}

// Empty reports whether the catalog has no items yet.
func (s *Service) Empty(ctx context.Context) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM items LIMIT 1) AS one`).Scan(&n); err != nil {
		return false, fmt.Errorf("catalog: %w", err)
	}
	return n == 0, nil
}
