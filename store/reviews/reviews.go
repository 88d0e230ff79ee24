package reviews

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"storefront/store/catalog"
	"storefront/store/platform"
)

// Service keeps the items' reviews.
type Service struct {
	db      *sql.DB
	clock   *platform.Clock
	catalog *catalog.Service
	memo    *memo
	// purgeEpoch tells the memo whether an item's pages were purged since
	// (SetPurgeEpoch); nil keeps the memo off.
	purgeEpoch func(itemID int64) (epoch uint64, live bool)
}

// New returns the reviews; saving one announces the item's change through
// the catalog (its pages show the reviews).
func New(b platform.Base, cat *catalog.Service) *Service {
	return &Service{db: b.DB, clock: b.Clock, catalog: cat, memo: platform.NewMemo[reviewKey, memoEntry](memoMax)}
}

// Review is one account's review of an item.
type Review struct {
	ItemID   int64
	UserID   int64
	Username string
	Rating   int
	Body     string
	Updated  time.Time
	// Verified is set when the reviewer bought the item (an order of it
	// that was not cancelled).
	Verified bool
	// Hidden is set when a moderator hid the review: it is out of the
	// item's page, rating and count; its author still sees it, marked.
	Hidden bool
}

// Ref is how pages and the moderation routes name a review:
// "<item id>-<author's user id>" (one review per account and item).
func (r Review) Ref() string { return platform.PairRef(r.ItemID, r.UserID) }

// ParseRef reads a Review.Ref.
func ParseRef(ref string) (itemID, userID int64, ok bool) { return platform.ParsePairRef(ref) }

// shown is the condition of the reviews everyone sees.
const shown = `hidden_at IS NULL`

// Rating is an item's average rating and how many reviews it has.
type Rating struct {
	Average float64
	Count   int
}

// ReviewsShown is how many of an item's newest reviews its page shows.
const ReviewsShown = 50

// verifiedSQL says whether the review r's author bought its item.
const verifiedSQL = `EXISTS (SELECT 1 FROM order_lines l JOIN orders o ON o.id = l.order_id
	WHERE l.item_id = r.item_id AND o.user_id = r.user_id AND o.status <> 'cancelled')`

// SaveReview writes userID's review of an item, replacing their earlier
// one (one per account and item; a hidden one stays hidden). A missing item is platform.ErrNotFound, an
// archived one platform.ErrGone; validation of the text is the caller's. The
// item's change is announced (its cached pages show the reviews). It
// reports whether the review is new.
func (s *Service) SaveReview(ctx context.Context, itemID, userID int64, rating int, body string) (bool, error) {
	if rating < 1 || rating > 5 || userID <= 0 {
		return false, platform.ErrInvalid
	}
	it, err := s.catalog.Item(ctx, itemID)
	if err != nil {
		return false, err
	}
	if it.Archived() {
		return false, platform.ErrGone
	}
	now := s.clock.Now().Unix()
	var created int64
	err = s.db.QueryRowContext(ctx, `INSERT INTO reviews (item_id, user_id, rating, body, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $5)
		ON CONFLICT (item_id, user_id) DO UPDATE SET rating = excluded.rating, body = excluded.body, updated_at = excluded.updated_at
		RETURNING created_at`, itemID, userID, rating, body, now).Scan(&created)
	if err != nil {
		return false, fmt.Errorf("save review: %w", err)
	}
	return created == now, s.catalog.Changed(ctx, catalog.Change{IDs: []int64{itemID}})
}

// ItemReviews returns an item's newest shown reviews (at most
// ReviewsShown) and its rating over all of them, in one query (the count
// and average ride on every row as window aggregates computed before the
// LIMIT). Hidden reviews count for nothing.
func (s *Service) ItemReviews(ctx context.Context, itemID int64) ([]Review, Rating, error) {
	return s.itemReviews(ctx, itemID, `r.`+shown)
}

// AdminItemReviews is ItemReviews with the hidden reviews too (marked),
// for the admin's item page; the rating is over all of them.
func (s *Service) AdminItemReviews(ctx context.Context, itemID int64) ([]Review, Rating, error) {
	return s.itemReviews(ctx, itemID, `1=1`)
}

func (s *Service) itemReviews(ctx context.Context, itemID int64, cond string) ([]Review, Rating, error) {
	var r Rating
	rows, err := s.db.QueryContext(ctx, `SELECT r.user_id, COALESCE(u.username, ''), r.rating, r.body, r.updated_at, `+verifiedSQL+`,
			r.hidden_at IS NOT NULL, COUNT(*) OVER (), AVG(r.rating * 1.0) OVER ()
		FROM reviews r LEFT JOIN users u ON u.id = r.user_id
		WHERE r.item_id = $1 AND `+cond+` ORDER BY r.updated_at DESC, r.user_id LIMIT $2`, itemID, ReviewsShown)
	if err != nil {
		return nil, r, fmt.Errorf("reviews: %w", err)
	}
	defer rows.Close()
	var out []Review
	for rows.Next() {
		rv := Review{ItemID: itemID}
		var at int64
		if err := rows.Scan(&rv.UserID, &rv.Username, &rv.Rating, &rv.Body, &at, &rv.Verified, &rv.Hidden, &r.Count, &r.Average); err != nil {
			return nil, r, fmt.Errorf("reviews: %w", err)
		}
		rv.Updated = platform.UnixTime(at)
		out = append(out, rv)
	}
	return out, r, rows.Err()
}

// readMyReview reads userID's review of an item, if any, from the
// database.
func (s *Service) readMyReview(ctx context.Context, itemID, userID int64) (Review, bool, error) {
	rv := Review{ItemID: itemID, UserID: userID}
	var at int64
	err := s.db.QueryRowContext(ctx, `SELECT rating, body, updated_at, hidden_at IS NOT NULL FROM reviews WHERE item_id = $1 AND user_id = $2`, itemID, userID).
		Scan(&rv.Rating, &rv.Body, &at, &rv.Hidden)
	if errors.Is(err, sql.ErrNoRows) {
		return Review{}, false, nil
	}
	if err != nil {
		return Review{}, false, fmt.Errorf("my review: %w", err)
	}
	rv.Updated = platform.UnixTime(at)
	return rv, true, nil
}

// Ratings returns the rating of each of ids that has reviews, for cards.
func (s *Service) Ratings(ctx context.Context, ids []int64) (map[int64]Rating, error) {
	out := make(map[int64]Rating, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	ph, args := platform.InList(1, ids)
	rows, err := s.db.QueryContext(ctx, `SELECT item_id, COUNT(*), AVG(rating * 1.0) FROM reviews WHERE item_id IN (`+ph+`) AND `+shown+` GROUP BY item_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("ratings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var r Rating
		if err := rows.Scan(&id, &r.Count, &r.Average); err != nil {
			return nil, fmt.Errorf("ratings: %w", err)
		}
		out[id] = r
	}
	return out, rows.Err()
}
