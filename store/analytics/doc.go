// Package analytics owns what the shop learns from visits and orders: the
// view ranking (`viewed:`, item id -> minus its view count, so rank 0 is
// the most viewed) and each item's views counter, their periodic rescale
// (once across instances, under the `rescale` lease), and the order
// statistics an item page shows: the items bought together with it
// (`{item:<id>}:also`), what was bought with each of its variants, named
// with their variants (`{item:<id>}:also:<variant>`), and how many orders
// included it (the `buyers` field of `{item:<id>}:counts`).
//
// Other domains write through its pipeline helpers, so that a view or an
// order costs no round trip of its own: AddViews (sessions, the page
// cache's writes behind) and AddBoughtTogether (the wiring has the orders
// call it on the pipeline that empties the cart). Reads for pages come
// as AddRank and AddAlsoBoughtRead on the page cache's pipelines.
//
// Invariants: counts only grow between rescales; a rescale trims and
// halves atomically (one key); nothing here is per visitor, so it may be
// part of a shared cached page.
//
// Tests: analytics_test.go here; view counting through pages in
// handlers and the page cache's tests.
package analytics
