package analytics

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// "Also bought" and "viewers who bought": kept in Redis as orders happen.
// Each item has a ZSET of the items bought in the same orders (item id ->
// orders they shared) and a "buyers" counter in its counts HASH beside the
// "views" counter that every item view increments. Each variant sold has a
// ZSET of its own, of what was bought with that variant: the other order
// lines, a variant named as "<item>:<variant>", an item without options
// as "<item>". All of an item's keys carry its hash tag, so one script
// updates them together, also on Cluster; an order touches each of its
// items' slots with a separate script.

// alsoBoughtShown is how many co-purchased items an item page lists.
const alsoBoughtShown = 6

// alsoBoughtKeep bounds each item's and each variant's co-purchase ZSET:
// the least bought together go first when it grows past this.
const alsoBoughtKeep = 200

// countBoughtTogether counts one order for one of its items: one more
// buyer, one more shared order with each other item in it, and, for each
// of the item's variants in the order, one more shared order with each
// other line.
// KEYS: the item's co-purchase ZSET, its counts HASH, then the ZSETs of
// its variants in the order. ARGV: keep, the number n of other items, the
// n other items' ids, then the other lines' members.
var countBoughtTogether = redis.NewScript(`
redis.call('HINCRBY', KEYS[2], 'buyers', 1)
local keep = tonumber(ARGV[1])
local items = tonumber(ARGV[2])
local function count(key, from, to)
  if from > to then return end
  for i = from, to do
    redis.call('ZINCRBY', key, 1, ARGV[i])
  end
  local n = redis.call('ZCARD', key)
  if n > keep then redis.call('ZREMRANGEBYRANK', key, 0, n - keep - 1) end
end
count(KEYS[1], 3, 2 + items)
for k = 3, #KEYS do
  count(KEYS[k], 3 + items, #ARGV)
end
return 1`)

// Bought is one line of an order as the statistics see it: an item and
// its variant (0 for an item without options).
type Bought struct {
	ItemID    int64
	VariantID int64
}

// member is the line as a variant's co-purchase ZSET names it.
func (b Bought) member() string {
	if b.VariantID == 0 {
		return platform.FormatID(b.ItemID)
	}
	return platform.FormatID(b.ItemID) + ":" + platform.FormatID(b.VariantID)
}

// parseBought reads a member of a variant's co-purchase ZSET.
func parseBought(m string) (Bought, bool) {
	item, variant, hasVariant := strings.Cut(m, ":")
	var b Bought
	var err error
	if b.ItemID, err = strconv.ParseInt(item, 10, 64); err != nil || b.ItemID <= 0 {
		return Bought{}, false
	}
	if hasVariant {
		if b.VariantID, err = strconv.ParseInt(variant, 10, 64); err != nil || b.VariantID <= 0 {
			return Bought{}, false
		}
	}
	return b, true
}

// AddBoughtTogether queues, on pipe, the statistics of one order of lines:
// the wiring has the orders call it on the pipeline that empties the
// cart, so that counting an order costs no round trip of its own. Lines of
// the same item are not counted as bought with each other.
func AddBoughtTogether(ctx context.Context, pipe redis.Pipeliner, lines []Bought) {
	var items []int64
	for _, l := range lines {
		if !slices.Contains(items, l.ItemID) {
			items = append(items, l.ItemID)
		}
	}
	for _, id := range items {
		ks := []string{keys.AlsoBought(id), keys.ItemCounts(id)}
		args := []any{alsoBoughtKeep, len(items) - 1}
		for _, other := range items {
			if other != id {
				args = append(args, other)
			}
		}
		for _, l := range lines {
			switch {
			case l.ItemID != id:
				args = append(args, l.member())
			case l.VariantID != 0 && !slices.Contains(ks, keys.AlsoBoughtVariant(id, l.VariantID)):
				ks = append(ks, keys.AlsoBoughtVariant(id, l.VariantID))
			}
		}
		countBoughtTogether.Eval(ctx, pipe, ks, args...)
	}
}

// AlsoBought is what an item page shows about the item's orders: what was
// most often bought with it (most first) and how many orders included it.
// On a variant's page the list is what was bought with that variant
// (Variant names it), each line with its variant; on the item's page, or
// while nobody bought the variant with anything, it is the items bought
// with the item, whatever their variants (Variant is 0).
// Nothing in it is per visitor, so it may be in the shared cached page.
type AlsoBought struct {
	Lines   []Bought
	Variant int64
	Buyers  int64
}

// ItemIDs are the listed lines' items, in the list's order.
func (a AlsoBought) ItemIDs() []int64 {
	out := make([]int64, 0, len(a.Lines))
	for _, l := range a.Lines {
		out = append(out, l.ItemID)
	}
	return out
}

// VariantIDs are the listed lines' variants (lines without one left out).
func (a AlsoBought) VariantIDs() []int64 {
	var out []int64
	for _, l := range a.Lines {
		if l.VariantID != 0 {
			out = append(out, l.VariantID)
		}
	}
	return out
}

// ViewToBuyMinViews is how many views an item needs before its page says
// what share of them bought it: "100% of viewers bought it" over three
// views says nothing.
const ViewToBuyMinViews = 20

// ViewToBuy is the percentage of views that ended in an order of the item
// (1-100, rounded), and false when it is not worth showing: under
// ViewToBuyMinViews views, or under 1% ("0% of viewers bought it" only
// puts shoppers off).
func (a AlsoBought) ViewToBuy(views int64) (int64, bool) {
	if views < ViewToBuyMinViews {
		return 0, false
	}
	pct := min(100, (a.Buyers*100+views/2)/views)
	return pct, pct >= 1
}

// AlsoBoughtRead is the pipelined read of an item's order statistics,
// queued beside the row read of a page render.
type AlsoBoughtRead struct {
	ids     *redis.StringSliceCmd
	variant int64
	lines   *redis.StringSliceCmd
	buyers  *redis.StringCmd
}

// AddAlsoBoughtRead queues the reads of what the item page shows of the
// item's orders (of its variant variantID's, when one is chosen): the same
// for every visitor, so only a render asks. Both lists are read, so that a
// variant nobody bought with anything yet shows the item's.
func AddAlsoBoughtRead(ctx context.Context, pipe redis.Pipeliner, itemID, variantID int64) AlsoBoughtRead {
	r := AlsoBoughtRead{
		ids:     pipe.ZRevRange(ctx, keys.AlsoBought(itemID), 0, alsoBoughtShown-1),
		variant: variantID,
		buyers:  pipe.HGet(ctx, keys.ItemCounts(itemID), "buyers"),
	}
	if variantID != 0 {
		r.lines = pipe.ZRevRange(ctx, keys.AlsoBoughtVariant(itemID, variantID), 0, alsoBoughtShown-1)
	}
	return r
}

// Result is the read's answer once the pipeline ran (empty if it was never
// queued, as on a page rendered while Redis is down).
func (r AlsoBoughtRead) Result() AlsoBought {
	if r.ids == nil {
		return AlsoBought{}
	}
	var a AlsoBought
	a.Buyers, _ = strconv.ParseInt(r.buyers.Val(), 10, 64)
	if r.lines != nil {
		for _, m := range r.lines.Val() {
			if b, ok := parseBought(m); ok {
				a.Lines = append(a.Lines, b)
			}
		}
	}
	if len(a.Lines) > 0 {
		a.Variant = r.variant
		return a
	}
	for _, id := range platform.ParseIDs(r.ids.Val()) {
		a.Lines = append(a.Lines, Bought{ItemID: id})
	}
	return a
}
