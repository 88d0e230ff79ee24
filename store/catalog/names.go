package catalog

import (
	"context"
	"sync"
	"time"
)

// nameCacheTTL is how long a cached item name is trusted. An admin edit
// forgets the name at once on the instance that made it; other instances
// show the old name in recently viewed links for at most this long.
const nameCacheTTL = time.Minute

// nameCacheMax bounds the cache; when full, half of it is dropped.
const nameCacheMax = 200_000

// nameCache maps item ids to names in process memory, so that a cached item
// page can fill in its recently viewed links without SQL. Correctness never
// depends on it: a missing or expired name is read from the database. An
// entry also proves that the item exists (items are never deleted), which
// lets a page view be counted in the page's first round trip.
type nameCache struct {
	mu sync.RWMutex
	m  map[int64]nameEntry
}

type nameEntry struct {
	name string
	at   time.Time
}

func newNameCache() *nameCache { return &nameCache{m: map[int64]nameEntry{}} }

func (c *nameCache) get(id int64, now time.Time) (string, bool) {
	c.mu.RLock()
	e, ok := c.m[id]
	c.mu.RUnlock()
	if !ok || now.Sub(e.at) > nameCacheTTL {
		return "", false
	}
	return e.name, true
}

// known reports whether the database said the item exists, however long ago.
func (c *nameCache) known(id int64) bool {
	c.mu.RLock()
	_, ok := c.m[id]
	c.mu.RUnlock()
	return ok
}

func (c *nameCache) put(id int64, name string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= nameCacheMax {
		n := 0
		for k := range c.m {
			delete(c.m, k)
			if n++; n >= nameCacheMax/2 {
				break
			}
		}
	}
	c.m[id] = nameEntry{name: name, at: now}
}

func (c *nameCache) forget(id int64) {
	c.mu.Lock()
	delete(c.m, id)
	c.mu.Unlock()
}

// ItemNames returns the names of the items ids that exist, from the name
// cache, reading those it lacks from the database in one query.
func (s *Service) ItemNames(ctx context.Context, ids []int64) (map[int64]string, error) {
	out, missing := s.CachedNames(ids)
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := s.Items(ctx, missing)
	if err != nil {
		return nil, err
	}
	for id, it := range rows {
		out[id] = it.Name
	}
	s.rememberNames(rows)
	return out, nil
}

// CachedNames splits ids into the names the cache holds and the ids it
// lacks, without a query.
func (s *Service) CachedNames(ids []int64) (map[int64]string, []int64) {
	now := s.clock.Now()
	out := make(map[int64]string, len(ids))
	var missing []int64
	for _, id := range ids {
		if name, ok := s.names.get(id, now); ok {
			out[id] = name
		} else {
			missing = append(missing, id)
		}
	}
	return out, missing
}

// rememberNames puts rows read from the database (or the row cache) into
// the name cache.
func (s *Service) rememberNames(rows map[int64]Item) {
	now := s.clock.Now()
	for id, it := range rows {
		s.names.put(id, it.Name, now)
	}
}

// Known reports whether the database said the item exists, however long
// ago (items are never deleted), without a query: an unknown id may be
// hostile, a known one may get a session in the page's first round trip.
func (s *Service) Known(id int64) bool { return s.names.known(id) }

// RememberName keeps an item's name as a stored page showed it, when the
// cache has none.
func (s *Service) RememberName(id int64, name string) {
	if !s.names.known(id) {
		s.names.put(id, name, s.clock.Now())
	}
}
