package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"storefront/store/platform"
)

// Item is one catalog row. JSON names are the column names, as the row
// cache stores them.
type Item struct {
	ID          int64  `json:"id"`
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Category    string `json:"category"`
	PriceCents  int64  `json:"price_cents"`
	Stock       int64  `json:"stock"`
	UpdatedAt   int64  `json:"updated_at"`
	// ArchivedAt is when an admin took the item off sale (Unix seconds),
	// 0 while it is on sale. An archived item stays in past orders only.
	ArchivedAt int64 `json:"archived_at,omitempty"`
	// SKU is the item's stock-keeping unit, unique in the catalog: the
	// key the CSV export and import match rows on (DefaultSKU unless an
	// import chose another).
	SKU string `json:"sku,omitempty"`
	// Options names the item's options (at most MaxOptions, e.g. Size,
	// Colour), nil for an item without options. An item with options
	// sells only through its variants, and its Stock is theirs summed.
	Options []string `json:"options,omitempty"`
}

// HasOptions reports whether the item sells through variants.
func (it Item) HasOptions() bool { return len(it.Options) > 0 }

// Archived reports whether the item was taken off sale.
func (it Item) Archived() bool { return it.ArchivedAt != 0 }

const itemColumns = `id, slug, name, description, category, price_cents, stock, updated_at, archived_at, COALESCE(sku, ''), option_names`

// OnSale is the condition every shop-facing items query carries: archived
// items leave listings, search and category counts.
const OnSale = `archived_at IS NULL`

func scanItem(row interface{ Scan(...any) error }) (Item, error) {
	var it Item
	var archived sql.NullInt64
	var options string
	err := row.Scan(&it.ID, &it.Slug, &it.Name, &it.Description, &it.Category, &it.PriceCents, &it.Stock, &it.UpdatedAt, &archived, &it.SKU, &options)
	it.ArchivedAt, it.Options = archived.Int64, splitOptions(options)
	return it, err
}

// Item reads one row from the database.
func (s *Service) Item(ctx context.Context, id int64) (Item, error) {
	it, err := scanItem(s.db.QueryRowContext(ctx, `SELECT `+itemColumns+` FROM items WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, platform.ErrNotFound
	}
	if err != nil {
		return Item{}, fmt.Errorf("item %d: %w", id, err)
	}
	return it, nil
}

// Items reads several rows by id, in no particular order; missing ids are
// skipped.
func (s *Service) Items(ctx context.Context, ids []int64) (map[int64]Item, error) {
	out := make(map[int64]Item, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	ph, args := platform.InList(1, ids)
	rows, err := s.db.QueryContext(ctx, `SELECT `+itemColumns+` FROM items WHERE id IN (`+ph+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("items: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		out[it.ID] = it
	}
	return out, rows.Err()
}

// Categories lists the catalog's categories with their item counts.
func (s *Service) Categories(ctx context.Context) ([]Category, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT category, COUNT(*) FROM items WHERE `+OnSale+` GROUP BY category ORDER BY category`)
	if err != nil {
		return nil, fmt.Errorf("categories: %w", err)
	}
	defer rows.Close()
	var out []Category
	for rows.Next() {
		var c Category
		if err := rows.Scan(&c.Name, &c.Count); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Category is a catalog category and how many items it holds.
type Category struct {
	Name  string
	Count int
}

// ItemPage is one page of items and the total number of matches.
type ItemPage struct {
	Items []Item
	Total int
}

// Stamp is an item on sale as the sitemap lists it.
type Stamp struct {
	ID        int64
	Name      string
	Category  string
	UpdatedAt int64 // Unix seconds
}

// Stamps are every item on sale (archived ones leave the sitemap), by id.
func (s *Service) Stamps(ctx context.Context) ([]Stamp, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, category, updated_at FROM items WHERE `+OnSale+` ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("item stamps: %w", err)
	}
	defer rows.Close()
	var out []Stamp
	for rows.Next() {
		var st Stamp
		if err := rows.Scan(&st.ID, &st.Name, &st.Category, &st.UpdatedAt); err != nil {
			return nil, fmt.Errorf("item stamps: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}
