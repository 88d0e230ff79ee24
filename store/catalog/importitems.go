package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

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

// An item row whose SKU is a variant's, or another item's in another
// case, is refused with ErrSKUTaken.

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
	// NewCategories are the categories no item had before, which the
	// import's items now start (ImportOptions.NewCategories), by name.
	NewCategories []string
}

// ImportOptions are what the admin allowed an import to do.
type ImportOptions struct {
	// NewCategories lets rows name a category no item has yet, which
	// the import then starts; without it such a row is ErrUnknownCategory,
	// since a typo would otherwise make a department of one.
	NewCategories bool
}

// ImportItems creates or updates items by SKU in one transaction: a row
// whose SKU no item has creates an item, a row that differs from its item
// updates it, and a row equal to its item changes nothing (so importing
// the same file twice changes nothing the second time). Every row is
// checked before anything is written; if any is wrong the whole import is
// an *ImportError and nothing changed. Imports take turns (one
// transaction lock), and once committed every changed item is announced
// (Changed), so its cached pages, row and search results follow.
func (s *Service) ImportItems(ctx context.Context, rows []ImportRow, opt ImportOptions) (ImportResult, error) {
	res, err := s.importItems(ctx, rows, opt, importHooks{})
	if err != nil {
		return res, err
	}
	return res, s.Changed(ctx, Change{IDs: res.Changed, Search: true})
}

// importHooks let an import job watch and guard an import's transaction.
type importHooks struct {
	// begin runs first in the transaction (after the import lock): a
	// job checks it still holds its row, and locks it.
	begin func(tx *sql.Tx) error
	// checked runs once every row passed the checks; applied every
	// importStepRows rows written, and after the last.
	checked func(n int)
	applied func(n int)
	// commit runs last in the transaction, with the counts: a job
	// records its outcome in the same commit as the catalog's change.
	commit func(tx *sql.Tx, res ImportResult) error
}

// importStepRows is how often an import reports the rows it wrote.
var importStepRows = 500

// importItems is ImportItems without the announcement of the change,
// which its caller makes once the commit is done.
func (s *Service) importItems(ctx context.Context, rows []ImportRow, opt ImportOptions, hk importHooks) (ImportResult, error) {
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
	if hk.begin != nil {
		if err := hk.begin(tx); err != nil {
			return res, err
		}
	}
	bad, fresh, err := checkImportRows(ctx, tx, rows, opt)
	if err != nil {
		return res, err
	}
	if len(bad) > 0 {
		return res, &ImportError{Rows: bad}
	}
	if hk.checked != nil {
		hk.checked(len(rows))
	}
	res.NewCategories = fresh
	if err := s.ensureCategories(ctx, tx, fresh...); err != nil {
		return res, err
	}
	now := s.clock.Now().Unix()
	for i, r := range rows {
		id, outcome, err := importRow(ctx, tx, r, now)
		if errors.Is(skuError(err), ErrSKUTaken) { // two rows of the file in different cases
			return ImportResult{}, &ImportError{Rows: []RowProblem{{Line: r.Line, SKU: r.SKU, Err: ErrSKUTaken}}}
		}
		if err != nil {
			return ImportResult{}, fmt.Errorf("import row %d: %w", r.Line, err)
		}
		if hk.applied != nil && ((i+1)%importStepRows == 0 || i+1 == len(rows)) {
			hk.applied(i + 1)
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
	if hk.commit != nil {
		if err := hk.commit(tx, res); err != nil {
			return ImportResult{}, err
		}
	}
	if err := tx.Commit(); err != nil {
		return ImportResult{}, fmt.Errorf("import: %w", err)
	}
	return res, nil
}

// CheckImport finds the rows the database would refuse, without writing
// anything: the import's caller reports them beside the rows it found
// wrong itself, so one answer lists every wrong row. ImportItems checks
// again inside its transaction.
func (s *Service) CheckImport(ctx context.Context, rows []ImportRow, opt ImportOptions) ([]RowProblem, error) {
	bad, _, err := checkImportRows(ctx, s.db, rows, opt)
	return bad, err
}

// checkImportRows finds the rows naming a category no item has (unless
// opt allows new ones: then they are the new categories), the variant
// rows whose SKU is no variant's, and the item rows whose SKU is a
// variant's or another item's in another case (a SKU names one item or one
// variant, whatever the case). The catalog's SKUs are read once, not per
// row, so a file of tens of thousands of rows is checked in a few queries.
func checkImportRows(ctx context.Context, q querier, rows []ImportRow, opt ImportOptions) ([]RowProblem, []string, error) {
	unknown, fresh, err := unknownCategories(ctx, q, rows)
	if err != nil {
		return nil, nil, err
	}
	var bad []RowProblem
	if !opt.NewCategories {
		bad = unknown
	}
	owners, err := skuOwners(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rows {
		o, taken := owners[strings.ToLower(r.SKU)]
		switch {
		case r.Options != "" && (!taken || !o.variant || o.sku != r.SKU):
			bad = append(bad, RowProblem{Line: r.Line, SKU: r.SKU, Err: ErrNotAVariant})
		case r.Options == "" && taken && (o.variant || o.sku != r.SKU):
			bad = append(bad, RowProblem{Line: r.Line, SKU: r.SKU, Err: ErrSKUTaken})
		}
	}
	slices.SortStableFunc(bad, func(a, b RowProblem) int { return a.Line - b.Line })
	return bad, fresh, nil
}

// skuOwner is what has a SKU: its exact spelling, and whether it is a
// variant's (else an item's).
type skuOwner struct {
	sku     string
	variant bool
}

// skuOwners reads every item's and variant's SKU, by lower case.
func skuOwners(ctx context.Context, q querier) (map[string]skuOwner, error) {
	out := map[string]skuOwner{}
	rs, err := q.QueryContext(ctx, `SELECT sku, 0 FROM items WHERE sku IS NOT NULL UNION ALL SELECT sku, 1 FROM item_variants`)
	if err != nil {
		return nil, fmt.Errorf("import: skus: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		var o skuOwner
		if err := rs.Scan(&o.sku, &o.variant); err != nil {
			return nil, fmt.Errorf("import: skus: %w", err)
		}
		out[strings.ToLower(o.sku)] = o
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("import: skus: %w", err)
	}
	return out, nil
}

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// unknownCategories are the rows naming a category no item has, and those
// categories, each once in the file's order.
func unknownCategories(ctx context.Context, q querier, rows []ImportRow) ([]RowProblem, []string, error) {
	known := map[string]bool{}
	rs, err := q.QueryContext(ctx, `SELECT DISTINCT category FROM items UNION SELECT name FROM categories`)
	if err != nil {
		return nil, nil, fmt.Errorf("import: categories: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		var c string
		if err := rs.Scan(&c); err != nil {
			return nil, nil, fmt.Errorf("import: categories: %w", err)
		}
		known[c] = true
	}
	if err := rs.Err(); err != nil {
		return nil, nil, fmt.Errorf("import: categories: %w", err)
	}
	var bad []RowProblem
	var fresh []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !known[r.Category] {
			bad = append(bad, RowProblem{Line: r.Line, SKU: r.SKU, Err: ErrUnknownCategory})
			if !seen[r.Category] {
				seen[r.Category] = true
				fresh = append(fresh, r.Category)
			}
		}
	}
	return bad, fresh, nil
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
		res, err := tx.ExecContext(ctx, `INSERT INTO items (id, slug, name, description, category, price_cents, stock, updated_at, archived_at, sku, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $8) ON CONFLICT (id) DO NOTHING`,
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
