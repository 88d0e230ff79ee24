// Package pagecache is the cache of item pages, readable on its own: this
// comment tells the whole protocol, the files hold one part each.
//
// Key (pagecache.go). Only item pages are cached, one entry per item and
// chosen variant: the key is the SHA-256 hex of the canonical path
// `/items/<id>` (PageKey), or `/items/<id>?variant=<v>` when the URL
// chooses a variant (VariantPageKey). `variant` is the one query parameter
// the item page reads: every other one is left out of the key and never
// changes the page, so nobody can mint entries by inventing parameters
// (an id that is not one of the item's variants is a 404, never stored).
// A `_` parameter bypasses the cache and still shows the chosen variant.
// The key never holds the URL's slug (/items/<id>-<slug>): the request's
// SlugMatches compares it with the item's name first, from the page held
// in process or the catalog's name cache, and a wrong or missing slug is
// answered as ItemView.Moved before anything is read or recorded
// (slugMoved in pagecache.go).
// An item is cached only while it ranks below
// PAGE_CACHE_TOP in the view ranking (analytics): the view is counted
// first, then the rank read.
//
// Shared copy in Redis (pagecache.go, fill.go). A page is stored at
// `cache:<hash>` (keys.Page) as a pagebody.Page: rendered once for an
// anonymous visitor, split at its per-visitor holes, compressed, with the
// purge generations and the build (Options.Build, BUILD_ID) it was
// rendered under: a page of another build (older templates) is a miss.
// It lives PAGE_CACHE_TTL fresh
// and a grace period longer; every instance reads it.
//
// In-process copy, L1 (l1.go). Each instance holds decoded copies of pages
// it read or stored, bounded by PAGE_L1_BYTES (least recently used out
// first), never longer than Redis holds them. A hit found here reads
// nothing from Redis for the page.
//
// Fill with coalescing (fill.go). A miss renders the page once per
// instance (singleflight) and about once across instances: a short Redis
// lock beside the page (keys.PageLock, same slot) lets one instance render
// while the others poll for the stored page briefly, then render without
// storing. Before rendering, the page cache gathers every fact the page
// shows for everyone (PageData: the item from the row cache or the
// database, its pictures, reviews and rating, its views, the items bought
// with it) and calls the request's RenderFunc, a pure function of that
// data (the views).
//
// Stale while revalidate (pagecache.go, fill.go). A page past its fresh
// life is served (X-Cache: STALE) while one background render per page and
// instance replaces it.
//
// Per-visitor parts, the holes (pagecache.go, visit.go). Nothing personal
// is stored: the header's account area, cart and unread counts, the like
// box, the review form and the recently viewed list are filled per
// request from what the visit read: the session (sessions.AddLoad, with
// the cart's and the unread counts), the viewed list (sessions.AddRecent)
// and the like box (social.AddLikeBox), all on the one pipeline that also
// reads the rank, the purge generations and the stored page. A returning
// visitor's hit reads them through the client-side caching client
// (sessions.ReadCached, social.LikeBoxOf) and blocks on no round trip.
// The shopper's own review comes from the reviews' memo, which follows the
// purge epochs (PurgeEpoch).
//
// Writes behind (writebehind.go). A hit's writes (the session's touch and
// viewed list, the item's view counts, the page statistics) are buffered
// per instance, coalesced, and flushed in one pipeline every WRITE_BEHIND
// and on Close, through the owners' helpers (sessions.AddTouch and
// AddViews, analytics.AddViews). The flush also learns which guest
// sessions ended (sessions.AddAlive) and drops what they left. A crash
// loses at most one interval of analytics; a cart, order or vote is
// written before its response.
//
// First visits (pagecache.go, visit.go). A visitor without a session gets
// a token at once (signed, carrying the time it was made) and its
// session's creation goes behind too: the flush counts it against the
// address's cap (sessions.AdmitNew) and creates the admitted ones. Until
// then a request that reads or changes the session flushes first
// (Settle), and another instance takes a young token it does not know for
// the new session it is (sessions.Pending): its pages show an empty guest
// session and its writes create the session first (LoadSession). ViewSession gives every other page read
// the same: the session through the client-side cache, the touch behind.
//
// Purge and invalidation (purge.go). An item change announced by the
// catalog (ItemsChanged, registered at wiring) or an admin's purge bumps
// the item's purge generation in `pagegen:` (voiding a page being
// rendered from older data), deletes its page, and is announced on the
// purge channel (keys.PurgeChannel): every instance drops its L1 copy and
// moves the item's purge epoch, so a copy read before the announcement is
// refused. Purging everything bumps the `*` generation and scans
// `cache:*` on every master; OnPurgeAll listeners (search) hear of it.
// While the channel is not subscribed nothing is served from L1.
//
// Statistics (stats.go): hits, misses, stale, bypass and renders across
// instances in `stats:pagecache`, the most-hit items in `stats:pagehits`,
// and the storefront_page_cache_requests_total and
// storefront_page_renders_total series.
//
// State held here, and only here: the L1 copies and purge epochs, the
// write-behind buffer, single flight and the background renders.
//
// Tests: pagecache_test.go and writebehind_test.go (external, on the whole
// shop), pagecache_internal_test.go and pagekey_fuzz_test.go (internal);
// the HTTP side (headers, ETag, holes) in handlers, several instances in
// handlers/apptest.
package pagecache
