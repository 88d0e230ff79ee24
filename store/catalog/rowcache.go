package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/workers"
)

// The row cache: `delay:` holds
// each scheduled row's refresh delay in seconds, `schedule:` when it is next
// due, and `inv:<id>` the row as JSON with column names as keys plus
// `cached_at`. Every instance polls; a due row is claimed by moving its
// schedule with a compare-and-set, so one instance refreshes it.

// rowCacheIdle is how long the worker sleeps when nothing is due.
const rowCacheIdle = 50 * time.Millisecond

// rowBatch is how many due rows one pass takes.
const rowBatch = 100

// claimRowScript moves a due row's schedule to its next refresh only if
// nobody moved it since it was read: the instance that moves it refreshes.
const claimRowScript = `
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if cur and tonumber(cur) == tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0`

// CachedRow is the JSON stored under inv:<id>: the item's row, column
// names as keys, with its variants as they sell (none without options).
type CachedRow struct {
	Item
	Variants []RowVariant `json:"variants,omitempty"`
	CachedAt float64      `json:"cached_at,omitempty"` // Unix seconds; 0 for a row read from the database
}

// RowVariant is a variant as the row cache and /api/items/:id carry it:
// its price as sold (its own, else the item's), its "was" price (0 for
// none), stock and picture (0: the item's main one).
type RowVariant struct {
	ID             int64    `json:"id"`
	SKU            string   `json:"sku"`
	Values         []string `json:"values"`
	PriceCents     int64    `json:"price_cents"`
	CompareAtCents int64    `json:"compare_at_cents"`
	Stock          int64    `json:"stock"`
	Picture        int      `json:"picture"`
}

// rowVariants are vs as they sell for it.
func rowVariants(it Item, vs []Variant) []RowVariant {
	if !it.HasOptions() {
		return nil
	}
	out := make([]RowVariant, 0, len(vs))
	for _, v := range vs {
		sold := v.Sold(it)
		out = append(out, RowVariant{ID: v.ID, SKU: v.SKU, Values: v.Values, PriceCents: sold.PriceCents,
			CompareAtCents: v.CompareAtCents, Stock: v.Stock, Picture: v.Picture})
	}
	return out
}

// maxRowDelay bounds a refresh delay.
const maxRowDelay = 365 * 24 * time.Hour

// ScheduleRow schedules an item's row to be cached now and every delay
// after. A delay <= 0 unschedules it and deletes inv:<id> at once.
func (s *Service) ScheduleRow(ctx context.Context, id int64, delay time.Duration) error {
	if delay <= 0 {
		return s.unscheduleRows(ctx, []int64{id})
	}
	if delay > maxRowDelay {
		return platform.ErrInvalid
	}
	delay = max(delay, rowCacheIdle) // no faster than the worker polls
	member := strconv.FormatInt(id, 10)
	// The delay goes first, in its own round trip: a worker that found
	// the row scheduled without a delay would drop it, and on Cluster one
	// pipeline reaches the two keys' nodes in parallel.
	if err := s.rdb.ZAdd(ctx, keys.RowDelay, redis.Z{Score: delay.Seconds(), Member: member}).Err(); err != nil {
		return fmt.Errorf("schedule row: %w", err)
	}
	if err := s.rdb.ZAdd(ctx, keys.RowSchedule, redis.Z{Score: s.clock.Seconds(), Member: member}).Err(); err != nil {
		return fmt.Errorf("schedule row: %w", err)
	}
	return nil
}

// unscheduleRows forgets rows and deletes their cached JSON. The JSON goes
// last: a refresh that was under way looks at the delay again after
// writing, and deletes what it wrote.
func (s *Service) unscheduleRows(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	members := make([]any, len(ids))
	for i, id := range ids {
		members[i] = strconv.FormatInt(id, 10)
	}
	pipe := s.rdb.Pipeline()
	pipe.ZRem(ctx, keys.RowDelay, members...)
	pipe.ZRem(ctx, keys.RowSchedule, members...)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("unschedule rows: %w", err)
	}
	pipe = s.rdb.Pipeline()
	for _, id := range ids {
		pipe.Unlink(ctx, keys.RowCache(id))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("unschedule rows: %w", err)
	}
	return nil
}

// ScheduledRow is one row of the row cache's schedule.
type ScheduledRow struct {
	ItemID int64
	Delay  float64 // seconds
	Next   time.Time
}

// ScheduledRows lists the scheduled rows, soonest first (at most n).
func (s *Service) ScheduledRows(ctx context.Context, n int64) ([]ScheduledRow, error) {
	zs, err := s.rdb.ZRangeWithScores(ctx, keys.RowSchedule, 0, n-1).Result()
	if err != nil {
		return nil, fmt.Errorf("scheduled rows: %w", err)
	}
	pipe := s.rdb.Pipeline()
	delays := make([]*redis.FloatCmd, len(zs))
	for i, z := range zs {
		delays[i] = pipe.ZScore(ctx, keys.RowDelay, fmt.Sprint(z.Member))
	}
	if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
		return nil, fmt.Errorf("scheduled rows: %w", platform.RealErr(cmds, err))
	}
	out := make([]ScheduledRow, 0, len(zs))
	for i, z := range zs {
		id, _ := strconv.ParseInt(fmt.Sprint(z.Member), 10, 64)
		out = append(out, ScheduledRow{ItemID: id, Delay: delays[i].Val(), Next: time.UnixMicro(int64(z.Score * 1e6))})
	}
	return out, nil
}

// CacheRows refreshes the rows that are due, a batch at a time. A row without a delay, with a delay <= 0
// or that no longer exists is unscheduled and its JSON deleted. It returns
// how many rows this instance refreshed.
func (s *Service) CacheRows(ctx context.Context) (int, error) {
	now := s.clock.Seconds()
	due, err := s.rdb.ZRangeByScoreWithScores(ctx, keys.RowSchedule, &redis.ZRangeBy{
		Min: "-inf", Max: strconv.FormatFloat(now, 'f', -1, 64), Count: rowBatch,
	}).Result()
	if err != nil || len(due) == 0 {
		return 0, platform.WrapErr("cache rows", err)
	}
	delays, err := s.rowDelays(ctx, due)
	if err != nil {
		return 0, err
	}
	var drop []int64
	pipe := s.rdb.Pipeline()
	claims := map[int64]*redis.Cmd{}
	for _, z := range due {
		id, member := rowID(z.Member)
		d, ok := delays[member]
		switch {
		case id <= 0:
			pipe.ZRem(ctx, keys.RowSchedule, member) // not a row id: nothing to cache
		case !ok || d <= 0:
			drop = append(drop, id)
		default:
			claims[id] = pipe.Eval(ctx, claimRowScript, []string{keys.RowSchedule}, member,
				strconv.FormatFloat(z.Score, 'f', -1, 64), strconv.FormatFloat(now+d, 'f', -1, 64))
		}
	}
	if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
		return 0, fmt.Errorf("cache rows: %w", platform.RealErr(cmds, err))
	}
	if err := s.unscheduleRows(ctx, drop); err != nil {
		return 0, err
	}
	var mine []int64
	for id, c := range claims {
		if n, _ := c.Int(); n == 1 {
			mine = append(mine, id)
		}
	}
	return s.refreshRows(ctx, mine, delays)
}

// rowDelays reads the delays of the due rows, by member, in one ZMSCORE;
// a row without a delay reads as 0, which unschedules it like a delay
// <= 0 does.
func (s *Service) rowDelays(ctx context.Context, due []redis.Z) (map[string]float64, error) {
	members := make([]string, len(due))
	for i, z := range due {
		members[i] = fmt.Sprint(z.Member)
	}
	scores, err := s.rdb.ZMScore(ctx, keys.RowDelay, members...).Result()
	if err != nil {
		return nil, fmt.Errorf("cache rows: %w", err)
	}
	out := make(map[string]float64, len(members))
	for i, m := range members {
		if i < len(scores) {
			out[m] = scores[i]
		}
	}
	return out, nil
}

// refreshRows writes the claimed rows' JSON, then looks at their delays
// again: a row unscheduled meanwhile loses what was just written.
func (s *Service) refreshRows(ctx context.Context, ids []int64, delays map[string]float64) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	rows, err := s.Items(ctx, ids)
	if err != nil {
		return 0, err
	}
	variants, err := s.variantsOf(ctx, rows)
	if err != nil {
		return 0, err
	}
	at := s.clock.Seconds()
	var gone []int64
	pipe := s.rdb.Pipeline()
	for _, id := range ids {
		it, ok := rows[id]
		if !ok {
			gone = append(gone, id)
			continue
		}
		b, _ := json.Marshal(CachedRow{Item: it, Variants: rowVariants(it, variants[id]), CachedAt: at})
		d := delays[strconv.FormatInt(id, 10)]
		pipe.Set(ctx, keys.RowCache(id), b, rowTTL(d))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("cache rows: %w", err)
	}
	if err := s.unscheduleRows(ctx, gone); err != nil {
		return 0, err
	}
	s.rememberNames(rows)
	return len(rows), s.dropUnscheduled(ctx, rows)
}

// dropUnscheduled deletes the JSON of rows whose delay went away while
// they were refreshed.
func (s *Service) dropUnscheduled(ctx context.Context, rows map[int64]Item) error {
	if len(rows) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(rows))
	members := make([]string, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
		members = append(members, strconv.FormatInt(id, 10))
	}
	delays, err := s.rdb.ZMScore(ctx, keys.RowDelay, members...).Result()
	if err != nil {
		return fmt.Errorf("cache rows: %w", err)
	}
	pipe := s.rdb.Pipeline()
	n := 0
	for i, id := range ids {
		if i >= len(delays) || delays[i] <= 0 { // unscheduled meanwhile (a missing delay reads 0)
			pipe.Unlink(ctx, keys.RowCache(id))
			n++
		}
	}
	if n == 0 {
		return nil
	}
	_, err = pipe.Exec(ctx)
	return platform.WrapErr("cache rows", err)
}

// rowTTL is a safety net: a cached row that nobody refreshes any more
// (every instance stopped) expires instead of lying.
func rowTTL(delay float64) time.Duration {
	return 2*time.Duration(delay*float64(time.Second)) + time.Minute
}

func rowID(member any) (int64, string) {
	m := fmt.Sprint(member)
	id, err := strconv.ParseInt(m, 10, 64)
	if err != nil || id <= 0 {
		return 0, m
	}
	return id, m
}

// ItemRow returns an item's row with its variants for /api/items/:id:
// inv:<id> when the row cache holds it (cached is true), else the
// database's. An archived item is platform.ErrGone whichever copy says
// so, like its page.
func (s *Service) ItemRow(ctx context.Context, id int64) (row CachedRow, cached bool, err error) {
	b, err := s.rdb.Get(ctx, keys.RowCache(id)).Bytes()
	if err == nil && json.Unmarshal(b, &row) == nil && row.ID == id {
		if row.Archived() {
			return CachedRow{}, true, platform.ErrGone
		}
		return row, true, nil
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return CachedRow{}, false, fmt.Errorf("item row: %w", err)
	}
	it, err := s.Item(ctx, id)
	if err != nil {
		return CachedRow{}, false, err
	}
	if it.Archived() {
		return CachedRow{}, false, platform.ErrGone
	}
	row = CachedRow{Item: it}
	if it.HasOptions() {
		vs, err := s.Variants(ctx, id)
		if err != nil {
			return CachedRow{}, false, err
		}
		row.Variants = rowVariants(it, vs)
	}
	return row, false, nil
}

// CatalogRows returns the current catalog rows (price, stock, name) for
// ids, in no particular order; ids that name no item are missing from the
// map. It is the one read path for "what does this item cost and how many
// are left" outside the item pages: the cart page, cart validation and the
// checkout's pre-check use it. Scheduled rows come from the row cache
// (`inv:<id>`, read through the client-side cache where there is one, else
// one pipelined read), the rest from the database. A cached copy is
// dropped when the refresh rewrites the row, so it is never older than
// Redis's. The checkout transaction itself always re-checks stock and
// takes its price snapshot from the database, so a row-cache copy a few
// seconds old can never oversell.
func (s *Service) CatalogRows(ctx context.Context, ids []int64) (map[int64]Item, error) {
	out := make(map[int64]Item, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	cmds := make([]*redis.StringCmd, len(ids))
	err := s.reader.Read(ctx, func(c redis.Cmdable) error {
		reads := make([]redis.Cmder, len(ids))
		for i, id := range ids {
			cmds[i] = c.Get(ctx, keys.RowCache(id)) // one GET each: MGET would cross slots
			reads[i] = cmds[i]
		}
		return platform.CmdErr(reads...)
	})
	if err != nil {
		return nil, fmt.Errorf("catalog rows: %w", err)
	}
	var missing []int64
	for i, id := range ids {
		var it Item
		if b, err := cmds[i].Bytes(); err == nil && json.Unmarshal(b, &it) == nil && it.ID == id {
			out[id] = it
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		rows, err := s.Items(ctx, missing)
		if err != nil {
			return nil, err
		}
		for id, it := range rows {
			out[id] = it
		}
	}
	return out, nil
}

// rowCacheWorker runs CacheRows on every instance, 50 ms apart when idle.
type rowCacheWorker struct{ s *Service }

func (w *rowCacheWorker) Name() string { return keys.WorkerRowCache }

func (w *rowCacheWorker) Run(ctx context.Context) {
	var pace workers.Pace
	for ctx.Err() == nil {
		n, err := w.s.CacheRows(ctx)
		if done, now := pace.Add(int64(n), err); now && ctx.Err() == nil {
			w.s.host.Report(ctx, w.Name(), workers.Run{Result: fmt.Sprintf("rows refreshed: %d", done), Err: err, Counts: map[string]int64{"refreshed": done}})
		}
		wait := time.Duration(0)
		switch {
		case err != nil && ctx.Err() == nil:
			w.s.log.Warn("row cache", "err", err)
			wait = time.Second
		case n == 0:
			wait = rowCacheIdle
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
	}
}

// AddForgetRows queues, on pipe, dropping the row-cache copies of items
// that changed and making their scheduled rows due now, so that the next
// read of a row takes the database's and the next refresh caches it again.
func (s *Service) AddForgetRows(ctx context.Context, pipe redis.Pipeliner, ids []int64) {
	now := s.clock.Seconds()
	for _, id := range ids {
		pipe.Unlink(ctx, keys.RowCache(id))
		pipe.ZAddXX(ctx, keys.RowSchedule, redis.Z{Score: now, Member: platform.FormatID(id)})
	}
}

// RowRead is a queued read of an item's row-cache copy.
type RowRead struct{ cmd *redis.StringCmd }

// AddRowRead queues the read of an item's row-cache copy on pipe, beside
// the other reads of a page render.
func AddRowRead(ctx context.Context, pipe redis.Pipeliner, id int64) RowRead {
	return RowRead{cmd: pipe.Get(ctx, keys.RowCache(id))}
}

// item returns the row read, if the row cache held the item.
func (r RowRead) item(id int64) (Item, bool) {
	if r.cmd == nil {
		return Item{}, false
	}
	var it Item
	b, err := r.cmd.Bytes()
	ok := err == nil && json.Unmarshal(b, &it) == nil && it.ID == id
	return it, ok
}

// PageItem returns an item for its page: from the row-cache copy read on
// the page's pipeline (row; a zero RowRead reads none) or else the
// database, reading in the same query the names among names that the name
// cache lacks, so that a page render costs one query at most.
func (s *Service) PageItem(ctx context.Context, id int64, row RowRead, names []int64) (Item, error) {
	it, have := row.item(id)
	_, ids := s.CachedNames(names)
	if !have {
		ids = append(ids, id)
	}
	if len(ids) > 0 {
		rows, err := s.Items(ctx, ids)
		if err != nil {
			return Item{}, err
		}
		s.rememberNames(rows)
		if !have {
			var ok bool
			if it, ok = rows[id]; !ok {
				return Item{}, platform.ErrNotFound
			}
		}
	}
	if have {
		s.names.Put(id, it.Name, s.clock.Now().Add(nameCacheTTL))
	}
	return it, nil
}

// ScheduleRead is a queued read of the start of the row cache's schedule.
type ScheduleRead struct {
	due   *redis.ZSliceCmd
	count *redis.IntCmd
}

// AddSchedule queues the read of the n rows due soonest and of how many
// rows are scheduled, on pipe.
func AddSchedule(ctx context.Context, pipe redis.Pipeliner, n int64) ScheduleRead {
	return ScheduleRead{due: pipe.ZRangeWithScores(ctx, keys.RowSchedule, 0, n-1), count: pipe.ZCard(ctx, keys.RowSchedule)}
}

// Count is how many rows are scheduled, once the pipeline ran.
func (r ScheduleRead) Count() int64 { return r.count.Val() }

// RowReport is one scheduled row as the dashboard shows it.
type RowReport struct {
	ItemID      int64
	Delay       float64 // seconds; 0 when missing (the worker will drop it)
	Next        time.Time
	LastRefresh time.Time // zero when not cached yet
}

// RowReports adds each scheduled row of r (read before) its delay and
// last refresh (the `cached_at` of its inv:<id>) in one round trip.
func (s *Service) RowReports(ctx context.Context, r ScheduleRead) ([]RowReport, error) {
	sched := r.due.Val()
	if len(sched) == 0 {
		return nil, nil
	}
	pipe := s.rdb.Pipeline()
	delays := make([]*redis.FloatCmd, len(sched))
	rows := make([]*redis.StringCmd, len(sched))
	out := make([]RowReport, len(sched))
	for i, z := range sched {
		member := fmt.Sprint(z.Member)
		out[i].ItemID, _ = strconv.ParseInt(member, 10, 64)
		out[i].Next = time.UnixMicro(int64(z.Score * 1e6))
		delays[i] = pipe.ZScore(ctx, keys.RowDelay, member)
		rows[i] = pipe.Get(ctx, keys.RowCache(out[i].ItemID))
	}
	if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
		return nil, fmt.Errorf("row reports: %w", platform.RealErr(cmds, err))
	}
	for i := range out {
		out[i].Delay = delays[i].Val()
		var row struct {
			CachedAt float64 `json:"cached_at"`
		}
		if b, err := rows[i].Bytes(); err == nil && json.Unmarshal(b, &row) == nil && row.CachedAt > 0 {
			out[i].LastRefresh = time.UnixMicro(int64(row.CachedAt * 1e6))
		}
	}
	return out, nil
}
