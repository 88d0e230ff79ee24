// Package social owns the shop's social side: item likes (one per user,
// with each item's count, the "most liked" leaderboard and the "recently
// liked" list), follows (both sides and their counts), each user's
// counters, profiles, feeds of followed users' articles with their
// fan-out on write, and social's side of the board's events (it
// implements board.Events: a post is recorded and fanned out, a vote or a
// comment notifies the author, a hidden article leaves feeds and counts).
//
// Redis keys: `{item:<id>}:likes`, the `likes` field of
// `{item:<id>}:counts`, `most-liked:`, `recently-liked:`,
// `{user:<id>}:counts`, `:following`, `:followers`, `:fver`, `:posts`,
// `:feed`, `post:<article id>` and the `fanout:` queue. No tables.
//
// Invariants: a like and each side of a follow change their set and its
// counter in one script (toggleScript), so counts always equal the sets;
// the two sides of a follow, in two users' slots, are ordered by the
// follower's version, so racing follows and unfollows leave them agreeing;
// a fan-out step is idempotent and leased, so none is lost or harmful
// when done twice; only feeds that exist are written (idle users' feeds
// expire and are rebuilt when read).
//
// Tests: likes_test.go, follows_test.go, feed_test.go and
// engage_bench_test.go here.
package social
