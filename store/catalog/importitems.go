package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"storefront/store/platform"
)

// Errors an import row can have that only the database knows of.
var (
	// ErrUnknownCategory is a row whose category no item has.
	ErrUnknownCategory = errors.New("unknown category")
	// ErrNotAVariant is a row with options whose SKU is no variant's:
	// variants are added on the item's variants page, not by import.
	ErrNotAVariant = errors.New("not a variant's SKU")
)

// ImportRow is one row of a catalog import, checked for form by the
// caller (the CSV reader): SKU, name, category, price and stock as the
// item should be after the import.
type ImportRow struct {
	Line        int // the row's number in the file, the header being 1
	SKU         string
	Name        string
	Category    string
	Description string
	PriceCents  int64
	Stock       int64
	Archived    bool
	// Options is a variant's row's options as exported ("" for an item
	// without options); such a row updates the variant with its SKU: its
	// price, compare-at price and stock, and its item's other fields.
	Options        string
	CompareAtCents int64
}

// RowProblem is a row the database refused, by its number.
type RowProblem struct {
	Line int
	SKU  string
	Err  error
}

// ImportError is an import refused as a whole: nothing was changed.
type ImportError struct{ Rows []RowProblem }

func (e *ImportError) Error() string {
	return fmt.Sprintf("import: %d rows refused", len(e.Rows))
}

// ImportResult counts what an import did.
type ImportResult struct {
	Created, Updated, Unchanged int
	Changed                     []int64 // the ids created or updated
}

// ImportItems creates or updates items by SKU in one transaction: a row
// whose SKU no item has creates an item, a row that differs from its item
// updates it, and a row equal to its item changes nothing (so importing
// the same file twice changes nothing the second time). Every row is
// checked before anything is written; if any is wrong the whole import is
// an *ImportError and nothing changed. Imports take turns (one
// transaction lock), and once committed every changed item is announced
// (Changed), so its cached pages, row and search results follow.
func (s *Service) ImportItems(ctx context.Context, rows []ImportRow) (ImportResult, error) {
	var res ImportResult
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	defer tx.Rollback()
	if platform.KindOf(s.db) == platform.DBPostgres {
		// SQLite's transaction holds the write lock from BEGIN already.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7310110)`); err != nil {
			return res, fmt.Errorf("import: lock: %w", err)
		}
	}
	bad, err := checkImportRows(ctx, tx, rows)
	if err != nil {
		return res, err
	}
	if len(bad) > 0 {
		return res, &ImportError{Rows: bad}
	}
	now := s.clock.Now().Unix()
	for _, r := range rows {
		id, outcome, err := importRow(ctx, tx, r, now)
		if err != nil {
			return ImportResult{}, fmt.Errorf("import row %d: %w", r.Line, err)
		}
		switch outcome {
		case rowCreated:
			res.Created++
		case rowUpdated:
			res.Updated++
		default:
			res.Unchanged++
			continue
		}
		res.Changed = append(res.Changed, id)
	}
	if err := tx.Commit(); err != nil {
		return ImportResult{}, fmt.Errorf("import: %w", err)
	}
	return res, s.Changed(ctx, Change{IDs: res.Changed, Search: true})
}

// CheckImport finds the rows the database would refuse, without writing
// anything: the import's caller reports them beside the rows it found
// wrong itself, so one answer lists every wrong row. ImportItems checks
// again inside its transaction.
func (s *Service) CheckImport(ctx context.Context, rows []ImportRow) ([]RowProblem, error) {
	return checkImportRows(ctx, s.db, rows)
}

// checkImportRows finds the rows naming a category no item has, and the
// variant rows whose SKU is no variant's.
func checkImportRows(ctx context.Context, q querier, rows []ImportRow) ([]RowProblem, error) {
	bad, err := unknownCategories(ctx, q, rows)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.Options == "" {
			continue
		}
		rs, err := q.QueryContext(ctx, `SELECT 1 FROM item_variants WHERE sku = $1`, r.SKU)
		if err != nil {
			return nil, fmt.Errorf("import: variants: %w", err)
		}
		found := rs.Next()
		rs.Close()
		if !found {
			bad = append(bad, RowProblem{Line: r.Line, SKU: r.SKU, Err: ErrNotAVariant})
		}
	}
	return bad, nil
}

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// unknownCategories are the rows naming a category no item has (a typo
// would otherwise make a department of one).
func unknownCategories(ctx context.Context, q querier, rows []ImportRow) ([]RowProblem, error) {
	known := map[string]bool{}
	rs, err := q.QueryContext(ctx, `SELECT DISTINCT category FROM items`)
	if err != nil {
		return nil, fmt.Errorf("import: categories: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		var c string
		if err := rs.Scan(&c); err != nil {
			return nil, fmt.Errorf("import: categories: %w", err)
		}
		known[c] = true
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("import: categories: %w", err)
	}
	var bad []RowProblem
	for _, r := range rows {
		if !known[r.Category] {
			bad = append(bad, RowProblem{Line: r.Line, SKU: r.SKU, Err: ErrUnknownCategory})
		}
	}
	return bad, nil
}

type rowOutcome int

const (
	rowUnchanged rowOutcome = iota
	rowCreated
	rowUpdated
)

// importRow writes one row in tx and says what it did.
func importRow(ctx context.Context, tx *sql.Tx, r ImportRow, now int64) (int64, rowOutcome, error) {
	if r.Options != "" {
		return importVariantRow(ctx, tx, r, now)
	}
	var it Item
	var archived sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT id, name, description, category, price_cents, stock, archived_at FROM items WHERE sku = $1`, r.SKU).
		Scan(&it.ID, &it.Name, &it.Description, &it.Category, &it.PriceCents, &it.Stock, &archived)
	if errors.Is(err, sql.ErrNoRows) {
		id, err := insertImported(ctx, tx, r, now)
		return id, rowCreated, err
	}
	if err != nil {
		return 0, 0, err
	}
	var options string
	if err := tx.QueryRowContext(ctx, `SELECT option_names FROM items WHERE id = $1`, it.ID).Scan(&options); err != nil {
		return 0, 0, err
	}
	if options != "" {
		r.Stock = it.Stock // the stock of an item with options is its variants'
	}
	return updateImported(ctx, tx, it, archived.Valid, r, now)
}

// updateImported updates item it from row r, unless they are equal.
func updateImported(ctx context.Context, tx *sql.Tx, it Item, archived bool, r ImportRow, now int64) (int64, rowOutcome, error) {
	if it.Name == r.Name && it.Description == r.Description && it.Category == r.Category &&
		it.PriceCents == r.PriceCents && it.Stock == r.Stock && archived == r.Archived {
		return it.ID, rowUnchanged, nil
	}
	// An item that stays archived keeps the time it was archived.
	_, err := tx.ExecContext(ctx, `UPDATE items SET name = $1, description = $2, category = $3, price_cents = $4, stock = $5,
		archived_at = CASE WHEN $6 THEN COALESCE(archived_at, $7) ELSE NULL END, updated_at = $7 WHERE id = $8`,
		r.Name, r.Description, r.Category, r.PriceCents, r.Stock, r.Archived, now, it.ID)
	return it.ID, rowUpdated, err
}

// insertImported creates the item of a row with a new SKU: the next id
// after the largest, as CreateItem does (an admin creating an item at the
// same moment may take it, and the row takes the next).
func insertImported(ctx context.Context, tx *sql.Tx, r ImportRow, now int64) (int64, error) {
	var archivedAt any
	if r.Archived {
		archivedAt = now
	}
	base := Slugify(r.Name)
	if base == "" {
		base = "item"
	}
	for attempt := 0; attempt < 32; attempt++ {
		var id int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM items`).Scan(&id); err != nil {
			return 0, err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO items (id, slug, name, description, category, price_cents, stock, updated_at, archived_at, sku)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
			id, base+"-"+strconv.FormatInt(id, 10), r.Name, r.Description, r.Category, r.PriceCents, r.Stock, now, archivedAt, r.SKU)
		if err != nil {
			return 0, err
		}
		if n, err := res.RowsAffected(); err == nil && n == 1 {
			return id, nil
		}
	}
	return 0, platform.ErrConflict
}

// importVariantRow updates a variant from its row (price, compare-at
// price, stock; a price equal to the item's keeps the variant at the
// item's price) and its item from the row's other fields, keeping the
// item's stock the variants' sum.
func importVariantRow(ctx context.Context, tx *sql.Tx, r ImportRow, now int64) (int64, rowOutcome, error) {
	var v Variant
	v, err := scanVariant(tx.QueryRowContext(ctx, `SELECT `+variantColumns+` FROM item_variants WHERE sku = $1`, r.SKU))
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, ErrNotAVariant // checked before, within the same transaction
	}
	if err != nil {
		return 0, 0, err
	}
	var it Item
	var archived sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT id, name, description, category, price_cents, stock, archived_at FROM items WHERE id = $1`, v.ItemID).
		Scan(&it.ID, &it.Name, &it.Description, &it.Category, &it.PriceCents, &it.Stock, &archived)
	if err != nil {
		return 0, 0, err
	}
	sold := v.Sold(it)
	outcome := rowUnchanged
	if sold.PriceCents != r.PriceCents || v.CompareAtCents != r.CompareAtCents || v.Stock != r.Stock {
		price := sql.NullInt64{Int64: r.PriceCents, Valid: r.PriceCents != it.PriceCents}
		compare := sql.NullInt64{Int64: r.CompareAtCents, Valid: r.CompareAtCents > 0}
		if _, err := tx.ExecContext(ctx, `UPDATE items SET stock = stock + $1 WHERE id = $2`, r.Stock-v.Stock, it.ID); err != nil {
			return 0, 0, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE item_variants SET price_cents = $1, compare_at_cents = $2, stock = $3 WHERE id = $4`,
			price, compare, r.Stock, v.ID); err != nil {
			return 0, 0, err
		}
		it.Stock += r.Stock - v.Stock
		outcome = rowUpdated
	}
	r.Stock, r.PriceCents = it.Stock, it.PriceCents // the item's own price and summed stock stay
	id, itemOutcome, err := updateImported(ctx, tx, it, archived.Valid, r, now)
	if itemOutcome == rowUpdated {
		outcome = rowUpdated
	}
	return id, outcome, err
}
