package analytics

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// "Also bought" and "viewers who bought": kept in Redis as orders happen.
// Each item has a ZSET of the items bought in the same orders (item id ->
// orders they shared) and a "buyers" counter in its counts HASH beside the
// "views" counter that every item view increments. Both keys carry the
// item's hash tag, so one script updates them together, also on Cluster;
// an order touches each of its items' slots with a separate script.

// alsoBoughtShown is how many co-purchased items an item page lists.
const alsoBoughtShown = 6

// alsoBoughtKeep bounds each item's co-purchase ZSET: the least bought
// together go first when it grows past this.
const alsoBoughtKeep = 200

// countBoughtTogether counts one order for one of its items: one more
// buyer, and one more shared order with each other item in it.
// KEYS: the item's co-purchase ZSET, its counts HASH. ARGV: keep, then
// the other items' ids.
var countBoughtTogether = redis.NewScript(`
redis.call('HINCRBY', KEYS[2], 'buyers', 1)
local keep = tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZINCRBY', KEYS[1], 1, ARGV[i])
end
if #ARGV > 1 then
  local n = redis.call('ZCARD', KEYS[1])
  if n > keep then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - keep - 1) end
end
return 1`)

// AddBoughtTogether queues, on pipe, the statistics of one order of items
// ids: the wiring has the orders call it on the pipeline that empties the
// cart, so that counting an order costs no round trip of its own.
func AddBoughtTogether(ctx context.Context, pipe redis.Pipeliner, ids []int64) {
	for _, id := range ids {
		args := make([]any, 0, len(ids))
		args = append(args, alsoBoughtKeep)
		for _, other := range ids {
			if other != id {
				args = append(args, other)
			}
		}
		countBoughtTogether.Eval(ctx, pipe, []string{keys.AlsoBought(id), keys.ItemCounts(id)}, args...)
	}
}

// AlsoBought is what an item page shows about the item's orders: the items
// most often bought with it (most first) and how many orders included it.
// Nothing in it is per visitor, so it may be in the shared cached page.
type AlsoBought struct {
	ItemIDs []int64
	Buyers  int64
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
	ids    *redis.StringSliceCmd
	buyers *redis.StringCmd
}

// AddAlsoBoughtRead queues the reads of what the item page shows of the
// item's orders: the same for every visitor, so only a render asks.
func AddAlsoBoughtRead(ctx context.Context, pipe redis.Pipeliner, itemID int64) AlsoBoughtRead {
	return AlsoBoughtRead{
		ids:    pipe.ZRevRange(ctx, keys.AlsoBought(itemID), 0, alsoBoughtShown-1),
		buyers: pipe.HGet(ctx, keys.ItemCounts(itemID), "buyers"),
	}
}

// Result is the read's answer once the pipeline ran (empty if it was never
// queued, as on a page rendered while Redis is down).
func (r AlsoBoughtRead) Result() AlsoBought {
	if r.ids == nil {
		return AlsoBought{}
	}
	n, _ := strconv.ParseInt(r.buyers.Val(), 10, 64)
	return AlsoBought{ItemIDs: platform.ParseIDs(r.ids.Val()), Buyers: n}
}
