package catalog

import (
	"context"
	"time"

	"storefront/store/platform"
)

// nameCacheTTL is how long a cached item name is trusted. An admin edit
// forgets the name at once on the instance that made it; other instances
// show the old name in recently viewed links for at most this long.
const nameCacheTTL = time.Minute

// nameCacheMax bounds the cache of names (platform.Memo).
const nameCacheMax = 200_000

// The names cache maps item ids to names in process memory, so that a
// cached item page can fill in its recently viewed links without SQL.
// Correctness never depends on it: a missing or expired name is read from
// the database. An entry, expired or not, also proves that the item exists
// (items are never deleted), which lets a page view be counted in the
// page's first round trip.
type nameCache = platform.Memo[int64, string]

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
		if name, ok := s.names.Get(id, now); ok {
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
	until := s.clock.Now().Add(nameCacheTTL)
	for id, it := range rows {
		s.names.Put(id, it.Name, until)
	}
}

// Known reports whether the database said the item exists, however long
// ago (items are never deleted), without a query: an unknown id may be
// hostile, a known one may get a session in the page's first round trip.
func (s *Service) Known(id int64) bool { return s.names.Has(id) }

// RememberName keeps an item's name as a stored page showed it, when the
// cache has none.
func (s *Service) RememberName(id int64, name string) {
	if !s.names.Has(id) {
		s.names.Put(id, name, s.clock.Now().Add(nameCacheTTL))
	}
}

// ForgetName drops an item's cached name, when its pages are purged on any
// instance (a rename): the item's URL follows its name at once.
func (s *Service) ForgetName(id int64) { s.names.Forget(id) }
