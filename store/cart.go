package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// MaxCartLines caps the distinct items in one cart. It bounds the header's
// HVALS on every page, the cart page's catalog read and the size of one
// checkout transaction.
const MaxCartLines = 100

// ErrCartFull means the cart already holds MaxCartLines other items.
var ErrCartFull = errors.New("cart is full")

// CartLine is one item of a cart and its quantity.
type CartLine struct {
	ItemID int64
	Qty    int64
}

// Cart is a session's cart (the book's `cart:<token>` hash): its lines by
// item id and the total quantity, which the header shows.
type Cart struct {
	Lines []CartLine
	Count int64
}

// Qty returns the quantity of itemID in the cart, 0 when it is not there.
func (c Cart) Qty(itemID int64) int64 {
	for _, l := range c.Lines {
		if l.ItemID == itemID {
			return l.Qty
		}
	}
	return 0
}

// ItemIDs lists the cart's items in line order.
func (c Cart) ItemIDs() []int64 {
	ids := make([]int64, len(c.Lines))
	for i, l := range c.Lines {
		ids[i] = l.ItemID
	}
	return ids
}

// setCartLine is the book's add_to_cart (HSET, or HDEL for qty <= 0) made
// atomic with the line cap, returning the whole cart so that the caller
// can answer with the new count and total in the same round trip. One key,
// so it runs on Cluster. Reply: {1, field, value, ...} or {0} when full.
var setCartLine = redis.NewScript(`
local key, item, qty, maxLines = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if qty <= 0 then
  redis.call('HDEL', key, item)
elseif redis.call('HEXISTS', key, item) == 1 or redis.call('HLEN', key) < maxLines then
  redis.call('HSET', key, item, ARGV[2])
else
  return {0}
end
local out = redis.call('HGETALL', key)
table.insert(out, 1, 1)
return out`)

// SetCartLine sets the quantity of one item in the session's cart (it
// replaces, not adds); qty <= 0 removes the line. It returns the cart as
// it is after the write, or ErrCartFull. Validating the item and the
// quantity against the catalog is the caller's job.
func (s *Store) SetCartLine(ctx context.Context, token string, itemID, qty int64) (Cart, error) {
	res, err := setCartLine.Run(ctx, s.rdb, []string{cartKey(token)}, itemID, qty, MaxCartLines).Slice()
	if err != nil {
		return Cart{}, fmt.Errorf("set cart line: %w", err)
	}
	if len(res) == 0 || res[0] != int64(1) {
		return Cart{}, ErrCartFull
	}
	fields := make(map[string]string, (len(res)-1)/2)
	for i := 1; i+1 < len(res); i += 2 {
		k, _ := res[i].(string)
		v, _ := res[i+1].(string)
		fields[k] = v
	}
	return parseCart(fields), nil
}

// Cart reads the session's cart.
func (s *Store) Cart(ctx context.Context, token string) (Cart, error) {
	m, err := s.rdb.HGetAll(ctx, cartKey(token)).Result()
	if err != nil {
		return Cart{}, fmt.Errorf("cart: %w", err)
	}
	return parseCart(m), nil
}

// CartCount is the total quantity in the session's cart. Pages get it from
// LoadSession for free; this is for callers without a session read.
func (s *Store) CartCount(ctx context.Context, token string) (int64, error) {
	vals, err := s.rdb.HVals(ctx, cartKey(token)).Result()
	if err != nil {
		return 0, fmt.Errorf("cart count: %w", err)
	}
	return sumQuantities(vals), nil
}

// parseCart turns the hash into lines sorted by item id. Fields or values
// that are not positive numbers (which the shop never writes) are skipped.
func parseCart(m map[string]string) Cart {
	c := Cart{Lines: make([]CartLine, 0, len(m))}
	for k, v := range m {
		id, err1 := strconv.ParseInt(k, 10, 64)
		qty, err2 := strconv.ParseInt(v, 10, 64)
		if err1 != nil || err2 != nil || id <= 0 || qty <= 0 {
			continue
		}
		c.Lines = append(c.Lines, CartLine{ItemID: id, Qty: qty})
		c.Count += qty
	}
	sort.Slice(c.Lines, func(i, j int) bool { return c.Lines[i].ItemID < c.Lines[j].ItemID })
	return c
}

// sumQuantities adds up a cart's HVALS, the header's count.
func sumQuantities(vals []string) int64 {
	var n int64
	for _, v := range vals {
		if q, err := strconv.ParseInt(v, 10, 64); err == nil && q > 0 {
			n += q
		}
	}
	return n
}
