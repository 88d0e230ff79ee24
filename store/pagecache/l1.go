package pagecache

import (
	"sync"
	"time"

	"storefront/store/pagecache/pagebody"
	"storefront/store/platform"
)

// The in-process page cache (l1) holds decoded copies of pages stored in
// Redis, so that a hit reads nothing from Redis for the page. It is
// bounded in bytes (PAGE_L1_BYTES, least recently used out first); an
// entry lives no longer than its page does in Redis, and goes at once on
// every instance when its item's pages are purged.
//
// Purges reach the other instances on the purge channel (PUBLISH after the
// purge is complete in Redis). Redis's own invalidation (CLIENT TRACKING)
// is not used for pages: it is unavailable on Cluster and in miniredis, and
// a purge is one message per item either way. A copy being read while a
// purge is announced is refused by the item's purge epoch: every entry
// records the epoch read before its page was, and put refuses it if a purge
// came in between. While the subscription is down (and until it is first
// confirmed) nothing is served from l1, and a reconnect empties it, since
// announcements sent meanwhile are lost.
type l1Cache struct {
	max   int64
	mu    sync.Mutex
	pages platform.SizedLRU[*l1Entry] // by cache hash
	// epochs count purges per item, all is the count of purge-alls; an
	// entry read under older counts is refused.
	epochs map[int64]uint64
	all    uint64
	live   bool // the purge channel is subscribed
}

// l1Entry is one page held in process.
type l1Entry struct {
	key        string
	page       *pagebody.Page
	freshUntil time.Time // after this the page is stale (served while rendered again)
	hardUntil  time.Time // when Redis drops it
	size       int64
	// epoch is the item's purge epoch the page was held under: a purge
	// voids every page of the item (one per chosen variant), not only
	// the one under its plain key.
	epoch l1Epoch
}

// l1Epoch is an item's purge epoch, read before a page is.
type l1Epoch struct{ item, all uint64 }

func newL1Cache(maxBytes int64) *l1Cache {
	return &l1Cache{max: maxBytes, pages: platform.NewSizedLRU[*l1Entry](maxBytes), epochs: map[int64]uint64{}}
}

// get returns the page held under key, or nil.
func (c *l1Cache) get(key string, now time.Time) *l1Entry {
	if c.max <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live {
		return nil
	}
	e, ok := c.pages.Get(key)
	if !ok {
		return nil
	}
	if !now.Before(e.hardUntil) || c.epochs[e.page.ItemID] != e.epoch.item || c.all != e.epoch.all {
		c.pages.Remove(key)
		return nil
	}
	return e
}

// epoch returns the item's purge epoch, to be read before its page is.
func (c *l1Cache) epoch(itemID int64) l1Epoch {
	c.mu.Lock()
	defer c.mu.Unlock()
	return l1Epoch{item: c.epochs[itemID], all: c.all}
}

// PurgeEpoch is a number that moves whenever the item's pages are
// purged, and whether purges are being heard now: what the reviews' memo
// of shoppers' own reviews checks (the wiring hands it over).
func (s *Service) PurgeEpoch(itemID int64) (uint64, bool) { return s.l1.epochLive(itemID) }

// epochLive returns a number that moves whenever the item's pages are
// purged (its purges and the purges of everything: both only grow, so
// their sum moves with either) and whether purges are being heard
// (otherwise nothing read under an epoch may be trusted).
func (c *l1Cache) epochLive(itemID int64) (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epochs[itemID] + c.all, c.live && c.max > 0
}

// put holds a page read from (or just written to) Redis with ttl left
// there, unless a purge of its item was announced since ep was read.
func (c *l1Cache) put(key string, p *pagebody.Page, now time.Time, ttl, grace time.Duration, ep l1Epoch) {
	if c.max <= 0 || ttl == -2 {
		return
	}
	if ttl < 0 { // no expiry set: treat as just stored
		ttl = grace
	}
	e := &l1Entry{key: key, page: p, freshUntil: now.Add(ttl - grace), hardUntil: now.Add(ttl), size: int64(p.Size() + len(key)), epoch: ep}
	if e.size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.epochs[p.ItemID] != ep.item || c.all != ep.all {
		return
	}
	c.pages.Add(key, e, e.size)
}

// purgeItem drops the item's pages and refuses copies read before now.
func (c *l1Cache) purgeItem(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epochs[id]++
	c.pages.Remove(PageKey(id))
}

// purgeAll empties the cache and refuses copies read before now.
func (c *l1Cache) purgeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all++
	c.pages.Clear()
}

// setLive says whether purges are being heard; going live empties the
// cache, since announcements made while deaf are lost.
func (c *l1Cache) setLive(live bool) {
	c.purgeAll()
	c.mu.Lock()
	c.live = live
	c.mu.Unlock()
}

// HeldPage returns the item's page as this process holds it, or nil
// (tests and the dashboard look at what is held, never serve it).
func (s *Service) HeldPage(itemID int64) *pagebody.Page {
	s.l1.mu.Lock()
	defer s.l1.mu.Unlock()
	if e, ok := s.l1.pages.Peek(PageKey(itemID)); ok {
		return e.page
	}
	return nil
}
