package reviews

import (
	"context"
	"time"

	"storefront/store/platform"
)

// A signed-in shopper's review form on a cached item page shows their own
// earlier review, which would otherwise be one database query on every
// hit. Reviews change only through SaveReview, which announces the item's
// change, so the page cache purges its pages; the purge reaches every
// instance on the page cache's purge channel within a second and moves
// the item's purge epoch there. So a review read under an epoch stays
// right until that epoch moves: the memo keeps each review (or its
// absence) with the epoch read before the query, and answers only while
// the epoch is unchanged and purges are being heard. The wiring gives the
// memo the page cache's epochs (SetPurgeEpoch).
type memo = platform.Memo[reviewKey, memoEntry]

type reviewKey struct{ item, user int64 }

type memoEntry struct {
	review Review
	found  bool
	epoch  uint64
}

// memoMax bounds the memo (platform.Memo): a forgotten review is one
// query away.
const memoMax = 100_000

// MyReview reads userID's review of an item, if any: from the memo while
// the item's pages have not been purged since it was read, else from the
// database.
func (s *Service) MyReview(ctx context.Context, itemID, userID int64) (Review, bool, error) {
	k := reviewKey{itemID, userID}
	var ep uint64
	live := false
	if s.purgeEpoch != nil {
		ep, live = s.purgeEpoch(itemID)
	}
	if live {
		if e, ok := s.memo.Get(k, time.Time{}); ok && e.epoch == ep {
			return e.review, e.found, nil
		}
	}
	rv, found, err := s.readMyReview(ctx, itemID, userID)
	if err == nil && live {
		s.memo.Put(k, memoEntry{review: rv, found: found, epoch: ep}, time.Time{})
	}
	return rv, found, err
}

// SetPurgeEpoch gives the memo the page cache's purge epochs: a number
// that moves whenever an item's pages are purged on any instance, and
// whether purges are being heard now. The wiring calls it before the shop
// serves.
func (s *Service) SetPurgeEpoch(f func(itemID int64) (epoch uint64, live bool)) { s.purgeEpoch = f }
