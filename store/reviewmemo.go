package store

import (
	"context"
	"sync"
)

// A signed-in shopper's review form on a cached item page shows their own
// earlier review, which would otherwise be one database query on every
// hit. Reviews change only through SaveReview, which purges the item's
// pages; the purge reaches every instance on the purge channel within a
// second and bumps the item's purge epoch there. So a review read under an
// epoch stays right until that epoch moves: the memo keeps each review (or
// its absence) with the epoch read before the query, and answers only
// while the epoch is unchanged and purges are being heard.
type reviewMemo struct {
	mu sync.Mutex
	m  map[reviewKey]reviewMemoEntry
}

type reviewKey struct{ item, user int64 }

type reviewMemoEntry struct {
	review Review
	found  bool
	epoch  l1Epoch
}

// reviewMemoMax bounds the memo; past it the memo starts over, since a
// forgotten review is one query away.
const reviewMemoMax = 100_000

func (m *reviewMemo) get(k reviewKey, ep l1Epoch) (reviewMemoEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.m[k]
	return e, ok && e.epoch == ep
}

func (m *reviewMemo) put(k reviewKey, e reviewMemoEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= reviewMemoMax {
		m.m = make(map[reviewKey]reviewMemoEntry)
	}
	m.m[k] = e
}

// MyReview reads userID's review of an item, if any: from the memo while
// the item's pages have not been purged since it was read, else from the
// database.
func (s *Store) MyReview(ctx context.Context, itemID, userID int64) (Review, bool, error) {
	k := reviewKey{itemID, userID}
	ep, live := s.pages.l1.epochLive(itemID)
	if live {
		if e, ok := s.pages.reviews.get(k, ep); ok {
			return e.review, e.found, nil
		}
	}
	rv, found, err := s.readMyReview(ctx, itemID, userID)
	if err == nil && live {
		s.pages.reviews.put(k, reviewMemoEntry{review: rv, found: found, epoch: ep})
	}
	return rv, found, err
}
