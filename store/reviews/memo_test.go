package reviews_test

import (
	"testing"

	"storefront/store/keys"
	"storefront/store/pagecache"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// Two stores on one Redis and database (two instances): a shopper's own
// review, remembered by one instance for its item pages, is never served
// from memory after the other instance saved a new one and its purge was
// heard; and an unchanged review is answered from memory.
func TestMyReviewFollowsEditsOnAnotherInstance(t *testing.T) {
	st := wiringtest.New(t)
	other := wiring.New(st.Redis(), st.DB(), st.Options(), storetest.Logger(t))
	t.Cleanup(other.Close)
	ctx := t.Context()
	u, err := st.Sessions.CreateUser(ctx, "reviewer", "a good password")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*wiring.Services{st, other} {
		// Purges are heard once the channel is subscribed: a page is held.
		st.Redis().ZIncrBy(ctx, keys.ViewRanking, -1, "12")
		storetest.Eventually(t, func() bool {
			v, err := s.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 12, Render: wiringtest.PageRender})
			return err == nil && v.Result == pagecache.PageHit && s.Pages.HeldPage(12) != nil
		}, "the page is never held in process")
	}
	if _, found, err := st.Reviews.MyReview(ctx, 12, u.ID); err != nil || found {
		t.Fatalf("before any review: found=%v err=%v", found, err)
	}
	for round, body := range []string{"First thoughts on it.", "Changed my mind entirely."} {
		if _, err := other.Reviews.SaveReview(ctx, 12, u.ID, 4-round, body); err != nil {
			t.Fatal(err)
		}
		storetest.Eventually(t, func() bool {
			r, found, err := st.Reviews.MyReview(ctx, 12, u.ID)
			return err == nil && found && r.Body == body && r.Rating == 4-round
		}, "the other instance's review is never seen")
		// Remembered now: the row is changed behind the store's back
		// (no purge), and the memory still answers.
		if _, err := st.DB().ExecContext(ctx, `UPDATE reviews SET body = 'changed without a purge' WHERE item_id = 12`); err != nil {
			t.Fatal(err)
		}
		if r, _, err := st.Reviews.MyReview(ctx, 12, u.ID); err != nil || r.Body != body {
			t.Errorf("round %d: a repeated read went to the database (%q, %v)", round, r.Body, err)
		}
	}
}
