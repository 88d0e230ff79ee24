// Package search finds items: full-text search ranked by relevance (SQLite
// FTS5, or PostgreSQL tsvector with a GIN index), filters (category,
// price range, in stock), sorts (relevance, price, popular, newest), facet
// counts that follow the query, and spelling correction (one typo in a
// word of five or more letters).
//
// It owns the search indexes' tables (items_fts on SQLite, the search
// column and its version sequences on PostgreSQL, search_version) and an
// in-process cache of results (ids and counts only: the items shown are
// read fresh through the catalog), held under the catalog's version. The
// version includes the Redis generation `searchgen` (keys.SearchGen),
// which ItemsChanged and AllChanged move; the wiring registers
// ItemsChanged with the catalog and AllChanged with the page cache's purge
// of everything.
//
// Invariants: a search never serves a result cached under an older
// version than it read itself, so an edit it can see is never hidden by
// the cache; a change a search cannot see (a sale that leaves stock)
// leaves the cache alone.
//
// Tests: search_test.go, cache_test.go, typo_internal_test.go and
// search_bench_test.go here.
package search
