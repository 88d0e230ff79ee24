// Package collections owns the merchant's collections: pages of items
// made by hand (a manual collection, its items in the merchant's order)
// or by rules (a rule collection: every item on sale with a tag, in a
// price range, with a "was" price above its price, or added in the last
// days; all the rules set must hold), each at /collections/<slug> and
// usable on the home page.
//
// Tables: collections, collection_items (a manual collection's items by
// position). No Redis keys: a collection's page reads its items afresh,
// a page at a time (a rule collection may match the whole catalog).
//
// Invariants:
//   - A collection shows only items on sale (catalog.OnSale): an archived
//     item leaves every collection's page at once and comes back with its
//     restore; a manual collection keeps its place.
//   - A save checks every field first and changes nothing when one is
//     wrong (a *FieldError names it); the listeners (the sitemaps) hear of
//     every committed save.
//
// Tests: through the real router in handlers (catalog_tree_test.go:
// TestCollections).
package collections
