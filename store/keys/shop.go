package keys

import (
	"strconv"
	"strings"
)

// Orders: placed orders wait for fulfilment on a Stream (field "order" =
// order id), one key, so it needs no hash tag; every instance reads it in
// one consumer group, each as a consumer named by its instance name.
const (
	OrderQueue      = "orders:queue"
	OrderQueueGroup = "fulfilment"
)

// The page cache. `cache:<hash>` is the original schema's key. The render
// lock shares the page's slot through the hash tag {cache:<hash>}: a key
// without braces hashes on its whole name, so a Lua script may read the
// page and take or release its lock together on Cluster. The other keys
// live outside the `cache:` prefix so that everything under it is a page.
const (
	PageGen    = "pagegen:"        // HASH item id (or PageGenAll) -> purge generation
	PageGenAll = "*"               // the PageGen field that purging everything bumps
	PageStats  = "stats:pagecache" // HASH hit, miss, stale, bypass, renders: totals across instances
	// PageHits is the ZSET item id -> pages of it served from the cache,
	// for the dashboard's most-hit items.
	PageHits = "stats:pagehits"
	// PurgeChannel is the Pub/Sub channel on which purges are announced
	// to every instance's in-process copy: an item id, or "*" for all.
	PurgeChannel = "pagecache:purge"
	pagePrefix   = "cache:"
	// PagePattern matches every cached page, for SCAN.
	PagePattern = pagePrefix + "*"
)

// Page is a cached page, named by the SHA-256 hex of its normalised URL.
func Page(hash string) string { return pagePrefix + hash }

// PageLock is the short lock that lets one instance render a page.
func PageLock(hash string) string { return "{" + pagePrefix + hash + "}:lock" }

// Statistics and worker reports. Every number the dashboard shows lives
// in Redis, so that all instances report the same totals.
const (
	// StatsSamples is the ZSET of dashboard samples: JSON -> time (Unix
	// seconds).
	StatsSamples = "stats:samples"
	// KeyspaceScan is the HASH of what the last keyspace scan found:
	// pages, page_bytes, carts, at (Unix milliseconds), took (ms).
	KeyspaceScan = "stats:keyspace"
)

// Worker is a worker's last report, for the admin dashboard: a HASH of
// instance, last_run, result, error, and last:<n> / total:<n> counters.
func Worker(name string) string { return "worker:" + name }

// Lease names the lease that lets one instance run a worker (or one step
// of it) at a time.
func Lease(name string) string { return "lease:" + name }

// Names of the background workers, which name their reports, and of the
// leases the ones that run on one instance at a time take.
const (
	LeaseCleanup         = "cleanup"          // the session cleanup (worker and lease)
	LeaseRescale         = "rescale"          // the view rescale (worker and lease)
	LeaseStats           = "stats"            // the dashboard's sampler (worker and lease)
	LeaseFulfilmentSweep = "fulfilment-sweep" // the fulfilment's sweep of the database
	LeasePaymentHold     = "payment-hold"     // cancels orders whose payment hold ran out (worker and lease)
	LeaseRefunds         = "refunds"          // gives owed refunds back until the provider says done (worker and lease)
	WorkerRowCache       = "rowcache"
	WorkerFanOut         = "fanout"
	WorkerFulfilment     = "fulfilment"
)

// PagesAndCarts is a SCAN pattern that matches every cached page
// (`cache:...`) and both kinds of cart (a guest's `cart:{...}`, an
// account's `{user:<id>}:cart`), so that one pass over the keyspace finds
// them all: "ca" followed by "ch" or "rt" is in `cache:` and in `cart`.
// It also matches a few other names (a key whose name merely contains
// "cart"), which IsPage and IsCart tell apart. SCAN walks every key
// whatever the pattern; the pattern only filters the replies.
const PagesAndCarts = "*ca[cr][ht]*"

// IsPage reports whether a key found by a scan is a cached page.
func IsPage(k string) bool { return strings.HasPrefix(k, pagePrefix) }

// IsCart reports whether a key found by a scan is a cart, a guest's or an
// account's.
func IsCart(k string) bool {
	return strings.HasPrefix(k, "cart:") || strings.HasPrefix(k, "{user:") && strings.HasSuffix(k, "}:cart")
}

// The sitemaps. `sitemap:gen` counts catalog changes a sitemap shows;
// the sitemaps built under generation g are the HASH `sitemap:<g>` (file
// name -> XML, "index" for the index), which lives SitemapTTL at most. A
// change moves the generation, so a build that read the catalog before it
// stores its files where nobody reads any more.
const SitemapGen = "sitemap:gen"

// Sitemaps is the HASH of the sitemaps built under a generation.
func Sitemaps(gen int64) string { return "sitemap:" + strconv.FormatInt(gen, 10) }
