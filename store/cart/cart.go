package cart

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// MaxLines caps the distinct items in one cart. It bounds the header's
// HVALS on every page, the cart page's catalog read and the size of one
// checkout transaction.
const MaxLines = 100

// ErrFull means the cart already holds MaxLines other items.
var ErrFull = errors.New("cart is full")

// Line is one variant of an item in a cart and its quantity; VariantID
// is 0 for the implicit variant of an item without options.
type Line struct {
	ItemID    int64
	VariantID int64
	Qty       int64
}

// Field is the line's field in the cart's hash: the item id for the
// implicit variant (the format carts had before variants, which they
// keep), else "<item id>:<variant id>".
func (l Line) Field() string { return LineField(l.ItemID, l.VariantID) }

// LineField is the hash field of a variant (0: the implicit one) of an
// item.
func LineField(itemID, variantID int64) string {
	f := strconv.FormatInt(itemID, 10)
	if variantID != 0 {
		f += ":" + strconv.FormatInt(variantID, 10)
	}
	return f
}

// parseField reads a hash field; ok is false for one the shop never
// writes.
func parseField(f string) (itemID, variantID int64, ok bool) {
	item, variant, has := strings.Cut(f, ":")
	itemID, err := strconv.ParseInt(item, 10, 64)
	if err != nil || itemID <= 0 {
		return 0, 0, false
	}
	if has {
		if variantID, err = strconv.ParseInt(variant, 10, 64); err != nil || variantID <= 0 {
			return 0, 0, false
		}
	}
	return itemID, variantID, true
}

// Cart is a shopper's cart: its lines by item id and the total quantity,
// which the header shows.
type Cart struct {
	Lines []Line
	Count int64
	// Code is the discount code the shopper applied ("" for none), as
	// typed; the checkout checks it again.
	Code string
}

// Qty returns the quantity of an item without options (its implicit
// variant) in the cart, 0 when it is not there.
func (c Cart) Qty(itemID int64) int64 { return c.QtyOf(itemID, 0) }

// QtyOf returns the quantity of a variant (0: the implicit one) of itemID
// in the cart, 0 when it is not there.
func (c Cart) QtyOf(itemID, variantID int64) int64 {
	for _, l := range c.Lines {
		if l.ItemID == itemID && l.VariantID == variantID {
			return l.Qty
		}
	}
	return 0
}

// ItemIDs lists the cart's items in line order, each once.
func (c Cart) ItemIDs() []int64 {
	ids := make([]int64, 0, len(c.Lines))
	for _, l := range c.Lines {
		if len(ids) == 0 || ids[len(ids)-1] != l.ItemID {
			ids = append(ids, l.ItemID)
		}
	}
	return ids
}

// VariantIDs lists the cart's variants besides implicit ones.
func (c Cart) VariantIDs() []int64 {
	var ids []int64
	for _, l := range c.Lines {
		if l.VariantID != 0 {
			ids = append(ids, l.VariantID)
		}
	}
	return ids
}

// Owner says whose cart is meant. A signed-in shopper's cart belongs
// to the account (UserID > 0): one hash shared by every device the shopper
// uses, kept across sign-out and session eviction and expiring after
// ACCOUNT_CART_TTL without use. A guest's cart is the session's own
// `cart:{<session id>}`, which ends with the session.
type Owner struct {
	UserID int64
	Token  string
}

// Guest reports whether the cart is a guest session's.
func (o Owner) Guest() bool { return o.UserID <= 0 }

// key is the Redis key of the owner's cart.
func (o Owner) key() string {
	if o.Guest() {
		return keys.GuestCart(o.Token)
	}
	return keys.AccountCart(o.UserID)
}

// DefaultAccountTTL is how long an account's cart is kept without use.
const DefaultAccountTTL = 2160 * time.Hour

// Service keeps the carts.
type Service struct {
	rdb redis.UniversalClient
	// accountTTL is how long an account's cart is kept without use.
	accountTTL time.Duration
}

// New returns the carts; an account's cart is kept accountTTL without
// use (0 takes DefaultAccountTTL).
func New(b platform.Base, accountTTL time.Duration) *Service {
	if accountTTL <= 0 {
		accountTTL = DefaultAccountTTL
	}
	return &Service{rdb: b.Redis, accountTTL: accountTTL}
}

// cartTTL is the idle lifetime of the owner's cart; 0 for a guest cart,
// which lives as long as its session.
func (s *Service) cartTTL(o Owner) time.Duration {
	if o.Guest() {
		return 0
	}
	return s.accountTTL
}

// setCartLine sets one line (HSET, or HDEL for qty <= 0), atomically with
// the line cap, returning the whole cart so that the caller
// can answer with the new count and total in the same round trip. An
// account's cart gets its idle lifetime renewed (ARGV[4] ms, 0 = none).
// One key, so it runs on Cluster. Reply: {1, field, value, ...} or {0}
// when full.
var setCartLine = redis.NewScript(`
local key, item, qty, maxLines, ttl = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if qty <= 0 then
  redis.call('HDEL', key, item)
elseif redis.call('HEXISTS', key, item) == 1 or redis.call('HLEN', key) < maxLines then
  redis.call('HSET', key, item, ARGV[2])
else
  return {0}
end
if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
local out = redis.call('HGETALL', key)
table.insert(out, 1, 1)
return out`)

// SetCartLine sets the quantity of an item without options in the owner's
// cart (its implicit variant): SetLine of Line{ItemID: itemID, Qty: qty}.
func (s *Service) SetCartLine(ctx context.Context, owner Owner, itemID, qty int64) (Cart, error) {
	return s.SetLine(ctx, owner, Line{ItemID: itemID, Qty: qty})
}

// SetLine sets the quantity of one variant of an item in the owner's
// cart (it replaces, not adds); a quantity <= 0 removes the line. It
// returns the cart as it is after the write, or ErrFull. Validating the
// variant and the quantity against the catalog is the caller's job.
func (s *Service) SetLine(ctx context.Context, owner Owner, l Line) (Cart, error) {
	ttl := s.cartTTL(owner).Milliseconds()
	res, err := setCartLine.Run(ctx, s.rdb, []string{owner.key()}, l.Field(), l.Qty, MaxLines, ttl).Slice()
	if err != nil {
		return Cart{}, fmt.Errorf("set cart line: %w", err)
	}
	if len(res) == 0 || res[0] != int64(1) {
		return Cart{}, ErrFull
	}
	fields := make(map[string]string, (len(res)-1)/2)
	for i := 1; i+1 < len(res); i += 2 {
		k, _ := res[i].(string)
		v, _ := res[i+1].(string)
		fields[k] = v
	}
	return parseCart(fields), nil
}

// Cart reads the owner's cart and its applied discount code. Reading an account's cart (the cart and
// checkout pages) counts as using it and renews its idle lifetime.
func (s *Service) Cart(ctx context.Context, owner Owner) (Cart, error) {
	pipe := s.rdb.Pipeline()
	all := pipe.HGetAll(ctx, owner.key())
	if ttl := s.cartTTL(owner); ttl > 0 {
		pipe.PExpire(ctx, owner.key(), ttl)
	}
	code := s.addCodeRead(ctx, pipe, owner)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return Cart{}, fmt.Errorf("cart: %w", err)
	}
	c := parseCart(all.Val())
	c.Code = code.Val()
	return c, nil
}

// CartLines are the lines of the owner's cart, for callers without a
// session read (the header counts those the catalog can sell).
func (s *Service) CartLines(ctx context.Context, owner Owner) ([]Line, error) {
	m, err := s.rdb.HGetAll(ctx, owner.key()).Result()
	if err != nil {
		return nil, fmt.Errorf("cart lines: %w", err)
	}
	return parseCart(m).Lines, nil
}

// CartCount is the total quantity in the owner's cart, every line.
func (s *Service) CartCount(ctx context.Context, owner Owner) (int64, error) {
	lines, err := s.CartLines(ctx, owner)
	return Count(lines), err
}

// CountRead is a queued read of the header's cart count.
type CountRead struct {
	guest   *redis.MapStringStringCmd
	account *redis.MapStringStringCmd // nil when no user is claimed
	claimed int64
}

// AddCount queues the read of the header's count on a session's
// pipeline: the session's guest cart (sid is its session id) and, when
// the signed cookie claims a user, that account's cart; Lines picks the
// one the cart page will show. The lines come back whole (carts are
// capped at MaxLines lines, so the reply stays small): the header counts
// only the lines that can be bought, which the catalog decides.
func AddCount(ctx context.Context, pipe redis.Pipeliner, sid string, claimedUserID int64) CountRead {
	r := CountRead{guest: pipe.HGetAll(ctx, keys.GuestCartOf(sid)), claimed: claimedUserID}
	if claimedUserID > 0 {
		r.account = pipe.HGetAll(ctx, keys.AccountCart(claimedUserID))
	}
	return r
}

// Lines is the header's cart once the pipeline ran, given who `login:`
// says is signed in on the token: the account's cart when that is the
// claimed user, else the guest cart.
func (r CountRead) Lines(loginUserID int64) []Line {
	if r.account != nil && loginUserID == r.claimed {
		return parseCart(r.account.Val()).Lines
	}
	return parseCart(r.guest.Val()).Lines
}

// GuestRead is a queued read of a guest session's cart.
type GuestRead struct{ cmd *redis.MapStringStringCmd }

// AddGuestRead queues the read of a guest session's cart, which sign-in
// merges into the account's cart (AddMerge).
func AddGuestRead(ctx context.Context, pipe redis.Pipeliner, token string) GuestRead {
	return GuestRead{cmd: pipe.HGetAll(ctx, keys.GuestCart(token))}
}

// LinesOf reads the header's cart through c, the client-side caching
// client of a cached page's read: the account's cart when the server
// agrees who is signed in (userID > 0), else the session's guest cart.
func LinesOf(ctx context.Context, c redis.Cmdable, token string, userID int64) ([]Line, error) {
	key := keys.GuestCart(token)
	if userID > 0 {
		key = keys.AccountCart(userID)
	}
	m, err := c.HGetAll(ctx, key).Result()
	return parseCart(m).Lines, err
}

// Count is the total quantity of lines.
func Count(lines []Line) int64 {
	var n int64
	for _, l := range lines {
		n += l.Qty
	}
	return n
}

// mergeCart adds a guest's lines to an account's cart at sign-in, in one
// step on the account's key (so a write from the shopper's other device
// lands before or after it, never in between): the guest's quantity wins
// for an item in both, the line cap holds (lines that do not fit are
// dropped and counted), and the idle lifetime is renewed. Replaying it
// gives the same cart. One key, so it runs on Cluster.
// ARGV: max lines, ttl ms, then item, qty pairs. Reply: lines dropped.
var mergeCart = redis.NewScript(`
local key, maxLines, ttl = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local dropped = 0
for i = 3, #ARGV, 2 do
  if redis.call('HEXISTS', key, ARGV[i]) == 1 or redis.call('HLEN', key) < maxLines then
    redis.call('HSET', key, ARGV[i], ARGV[i + 1])
  else
    dropped = dropped + 1
  end
end
if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
return dropped`)

// AddMerge queues the merge of a guest cart read before (nil: none) into
// userID's account cart; its reply is how many guest lines did not fit.
// Nothing is queued for an empty guest cart (the reply is then nil).
func (s *Service) AddMerge(ctx context.Context, pipe redis.Pipeliner, userID int64, guest *GuestRead) *redis.Cmd {
	if guest == nil {
		return nil
	}
	lines := parseCart(guest.cmd.Val()).Lines
	if len(lines) == 0 {
		return nil
	}
	owner := Owner{UserID: userID}
	args := make([]any, 0, 2+2*len(lines))
	args = append(args, MaxLines, s.cartTTL(owner).Milliseconds())
	for _, l := range lines {
		args = append(args, l.Field(), l.Qty)
	}
	return mergeCart.Eval(ctx, pipe, []string{owner.key()}, args...)
}

// parseCart turns the hash into lines sorted by item id, then variant id
// (the checkout's lock order). Fields or values the shop never writes are
// skipped.
func parseCart(m map[string]string) Cart {
	c := Cart{Lines: make([]Line, 0, len(m))}
	for k, v := range m {
		id, variant, ok := parseField(k)
		qty, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || qty <= 0 {
			continue
		}
		c.Lines = append(c.Lines, Line{ItemID: id, VariantID: variant, Qty: qty})
		c.Count += qty
	}
	sort.Slice(c.Lines, func(i, j int) bool {
		a, b := c.Lines[i], c.Lines[j]
		return a.ItemID < b.ItemID || a.ItemID == b.ItemID && a.VariantID < b.VariantID
	})
	return c
}

// removeOrdered takes the ordered lines out of the cart, but only those
// whose quantity is still what was ordered: a line changed in another tab
// during the checkout stays. One key, so it runs on Cluster.
var removeOrdered = redis.NewScript(`
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
return 1`)

// AddRemoveOrdered queues, on pipe, taking the ordered lines out of the
// owner's cart after a checkout, but only those whose quantity is still
// what was ordered: a line changed in another tab during the checkout
// stays.
func AddRemoveOrdered(ctx context.Context, pipe redis.Pipeliner, owner Owner, lines []Line) {
	args := make([]any, 0, 2*len(lines))
	for _, l := range lines {
		args = append(args, l.Field(), l.Qty)
	}
	removeOrdered.Eval(ctx, pipe, []string{owner.key()}, args...)
}
