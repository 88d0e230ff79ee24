package catalog

import (
	"context"
	"time"

	"storefront/store/platform"
)

// buyableTTL is how long an item's sellability is trusted for the
// header's cart count. A change on this instance forgets it at once
// (Changed); another instance's change shows in the badge within this
// long. The cart page and the checkout always read the database.
const buyableTTL = 10 * time.Second

// buyableMax bounds the cache (platform.Memo).
const buyableMax = 100_000

// LineRef is a cart line's variant of an item (0: the implicit one) and
// its quantity.
type LineRef struct {
	ItemID, VariantID, Qty int64
}

// The buyable cache keeps, per item, what the header's cart count needs:
// the item row and its variants, until buyableTTL after they were read.
type buyableCache = platform.Memo[int64, buyableEntry]

type buyableEntry struct {
	it       Item
	found    bool
	variants map[int64]Variant
}

// BuyableCount is the quantity of the lines that can be bought now: the
// header's cart count. A line of an archived item, of a variant the item
// no longer sells (or of an item that gained options since), or one sold
// out is not counted; a line with fewer left than it asks for counts
// whole (the cart page says how many are left). Items are read from the
// database at most once per buyableTTL per instance.
func (s *Service) BuyableCount(ctx context.Context, lines []LineRef) (int64, error) {
	if len(lines) == 0 {
		return 0, nil
	}
	entries, err := s.buyableEntries(ctx, lines)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, l := range lines {
		e := entries[l.ItemID]
		if !e.found || e.it.Archived() {
			continue
		}
		if sold, _, ok := SellableAs(e.it, l.VariantID, e.variants); ok && sold.Stock > 0 {
			n += l.Qty
		}
	}
	return n, nil
}

// buyableEntries returns the cached entries of the lines' items, reading
// those missing or expired in two queries.
func (s *Service) buyableEntries(ctx context.Context, lines []LineRef) (map[int64]buyableEntry, error) {
	now := s.clock.Now()
	out := make(map[int64]buyableEntry, len(lines))
	var missing []int64
	for _, l := range lines {
		if _, seen := out[l.ItemID]; seen {
			continue
		}
		e, ok := s.buyable.Get(l.ItemID, now)
		if !ok {
			missing = append(missing, l.ItemID)
		}
		out[l.ItemID] = e
	}
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := s.Items(ctx, missing)
	if err != nil {
		return nil, err
	}
	vs, err := s.variantsOf(ctx, rows)
	if err != nil {
		return nil, err
	}
	until := now.Add(buyableTTL)
	for _, id := range missing {
		it, found := rows[id]
		e := buyableEntry{it: it, found: found, variants: map[int64]Variant{}}
		for _, v := range vs[id] {
			e.variants[v.ID] = v
		}
		out[id] = e
		s.buyable.Put(id, e, until)
	}
	return out, nil
}
