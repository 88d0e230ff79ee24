// Package reviews owns the items' reviews (table reviews): one per
// account and item, editable, with a rating from 1 to 5; an item's
// average and count; whether the reviewer bought the item (verified, read
// from the orders' tables); hiding and showing them again for moderators
// (hidden_at, hidden_by: a hidden review counts for nothing but its author
// still sees it); and an in-process memo of shoppers' own reviews for the
// review form on cached pages.
//
// No Redis keys. Saving, hiding or showing a review announces the item's
// change through the catalog, so the page cache purges the item's pages
// (they show the reviews) on every instance.
//
// Invariant: the memo answers only while the item's pages have not been
// purged since it read the review and purges are being heard (the page
// cache's epochs, given at wiring with SetPurgeEpoch), so a shopper never
// sees an old review of their own.
//
// Tests: memo_test.go here; posting reviews over HTTP in handlers.
package reviews
