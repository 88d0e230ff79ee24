package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"storefront/store/audit"
	"storefront/store/platform"
)

// VariantError is an admin's variant edit the catalog refuses, with the
// reason for the admin; nothing was changed.
type VariantError struct{ Msg string }

func (e *VariantError) Error() string { return e.Msg }

// Limits of one variant's fields.
const (
	MaxVariantPriceCents = 999_999_999 // $9,999,999.99, the largest price the forms take
	MaxVariantStock      = 1_000_000
	maxOptionLen         = 40
	maxSKULen            = 64
)

// VariantSet is an item's options and all its variants as an admin saves
// them, or the demo data adds them. A variant with ID 0 is new; the
// others are the item's existing ones, by id.
type VariantSet struct {
	Options  []string
	Variants []Variant
}

// check says what is wrong with the set, if anything.
func (vs VariantSet) check() error {
	bad := func(format string, args ...any) error { return &VariantError{Msg: fmt.Sprintf(format, args...)} }
	if len(vs.Options) > MaxOptions {
		return bad("An item has at most %d options.", MaxOptions)
	}
	seen := map[string]bool{}
	for _, o := range vs.Options {
		if o == "" || utf8.RuneCountInString(o) > maxOptionLen || strings.ContainsAny(o, ",&=?#") || !printable(o) {
			return bad("Option names are 1 to %d characters, without , & = ? or #.", maxOptionLen)
		}
		if seen[strings.ToLower(o)] {
			return bad("The option %q is named twice.", o)
		}
		seen[strings.ToLower(o)] = true
	}
	if len(vs.Options) == 0 && len(vs.Variants) > 0 {
		return bad("Name the options before adding variants.")
	}
	if len(vs.Variants) > MaxVariants {
		return bad("An item has at most %d variants.", MaxVariants)
	}
	skus, combos := map[string]bool{}, map[string]bool{}
	for _, v := range vs.Variants {
		switch {
		case v.SKU == "" || len(v.SKU) > maxSKULen || strings.ContainsAny(v.SKU, " \t,") || !printable(v.SKU):
			return bad("A SKU is 1 to %d characters without spaces or commas (%q).", maxSKULen, v.SKU)
		case skus[strings.ToLower(v.SKU)]:
			return bad("The SKU %s is used twice.", v.SKU)
		case len(v.Values) != len(vs.Options):
			return bad("Variant %s needs a value for each option.", v.SKU)
		case v.PriceSet && (v.OwnPrice < 0 || v.OwnPrice > MaxVariantPriceCents):
			return bad("The price of %s must be from 0.00 to 9999999.99.", v.SKU)
		case v.CompareAtCents < 0 || v.CompareAtCents > MaxVariantPriceCents:
			return bad("The compare-at price of %s must be from 0.00 to 9999999.99.", v.SKU)
		case v.Stock < 0 || v.Stock > MaxVariantStock:
			return bad("The stock of %s must be from 0 to %d.", v.SKU, MaxVariantStock)
		case v.Picture < 0 || v.Picture > 100:
			return bad("The picture of %s must be the number of one of the item's pictures, or 0.", v.SKU)
		}
		for _, val := range v.Values {
			if val == "" || utf8.RuneCountInString(val) > maxOptionLen || !printable(val) {
				return bad("Option values of %s are 1 to %d characters.", v.SKU, maxOptionLen)
			}
		}
		combo := strings.ToLower(strings.Join(v.Values, "\x00"))
		if combos[combo] {
			return bad("Two variants have the options %s.", strings.Join(v.Values, ", "))
		}
		skus[strings.ToLower(v.SKU)], combos[combo] = true, true
	}
	return nil
}

// SaveVariants replaces an item's options and saves its variants in one
// transaction: existing ones (by id) are updated, new ones added; the
// item's stock becomes their sum. A variant of the set that is not the
// item's, a SKU another item or variant has, or any field out of range
// refuses the whole set with a *VariantError and changes nothing.
// Variants are never deleted (old orders and carts name them): an admin
// stops selling one by setting its stock to 0. The change is announced.
func (s *Service) SaveVariants(ctx context.Context, itemID int64, set VariantSet) error {
	if err := set.check(); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save variants: %w", err)
	}
	defer tx.Rollback()
	if err := LockItem(ctx, tx, itemID, s.clock.Now()); err != nil {
		return err
	}
	before, err := variantFields(ctx, tx, itemID)
	if err != nil {
		return err
	}
	if err := saveVariantsTx(ctx, tx, itemID, set); err != nil {
		return err
	}
	after, err := variantFields(ctx, tx, itemID)
	if err != nil {
		return err
	}
	if err := audit.Record(ctx, tx, audit.Entry{Kind: "item.variants", Target: "item " + strconv.FormatInt(itemID, 10),
		Before: before, After: after}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save variants: %w", err)
	}
	return s.Changed(ctx, Change{IDs: []int64{itemID}, Search: true})
}

func saveVariantsTx(ctx context.Context, tx *sql.Tx, itemID int64, set VariantSet) error {
	var existing int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM item_variants WHERE item_id = $1`, itemID).Scan(&existing); err != nil {
		return fmt.Errorf("save variants: %w", err)
	}
	kept := 0
	for _, v := range set.Variants {
		if v.ID != 0 {
			kept++
		}
	}
	if len(set.Options) == 0 && existing > 0 {
		return &VariantError{Msg: "An item with variants keeps its options."}
	}
	if kept != existing {
		return &VariantError{Msg: "Every existing variant must be in the form (set its stock to 0 to stop selling it)."}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE items SET option_names = $1 WHERE id = $2`, strings.Join(set.Options, ","), itemID); err != nil {
		return fmt.Errorf("save variants: %w", err)
	}
	for _, v := range set.Variants {
		var taken int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM skus WHERE sku = lower($1) AND NOT (variant_id = $2 AND $2 <> 0)`,
			v.SKU, v.ID).Scan(&taken); err != nil {
			return fmt.Errorf("save variants: %w", err)
		}
		if taken > 0 {
			return &VariantError{Msg: fmt.Sprintf("The SKU %s is taken by another item or variant.", v.SKU)}
		}
		if err := writeVariant(ctx, tx, itemID, v); errors.Is(skuError(err), ErrSKUTaken) {
			return &VariantError{Msg: fmt.Sprintf("The SKU %s is taken by another item or variant.", v.SKU)}
		} else if err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE items SET stock = CASE WHEN option_names = '' THEN stock
		ELSE (SELECT COALESCE(SUM(stock), 0) FROM item_variants WHERE item_id = $1) END WHERE id = $1`, itemID)
	if err != nil {
		return fmt.Errorf("save variants: %w", err)
	}
	return nil
}

func writeVariant(ctx context.Context, tx *sql.Tx, itemID int64, v Variant) error {
	var o [MaxOptions]string
	copy(o[:], v.Values)
	price := sql.NullInt64{Int64: v.OwnPrice, Valid: v.PriceSet}
	compare := sql.NullInt64{Int64: v.CompareAtCents, Valid: v.CompareAtCents > 0}
	if v.ID == 0 {
		_, err := tx.ExecContext(ctx, `INSERT INTO item_variants (item_id, sku, option1, option2, option3, price_cents, compare_at_cents, stock, picture)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, itemID, v.SKU, o[0], o[1], o[2], price, compare, v.Stock, v.Picture)
		if err != nil {
			return fmt.Errorf("save variants: %w", err)
		}
		return nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE item_variants SET sku = $1, option1 = $2, option2 = $3, option3 = $4, price_cents = $5,
		compare_at_cents = $6, stock = $7, picture = $8 WHERE id = $9 AND item_id = $10`,
		v.SKU, o[0], o[1], o[2], price, compare, v.Stock, v.Picture, v.ID, itemID)
	if err != nil {
		return fmt.Errorf("save variants: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return &VariantError{Msg: fmt.Sprintf("Variant %d is not one of this item's.", v.ID)}
	}
	return nil
}

// AddDemoVariants gives items without options yet their demo options and
// variants (by item id), in one transaction; items that have options are
// left alone, so instances seeding at once agree.
func (s *Service) AddDemoVariants(ctx context.Context, sets map[int64]VariantSet) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if platform.KindOf(s.db) == platform.DBPostgres {
		// Instances seeding at once take turns, so that the second sees
		// the first one's variants (SQLite's transaction holds the write
		// lock from BEGIN already).
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7310125)`); err != nil {
			return fmt.Errorf("demo variants: lock: %w", err)
		}
	}
	for id := int64(1); len(sets) > 0; id++ {
		set, ok := sets[id]
		if !ok {
			continue
		}
		delete(sets, id)
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM item_variants WHERE item_id = $1`, id).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if err := set.check(); err != nil {
			return fmt.Errorf("demo variants of item %d: %w", id, err)
		}
		if err := saveVariantsTx(ctx, tx, id, set); err != nil {
			var ve *VariantError
			if errors.As(err, &ve) {
				return fmt.Errorf("demo variants of item %d: %w", id, err)
			}
			return err
		}
	}
	return tx.Commit()
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}

// variantFields are an item's options and variants as the audit log
// records them: one field per variant, named by its SKU, so that an entry
// shows only the variants a save changed.
func variantFields(ctx context.Context, tx *sql.Tx, itemID int64) (audit.Fields, error) {
	f := audit.Fields{}
	var options string
	if err := tx.QueryRowContext(ctx, `SELECT option_names FROM items WHERE id = $1`, itemID).Scan(&options); err != nil {
		return nil, fmt.Errorf("save variants: %w", err)
	}
	f["options"] = options
	rows, err := tx.QueryContext(ctx, `SELECT sku, option1, option2, option3, price_cents, compare_at_cents, stock
		FROM item_variants WHERE item_id = $1 ORDER BY id`, itemID)
	if err != nil {
		return nil, fmt.Errorf("save variants: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sku string
		var o [MaxOptions]string
		var price, compare sql.NullInt64
		var stock int64
		if err := rows.Scan(&sku, &o[0], &o[1], &o[2], &price, &compare, &stock); err != nil {
			return nil, fmt.Errorf("save variants: %w", err)
		}
		values := strings.Trim(strings.Join(o[:], " / "), " /")
		desc := fmt.Sprintf("%s, stock %d", values, stock)
		if price.Valid {
			desc += fmt.Sprintf(", price %d", price.Int64)
		}
		if compare.Valid {
			desc += fmt.Sprintf(", was %d", compare.Int64)
		}
		f["variant "+sku] = desc
	}
	return f, rows.Err()
}
