// Package board owns the community article board: articles (a title with
// a link, a text, or both), up and down votes (one direction per reader,
// within VOTE_WINDOW), listings by score or by date, groups and their
// cached listings, comments and one level of replies, authors editing and
// deleting their own articles and comments within EditWindow, readers'
// reports to moderation, and hiding articles and comments for moderators,
// showing them again exactly as they were, and the lists of what is
// hidden and what is reported.
//
// Redis keys, all behind the hash tag {a} so that one script can change
// an article, its voter sets and the listings together on a Cluster:
// `{a}article:` (the id counter), `{a}article:<id>`, `{a}score:`,
// `{a}time:`, `{a}voted:<id>`, `{a}downvoted:<id>`, `{a}votes:<user>`,
// `{a}group:<name>`, `{a}score:<name>` / `{a}time:<name>` (cached group
// listings), `{a}comments:<id>`, `{a}hidden:` and `{a}hidden-comments:`
// (what moderators hid, for their list), `{a}reports:` (what awaits a
// moderator) and `{a}reports:<id>` (the reports on an article and its
// comments), and `{a}seeded:`. No tables.
//
// Effects beyond the board (feeds, posts counters, notifications) go
// through Events, which social implements and the wiring installs.
//
// Invariants: a vote's change to the sets, the counts and the score is one
// atomic script, and the score is recomputed from the sets, so it is exact
// however votes interleave; a closed article changes with no vote; a
// hidden article or comment is gone from every listing and count for
// everyone but its author and admins, and unhiding it restores every key
// hiding changed; a deleted article leaves no key naming it (listings,
// groups, voters' records, comments, reports, moderation lists), however
// votes race the delete; a deleted comment keeps its place, so the
// numbers of the comments after it never change; a reader reports a
// thing once.
//
// Tests: articles_test.go, edit_test.go, replies_test.go,
// reports_test.go, hide_test.go and votes_bench_test.go here.
package board
