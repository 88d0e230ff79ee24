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

// Session cleanup and worker reports.
const (
	// leaseCleanup names the lease (leaseKey) that lets one instance run
	// the session cleanup.
	leaseCleanup = "cleanup"
)

// workerKey is a worker's last report, for the admin dashboard: a HASH of
// instance, last_run, result, error, and last:<n> / total:<n> counters.
func workerKey(name string) string { return "worker:" + name }
