// Package notify owns the users' notifications: votes and comments on
// their articles, new followers, and changes of their orders. Each user
// has a capped list of recent notes (`{user:<id>}:notes`) and unread
// counts by kind (`{user:<id>}:unread`), changed together by one script
// in the user's slot.
//
// The board's events (through social), the follows and the orders (through
// a hook the wiring registers) write here; the session read of every page
// reads the unread count with AddUnread on its own pipeline (or UnreadOf
// through the client-side cache), so the header's badge costs nothing.
//
// Invariants: a note that repeats an unread one (a vote flipped back and
// forth) replaces it instead of counting twice; marking read takes off
// only the counts the reader was shown, so a note that arrives meanwhile
// stays unread.
//
// Tests: notify_test.go here.
package notify
