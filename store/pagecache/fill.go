package pagecache

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/analytics"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/pagecache/pagebody"
	"storefront/store/platform"
)

// How a missing page is rendered: once per instance (single flight) and
// about once across instances (a short lock next to the page; the others
// poll for the page briefly, then render without storing).
const (
	pageLockTTL  = 3 * time.Second
	pageLockWait = time.Second
	pagePoll     = 20 * time.Millisecond
	fillTimeout  = 10 * time.Second
)

// Fill outcomes.
const (
	fillRendered = "rendered" // rendered here and stored
	fillFound    = "found"    // another instance stored it meanwhile
	fillStale    = "stale"    // another instance is rendering; the stale copy is served
	fillUnstored = "unstored" // rendered here without storing: the lock holder was too slow
)

// fillBeginScript reads a page and its TTL and tries to take its lock, in
// one step: the lock shares the page's slot.
const fillBeginScript = `
local v = redis.call('GET', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
local got = redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2])
if got then got = 1 else got = 0 end
return {v, ttl, got}`

// storePageScript stores a page and releases its lock if this render still
// holds it, in one step: whoever takes the lock next finds the page.
const storePageScript = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
return 1`

// pageFill is a page to render or find.
type pageFill struct {
	Key    string // the page's cache hash
	ItemID int64
	// Variant is the variant the URL chose, 0 for none.
	Variant int64
	Gen     PageGen // the purge generations the read round trip saw
	// Names are ids whose names the caller will show: they are read with
	// the item, so that a miss costs one SQL query at most.
	Names  []int64
	Render RenderFunc
	Views  int64 // the view count shown on the page
	// writes are the request's own writes: sent with the page when this
	// call stores it, which saves a round trip.
	writes *visitWrites
	// epoch is the in-process cache's purge epoch of the item, read
	// before anything of the page was.
	epoch l1Epoch
	// bought is the order statistics' read, queued with the row's.
	bought analytics.AlsoBoughtRead
}

type fillResult struct {
	page    *pagebody.Page
	outcome string
}

// fillPage returns the page, rendering and storing it if no other request
// does. Concurrent calls for one page share one render (the caller whose
// call runs has its writes sent with the page).
func (s *Service) fillPage(ctx context.Context, f pageFill) (*pagebody.Page, string, error) {
	flight := f.Key + "/" + strconv.FormatInt(f.Gen.Item, 10) + "/" + strconv.FormatInt(f.Gen.All, 10)
	v, err, _ := s.flight.Do(flight, func() (any, error) {
		// The render is shared: one caller going away must not fail it.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fillTimeout)
		defer cancel()
		return s.fill(ctx, f, true)
	})
	if err != nil {
		return nil, "", err
	}
	r := v.(fillResult)
	return r.page, r.outcome, nil
}

// revalidatePage renders a stale page again in the background, at most
// once at a time per page and instance, while the stale copy is served.
func (s *Service) revalidatePage(f pageFill) {
	if _, busy := s.revalidating.LoadOrStore(f.Key, struct{}{}); busy {
		return
	}
	f.writes = nil
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		defer s.revalidating.Delete(f.Key)
		ctx, cancel := context.WithTimeout(context.Background(), fillTimeout)
		defer cancel()
		if _, err := s.fill(ctx, f, false); err != nil {
			s.log.Warn("page revalidation failed", "item", f.ItemID, "err", err)
		}
	}()
}

// WaitBackground waits for background renders to end (tests, shutdown).
func (s *Service) WaitBackground() { s.background.Wait() }

// fill is the body of fillPage. Without wait it gives up at once when
// another instance holds the lock.
func (s *Service) fill(ctx context.Context, f pageFill, wait bool) (fillResult, error) {
	tok := platform.RandomHex(12)
	pageAndLock := []string{keys.Page(f.Key), keys.PageLock(f.Key)}
	deadline := time.Now().Add(pageLockWait)
	var row catalog.RowRead
	for i := 0; ; i++ {
		pipe := s.rdb.Pipeline()
		begin := pipe.Eval(ctx, fillBeginScript, pageAndLock, tok, pageLockTTL.Milliseconds())
		if i == 0 { // the row and order statistics, in case this call renders
			row = catalog.AddRowRead(ctx, pipe, f.ItemID)
			f.bought = analytics.AddAlsoBoughtRead(ctx, pipe, f.ItemID, f.Variant)
		}
		cmds, err := pipe.Exec(ctx)
		if err = platform.RealErr(cmds, err); err != nil {
			return fillResult{}, fmt.Errorf("fill page: %w", err)
		}
		page, ttl, got := s.parseFillBegin(begin, f)
		switch {
		case page != nil && s.isFresh(ttl):
			if got {
				s.releasePageLock(ctx, f.Key, tok)
			}
			s.l1.put(f.Key, page, s.clock.Now(), ttl, s.pageGrace(), f.epoch)
			return fillResult{page, fillFound}, nil
		case got:
			page, err := s.renderPage(ctx, f, row, pagebody.LevelStored)
			if err != nil {
				s.releasePageLock(ctx, f.Key, tok)
				return fillResult{}, err
			}
			if err := s.storePage(ctx, f, page, tok); err != nil {
				return fillResult{}, err
			}
			s.l1.put(f.Key, page, s.clock.Now(), s.pageHardTTL(), s.pageGrace(), f.epoch)
			return fillResult{page, fillRendered}, nil
		case page != nil:
			return fillResult{page, fillStale}, nil
		case !wait:
			return fillResult{}, nil
		case time.Now().After(deadline):
			return s.renderUnstored(ctx, f, row)
		}
		select {
		case <-ctx.Done():
			return fillResult{}, fmt.Errorf("fill page: %w", ctx.Err())
		case <-time.After(pagePoll):
		}
	}
}

// renderUnstored renders a page that is not stored, counting the render
// with the caller's writes.
func (s *Service) renderUnstored(ctx context.Context, f pageFill, row catalog.RowRead) (fillResult, error) {
	page, err := s.renderPage(ctx, f, row, pagebody.LevelFast)
	if err != nil {
		return fillResult{}, err
	}
	if f.writes != nil {
		f.writes.rendered = true
	}
	return fillResult{page, fillUnstored}, nil
}

// parseFillBegin reads the script's answer: a usable page (or nil), its
// TTL and whether the lock was taken. A page rendered before a purge that
// this request already saw is not usable.
func (s *Service) parseFillBegin(cmd *redis.Cmd, f pageFill) (*pagebody.Page, time.Duration, bool) {
	vals, err := cmd.Slice()
	if err != nil || len(vals) != 3 {
		return nil, 0, false
	}
	got, _ := vals[2].(int64)
	ms, _ := vals[1].(int64)
	ttl := time.Duration(ms) * time.Millisecond
	if ms < 0 {
		ttl = time.Duration(ms)
	}
	str, ok := vals[0].(string)
	if !ok {
		return nil, ttl, got == 1
	}
	p, err := pagebody.Decode([]byte(str))
	if err != nil || p.ItemID != f.ItemID || p.GenItem < f.Gen.Item || p.GenAll < f.Gen.All || p.Build != s.opt.Build {
		return nil, ttl, got == 1
	}
	return p, ttl, got == 1
}

// renderPage gathers every fact the page shows, then renders it with the
// request's pure render function and splits it at its holes. The item
// comes from the row cache if it holds the row, else from the database
// with the missing names in the same query; then its pictures and its
// reviews, one query each.
func (s *Service) renderPage(ctx context.Context, f pageFill, row catalog.RowRead, level int) (*pagebody.Page, error) {
	d, err := s.pageData(ctx, f, row)
	if err != nil {
		return nil, err
	}
	html, err := f.Render(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("render page: %w", err)
	}
	page, err := pagebody.Build(html, d.Item.ID, d.Item.Name, f.Gen.Item, f.Gen.All, s.opt.Build, level)
	if err != nil {
		return nil, err
	}
	s.renders.Inc()
	return page, nil
}

// pageData gathers what an item page shows for everyone.
func (s *Service) pageData(ctx context.Context, f pageFill, row catalog.RowRead) (PageData, error) {
	bought := f.bought.Result()
	it, err := s.catalog.PageItem(ctx, f.ItemID, row, append(slices.Clone(f.Names), bought.ItemIDs()...))
	if err != nil {
		return PageData{}, err
	}
	if it.Archived() {
		return PageData{}, platform.ErrGone
	}
	d := PageData{Item: it, Views: f.Views, Buyers: bought.Buyers, Variant: f.Variant}
	if it.HasOptions() || f.Variant != 0 {
		if d.Variants, err = s.catalog.Variants(ctx, it.ID); err != nil {
			return PageData{}, err
		}
		if f.Variant != 0 && !slices.ContainsFunc(d.Variants, func(v catalog.Variant) bool { return v.ID == f.Variant }) {
			return PageData{}, platform.ErrNotFound // not one of the item's: never stored
		}
	}
	if d.AlsoBought, err = s.alsoBought(ctx, bought); err != nil {
		return PageData{}, err
	}
	d.AlsoBoughtOf = bought.Variant
	// Pictures and reviews are the same for everyone, so they are part of
	// the stored page; adding one announces the item's change, which
	// purges its pages.
	if d.Pictures, err = s.media.ItemImages(ctx, it.ID); err != nil {
		return PageData{}, err
	}
	if d.Reviews, d.Rating, err = s.reviews.ItemReviews(ctx, it.ID); err != nil {
		return PageData{}, err
	}
	return d, nil
}

// alsoBought names the lines of the "also bought" list: items by the
// names read with the page's item, variants by their options (one query,
// only when the list has variants). A line whose item or variant is gone
// is left out.
func (s *Service) alsoBought(ctx context.Context, bought analytics.AlsoBought) ([]NamedItem, error) {
	names, _ := s.catalog.CachedNames(bought.ItemIDs())
	variants, err := s.catalog.VariantNames(ctx, bought.VariantIDs())
	if err != nil {
		return nil, err
	}
	var out []NamedItem
	for _, l := range bought.Lines {
		name, ok := names[l.ItemID]
		v, known := variants[l.VariantID]
		if !ok || (l.VariantID != 0 && (!known || v.ItemID != l.ItemID)) {
			continue
		}
		out = append(out, NamedItem{ID: l.ItemID, Name: name, VariantID: l.VariantID, SKU: v.SKU, Variant: v.Label})
	}
	return out, nil
}

// storePage stores a rendered page with its hard TTL, releases the lock,
// counts the render and sends the caller's own writes, in one round trip.
func (s *Service) storePage(ctx context.Context, f pageFill, page *pagebody.Page, tok string) error {
	ttl := s.pageHardTTL()
	pipe := s.rdb.Pipeline()
	pipe.Eval(ctx, storePageScript, []string{keys.Page(f.Key), keys.PageLock(f.Key)}, page.Encode(), ttl.Milliseconds(), tok)
	pipe.HIncrBy(ctx, keys.PageStats, "renders", 1)
	if f.writes != nil {
		s.addVisitWrites(ctx, pipe, f.writes, s.clock.Seconds())
		f.writes.sent = true
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("store page: %w", err)
	}
	return nil
}

func (s *Service) releasePageLock(ctx context.Context, key, tok string) {
	_ = platform.ReleaseLock(ctx, s.rdb, keys.PageLock(key), tok)
}

// buildPage renders an item page that is not to be stored (its URL
// bypasses the cache, or the item is not popular enough), from the row
// cache or the database, with the names in the same query.
func (s *Service) buildPage(ctx context.Context, f pageFill) (*pagebody.Page, error) {
	pipe := s.rdb.Pipeline()
	row := catalog.AddRowRead(ctx, pipe, f.ItemID)
	f.bought = analytics.AddAlsoBoughtRead(ctx, pipe, f.ItemID, f.Variant)
	if err := platform.RealErr(pipe.Exec(ctx)); err != nil {
		return nil, fmt.Errorf("build page: %w", err)
	}
	return s.renderPage(ctx, f, row, pagebody.LevelFast)
}
