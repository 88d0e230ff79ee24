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

// Cart, checkout and orders (DESIGN §9).
const (
	// keyOrderQueue is the Stream of placed orders waiting for fulfilment
	// (field "order" = order id). It is one key, so it needs no hash tag.
	keyOrderQueue = "orders:queue"
	// orderQueueGroup is the consumer group every instance reads with; each
	// instance is a consumer named by its Instance().
	orderQueueGroup = "fulfilment"
)

// checkoutLockKey guards one session's checkout against a double submit.
func checkoutLockKey(token string) string { return "lock:checkout:" + token }

// workerRunKey holds a worker's last run and result (HASH), for the admin
// dashboard.
func workerRunKey(worker string) string { return "worker:" + worker }
