// Package stats owns the admin's numbers: the dashboard (page cache,
// sessions, popular items, scheduled rows, workers, Redis and the
// database, an hour of history), the sampler that records the shared
// counters once across instances (the `stats` lease), the keyspace scan
// that counts cached pages and carts, and the Prometheus series of numbers
// shared by all instances and of the Redis connection pool.
//
// Redis keys it owns: `stats:samples` (the history) and `stats:keyspace`
// (the last scan). Everything else it shows is read through the owning
// domains' pipeline helpers (pagecache.AddCounts, sessions.AddCounts,
// analytics.AddTop, catalog.AddSchedule, workers.AddReports), so the
// dashboard is one round trip plus INFO per Redis master and the
// database's size.
//
// Invariant: every number lives in Redis or the database, so every
// instance shows the same dashboard.
//
// Tests: stats_test.go and stats_bench_test.go here; the dashboard page in
// handlers.
package stats
