package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"storefront/store/platform"
)

// MaxOptions is how many options (Size, Colour, ...) an item may have.
const MaxOptions = 3

// MaxVariants bounds the variants of one item (the item page's picker and
// the admin's form list them all).
const MaxVariants = 100

// Variant is one offered combination of an item's options, with its own
// SKU and stock. An item without options has one implicit variant, the
// item row itself, whose id is 0 in carts and order lines.
type Variant struct {
	ID     int64
	ItemID int64
	SKU    string
	// Values are the variant's option values, one per item option, in
	// the item's option order.
	Values []string
	// OwnPrice is the variant's own price in cents; PriceSet is false when
	// it sells at the item's price.
	OwnPrice int64
	PriceSet bool
	// CompareAtCents is the "was" price shown beside it, 0 for none.
	CompareAtCents int64
	Stock          int64
	// Picture is the position of one of the item's pictures (1 is the
	// first) shown for the variant, 0 for the item's main picture.
	Picture int
}

// Label is the variant's options as a shopper reads them ("Size: M,
// Colour: Black"), given the item's option names.
func (v Variant) Label(names []string) string {
	parts := make([]string, 0, len(v.Values))
	for i, val := range v.Values {
		if i < len(names) {
			parts = append(parts, names[i]+": "+val)
		}
	}
	return strings.Join(parts, ", ")
}

// Sold is the item as the variant sells it: its price (the item's unless
// the variant sets one), stock and SKU.
func (v Variant) Sold(it Item) Item {
	if v.PriceSet {
		it.PriceCents = v.OwnPrice
	}
	it.Stock, it.SKU = v.Stock, v.SKU
	return it
}

func splitOptions(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

const variantColumns = `id, item_id, sku, option1, option2, option3, price_cents, compare_at_cents, stock, picture`

func scanVariant(row interface{ Scan(...any) error }) (Variant, error) {
	var v Variant
	var o [3]string
	var price, compare sql.NullInt64
	err := row.Scan(&v.ID, &v.ItemID, &v.SKU, &o[0], &o[1], &o[2], &price, &compare, &v.Stock, &v.Picture)
	v.OwnPrice, v.PriceSet, v.CompareAtCents = price.Int64, price.Valid, compare.Int64
	for _, val := range o {
		if val == "" {
			break
		}
		v.Values = append(v.Values, val)
	}
	return v, err
}

func collectVariants(rows *sql.Rows, err error) ([]Variant, error) {
	if err != nil {
		return nil, fmt.Errorf("variants: %w", err)
	}
	defer rows.Close()
	var out []Variant
	for rows.Next() {
		v, err := scanVariant(rows)
		if err != nil {
			return nil, fmt.Errorf("variants: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Variants lists an item's variants in the order they were added (none
// for an item without options).
func (s *Service) Variants(ctx context.Context, itemID int64) ([]Variant, error) {
	return collectVariants(s.db.QueryContext(ctx, `SELECT `+variantColumns+` FROM item_variants WHERE item_id = $1 ORDER BY id`, itemID))
}

// variantsOf reads the variants of the items of rows that have options,
// by item, in one query (none when no item has options).
func (s *Service) variantsOf(ctx context.Context, rows map[int64]Item) (map[int64][]Variant, error) {
	var ids []int64
	for id, it := range rows {
		if it.HasOptions() {
			ids = append(ids, id)
		}
	}
	out := make(map[int64][]Variant, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	ph, args := platform.InList(1, ids)
	vs, err := collectVariants(s.db.QueryContext(ctx, `SELECT `+variantColumns+` FROM item_variants WHERE item_id IN (`+ph+`) ORDER BY id`, args...))
	for _, v := range vs {
		out[v.ItemID] = append(out[v.ItemID], v)
	}
	return out, err
}

// VariantFor is the variant of vs with the chosen value of each of the
// item's options (names), chosen by option name; false when no variant
// has them all (an option not chosen, a combination not offered).
func VariantFor(names []string, vs []Variant, chosen map[string]string) (Variant, bool) {
	for _, v := range vs {
		if hasValues(names, v, chosen) {
			return v, true
		}
	}
	return Variant{}, false
}

// hasValues reports whether v has the chosen value of every option.
func hasValues(names []string, v Variant, chosen map[string]string) bool {
	for i, name := range names {
		if i >= len(v.Values) || chosen[name] != v.Values[i] {
			return false
		}
	}
	return len(names) > 0
}

// VariantsByID reads variants by id (a cart's); missing ids are skipped.
func (s *Service) VariantsByID(ctx context.Context, ids []int64) (map[int64]Variant, error) {
	out := make(map[int64]Variant, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	ph, args := platform.InList(1, ids)
	vs, err := collectVariants(s.db.QueryContext(ctx, `SELECT `+variantColumns+` FROM item_variants WHERE id IN (`+ph+`)`, args...))
	for _, v := range vs {
		out[v.ID] = v
	}
	return out, err
}

// VariantName is a variant as a list of links names it: its item, SKU and
// options as a shopper reads them ("Size: M").
type VariantName struct {
	ItemID int64
	SKU    string
	Label  string
}

// VariantNames reads variants' items and labels by id, in one query (the
// "also bought" list's). Variants no longer offered are left out: deleted
// ones, and those of an item that has no options any more.
func (s *Service) VariantNames(ctx context.Context, ids []int64) (map[int64]VariantName, error) {
	out := make(map[int64]VariantName, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	ph, args := platform.InList(1, ids)
	rows, err := s.db.QueryContext(ctx, `SELECT v.id, v.item_id, v.sku, v.option1, v.option2, v.option3, i.option_names
		FROM item_variants v JOIN items i ON i.id = v.item_id WHERE v.id IN (`+ph+`) AND i.option_names <> ''`, args...)
	if err != nil {
		return nil, fmt.Errorf("variant names: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var v Variant
		var o [3]string
		var options string
		if err := rows.Scan(&id, &v.ItemID, &v.SKU, &o[0], &o[1], &o[2], &options); err != nil {
			return nil, fmt.Errorf("variant names: %w", err)
		}
		for _, val := range o {
			if val == "" {
				break
			}
			v.Values = append(v.Values, val)
		}
		out[id] = VariantName{ItemID: v.ItemID, SKU: v.SKU, Label: v.Label(splitOptions(options))}
	}
	return out, rows.Err()
}

// SellableAs is what a cart line of variantID (0: the implicit one) of it
// sells as, and false when there is no such variant of the item: the
// implicit variant of an item with options, or a variant of another
// item. vs holds the variants read for the cart.
func SellableAs(it Item, variantID int64, vs map[int64]Variant) (Item, Variant, bool) {
	if variantID == 0 {
		return it, Variant{SKU: it.SKU}, !it.HasOptions()
	}
	v, ok := vs[variantID]
	if !ok || v.ItemID != it.ID || !it.HasOptions() {
		return it, Variant{}, false
	}
	return v.Sold(it), v, true
}

// Stock rows of variants inside a checkout's or a cancel's transaction.
// The item row is always updated first and a variant's row after it, so
// every transaction takes an item's row lock before any of its variants'
// and two transactions cannot deadlock on PostgreSQL.

// takeVariantStock takes qty of a variant of an item on sale in tx: the
// item's summed stock first, then the variant's own, each a conditional
// update. The caller rolls back when it is not taken.
func takeVariantStock(ctx context.Context, tx *sql.Tx, itemID, variantID, qty int64) (left int64, taken bool, err error) {
	var sum int64
	err = tx.QueryRowContext(ctx, `UPDATE items SET stock = stock - $1 WHERE id = $2 AND stock >= $1 AND option_names <> '' AND `+OnSale+` RETURNING stock`,
		qty, itemID).Scan(&sum)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	err = tx.QueryRowContext(ctx, `UPDATE item_variants SET stock = stock - $1 WHERE id = $2 AND item_id = $3 AND stock >= $1 RETURNING stock`,
		qty, variantID, itemID).Scan(&left)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return left, err == nil, err
}

// variantStockTx reads a variant's stock with its item's name and archive
// time in tx; ok is false when the item has no such variant.
func variantStockTx(ctx context.Context, tx *sql.Tx, itemID, variantID int64) (it Item, ok bool, err error) {
	var archived sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT i.name, v.stock, i.archived_at FROM item_variants v JOIN items i ON i.id = v.item_id
		WHERE v.id = $1 AND v.item_id = $2 AND i.option_names <> ''`, variantID, itemID).Scan(&it.Name, &it.Stock, &archived)
	it.ID, it.ArchivedAt = itemID, archived.Int64
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, false, nil
	}
	return it, err == nil, err
}

// SaleLine is what an order line records of the variant it sold.
type SaleLine struct {
	Name       string
	PriceCents int64
	SKU        string
	// Variant is the variant's options as a shopper reads them, "" for
	// an item without options.
	Variant string
}

// SaleLineTx reads the name, price, SKU and options of a variant (0: the
// item's implicit one) in tx: a checkout's snapshot, taken after its stock
// updates so that they are the committed values at the moment of sale.
func SaleLineTx(ctx context.Context, tx *sql.Tx, itemID, variantID int64) (SaleLine, error) {
	var l SaleLine
	var options string
	err := tx.QueryRowContext(ctx, `SELECT name, price_cents, COALESCE(sku, ''), option_names FROM items WHERE id = $1`, itemID).
		Scan(&l.Name, &l.PriceCents, &l.SKU, &options)
	if err != nil || variantID == 0 {
		return l, err
	}
	v, err := scanVariant(tx.QueryRowContext(ctx, `SELECT `+variantColumns+` FROM item_variants WHERE id = $1`, variantID))
	if err != nil {
		return l, err
	}
	if v.PriceSet {
		l.PriceCents = v.OwnPrice
	}
	l.SKU, l.Variant = v.SKU, v.Label(splitOptions(options))
	return l, nil
}
