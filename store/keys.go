package store

import "strconv"

// Every Redis key the shop uses. The book's names are kept; keys that one
// multi-key command, transaction or script touches share a hash tag so that
// they live in one Cluster slot.
const (
	keyLogin       = "login:"  // HASH token -> user id (signed-in sessions)
	keyRecent      = "recent:" // ZSET token -> last seen, every session
	keyGuests      = "guests:" // ZSET token -> last seen, guest sessions only (evicted first)
	keyViewedItems = "viewed:" // ZSET item id -> minus view count
	keySchedule    = "schedule:"
	keyDelay       = "delay:"
)

// viewedKey is the session's recently viewed items: item id -> time viewed.
func viewedKey(token string) string { return "viewed:" + token }

// cartKey is the session's cart: item id -> quantity.
func cartKey(token string) string { return "cart:" + token }

// cacheKey is a cached page, named by the SHA-256 hex of its normalised URL.
func cacheKey(hash string) string { return "cache:" + hash }

// invKey is one catalog row as JSON (the row cache).
func invKey(id int64) string { return "inv:" + strconv.FormatInt(id, 10) }

// leaseKey names the lease that lets one instance run a worker.
func leaseKey(worker string) string { return "lease:" + worker }

// rateKey is one sliding-window rate limit bucket.
func rateKey(name, subject string) string { return "rate:" + name + ":{" + subject + "}" }

// Page cache (DESIGN §10). `cache:<hash>` is the book's key. The lock shares
// the page's slot through the hash tag {cache:<hash>}: a key without braces
// hashes on its whole name, so a Lua script may read the page and take or
// release its lock together on Cluster. The other keys live outside the
// `cache:` prefix so that everything under it is a page.
const (
	keyPageGen   = "pagegen:"        // HASH item id (or "*") -> purge generation
	keyPageStats = "stats:pagecache" // HASH hit, miss, stale, bypass, renders: totals across instances
	pageGenAll   = "*"               // the pagegen: field that purging everything bumps
)

// pageLockKey is the short lock that lets one instance render a page.
func pageLockKey(hash string) string { return "{cache:" + hash + "}:lock" }

// pageKeysKey is the set of the cache hashes of one item's pages, so that a
// purge finds them although the page key is a hash of its URL.
func pageKeysKey(id int64) string { return "pagekeys:" + strconv.FormatInt(id, 10) }
