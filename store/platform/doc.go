// Package platform is the ground every domain of the data layer stands on.
// It owns no Redis key and no table of its own (besides the migrations'
// bookkeeping table, schema_migrations) and imports no other package of
// the shop.
//
// What it holds:
//   - the domain errors (ErrNotFound, ErrInvalid, ...) and IsUnavailable,
//     which tells an outage of Redis or the database from a bug;
//   - Redis: ConnectRedis picks one server, a Cluster, a supervised
//     redis-server child (its append-only file under DATA_DIR, written
//     before each reply, so a killed child loses nothing it acknowledged)
//     or in-process miniredis (the modes), and the Cluster helpers
//     (ForEachMaster, UnlinkMatching);
//   - Reader, the one way to read data many requests share: through the
//     client-side caching client (CachingClient) where there is one, else
//     on one pipeline; with it, a hook on the main client drops every key
//     a command may have written from the client-side cache before the
//     command returns (ownwrites.go, writtenkeys.go), so this instance's
//     own writes show at once;
//   - SQL: OpenDB (SQLite or PostgreSQL), the database kind, the one
//     placeholder helper and Migrate with the embedded migrations (every
//     domain's tables, run as one numbered sequence);
//   - Base, what every domain service is built on (clients, log, Clock,
//     this instance's name), and small helpers written once (ParseIDs,
//     FormatID, RandomHex, RealErr, EvalInPipeline);
//   - SizedLRU, the byte-bounded LRU behind the page cache's in-process
//     copy and the search cache, and Memo, the count-bounded map that
//     starts over when full, behind every in-process memo of answers one
//     query away (verified cookies, item names, rendered holes...).
//
// Invariants: nothing here depends on process memory for correctness;
// Reader only ever serves what Redis would answer (the caching client is
// invalidated by Redis itself, and by this instance's writes before they
// return).
//
// Tests: lru_test.go, memo_test.go, reader_test.go and writtenkeys_internal_test.go
// here, the own writes through the caching client in handlers/apptest
// (TestOwnWriteDropsCachedRead, TestOwnWritesOnNextPage); the test backends (miniredis
// or real Redis, SQLite or PostgreSQL) come from store/storetest.
package platform
