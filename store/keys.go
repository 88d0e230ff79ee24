package store

import (
	"crypto/sha256"
	"encoding/base64"
	"strconv"
)

// Every Redis key the shop uses. The book's names are kept; keys that one
// multi-key command, transaction or script touches share a hash tag so that
// they live in one Cluster slot.
const (
	keyLogin       = "login:"  // HASH session id -> user id (signed-in sessions)
	keyRecent      = "recent:" // ZSET session id -> last seen (+ signedInScore when signed in), every session
	keyViewedItems = "viewed:" // ZSET item id -> minus view count
	keySchedule    = "schedule:"
	keyDelay       = "delay:"
)

// Sessions are named in Redis by a short session id derived from the
// cookie token, not by the 66-character token itself: the id is in
// `recent:`, `login:` and in the name of each of the session's keys, so its
// length is paid four times per session, and a key listing (SCAN, MONITOR,
// a dump) no longer shows the bearer secret a cookie holds. 72 bits keep
// ids apart (with 10 million live sessions the chance that any two share an
// id is about n^2/2^73, one in a hundred million) and 12 characters fit the
// allocator's 16-byte size class where 16 would take 24 (measured with
// BenchmarkSessionMemory).
const sessionIDBytes = 9 // 72 bits: 12 base64url characters

// sessionID is the Redis name of the session whose cookie token is token:
// the first sessionIDBytes of its SHA-256. The token is 256 random bits
// the server issued and MACed, so the hash needs no key of its own to be
// unguessable and irreversible, and every instance derives the same id.
func sessionID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:sessionIDBytes])
}

// signedInScore is added to a signed-in session's last-seen time in
// `recent:`, so that one ordered set keeps every session with all guests
// before all signed-in shoppers, each group least recently seen first:
// the cleanup evicts from the front and so evicts guests first. Unix
// seconds stay below it until the year 2286, and a double still resolves
// microseconds at its size.
const signedInScore = 1e10

// viewedKey is the session's recently viewed items (the book's
// `viewed:<token>`), a LIST of item ids, newest first. The braces make it
// share a Cluster slot with cartKey, so the cleanup drops both with one
// UNLINK.
func viewedKey(token string) string { return viewedKeyOf(sessionID(token)) }

// The pieces viewedKeyOf and cartKeyOf put around a session id (the
// cleanup script names a session's keys from them too).
const (
	viewedKeyPrefix = "viewed:{"
	cartKeyPrefix   = "cart:{"
	sessionKeyEnd   = "}"
)

// viewedKeyOf is viewedKey for a session id.
func viewedKeyOf(sid string) string { return viewedKeyPrefix + sid + sessionKeyEnd }

// cartKey is a guest session's cart (the book's `cart:<token>`): item id
// -> quantity. A signed-in shopper's cart is the account's (accountCartKey).
func cartKey(token string) string { return cartKeyOf(sessionID(token)) }

// cartKeyOf is cartKey for a session id.
func cartKeyOf(sid string) string { return cartKeyPrefix + sid + sessionKeyEnd }

// accountCartKey is a signed-in account's cart: item id -> quantity,
// shared by the account's sessions and kept after they end. It carries the
// user's hash tag like the account's other keys.
func accountCartKey(userID int64) string { return userTag(userID) + ":cart" }

// cacheKey is a cached page, named by the SHA-256 hex of its normalised URL.
func cacheKey(hash string) string { return "cache:" + hash }

// invKey is one catalog row as JSON (the row cache).
func invKey(id int64) string { return "inv:" + strconv.FormatInt(id, 10) }

// leaseKey names the lease that lets one instance run a worker.
func leaseKey(worker string) string { return "lease:" + worker }

// rateKey is one sliding-window rate limit log: every window of a rate is
// counted on this one set, so one script call checks them all.
func rateKey(name, subject string) string { return "rate:" + name + ":{" + subject + "}" }

// Engagement: likes, counters, follows, feeds and
// notifications. Everything about one item shares the hash tag {item:<id>}
// and everything about one user shares {user:<id>}, so that a set and the
// counter that counts it are changed by one script in one slot, also on
// Cluster. What spans two items or two users (the leaderboards, a follow's
// two sides, a feed fan-out) is never one atomic step; see likes.go and
// follows.go for how those stay consistent.
const (
	keyMostLiked     = "most-liked:"     // ZSET item id -> likes (leaderboard)
	keyRecentlyLiked = "recently-liked:" // ZSET item id -> time last liked, capped (latest list)
	keyFanOut        = "fanout:"         // ZSET fan-out job -> time it may next run (queue)
)

// itemTag is the hash tag of everything about one item.
func itemTag(id int64) string { return "{item:" + strconv.FormatInt(id, 10) + "}" }

// userTag is the hash tag of everything about one user.
func userTag(id int64) string { return "{user:" + strconv.FormatInt(id, 10) + "}" }

// itemLikesKey is the SET of user ids who like the item.
func itemLikesKey(id int64) string { return itemTag(id) + ":likes" }

// alsoBoughtKey is the ZSET of items bought in the same orders as the
// item: item id -> orders they shared.
func alsoBoughtKey(id int64) string { return itemTag(id) + ":also" }

// itemCountsKey is the item's counters HASH: views, likes, buyers (orders
// that included the item).
func itemCountsKey(id int64) string { return itemTag(id) + ":counts" }

// userCountsKey is the user's counters HASH: posts, likes, followers,
// following (and fseq, the version of the user's follow changes).
func userCountsKey(id int64) string { return userTag(id) + ":counts" }

// followingKey is the ZSET of users id follows: user id -> time followed.
func followingKey(id int64) string { return userTag(id) + ":following" }

// followersKey is the ZSET of id's followers: user id -> time followed.
func followersKey(id int64) string { return userTag(id) + ":followers" }

// followVersionsKey is a HASH follower id -> version of the last follow
// change applied to followersKey(id); it orders the two sides of a follow.
func followVersionsKey(id int64) string { return userTag(id) + ":fver" }

// postsKey is the ZSET of articles id posted: article id -> time posted.
func postsKey(id int64) string { return userTag(id) + ":posts" }

// feedKey is id's feed: article id -> time posted, newest FeedSize kept,
// plus the member "0" at score 0 that marks the feed as built.
func feedKey(id int64) string { return userTag(id) + ":feed" }

// unreadKey is the HASH of unread notification counts: kind -> count.
func unreadKey(id int64) string { return userTag(id) + ":unread" }

// notesKey is the capped LIST of recent notifications, newest first, JSON.
func notesKey(id int64) string { return userTag(id) + ":notes" }

// userSessionsKey is the ZSET of the sessions the user signed in on:
// session id -> time signed in. Banning the user or changing the password ends them. It
// may name sessions that ended since (signed out, evicted); it is pruned at
// each sign-in.
func userSessionsKey(id int64) string { return userTag(id) + ":sessions" }

// postKey is a feed entry: the HASH of an article as feeds show it.
func postKey(articleID int64) string { return "post:" + strconv.FormatInt(articleID, 10) }

// Article board (chapter 1). The book's names, all behind one hash tag,
// {a}: the vote script updates an article's hash, its voter sets and the
// global `score:` ZSET atomically, and a group listing runs ZINTERSTORE over
// `group:<name>` and `score:` (or `time:`), so under Cluster every one of
// these keys must live in one slot. The trade-off: the whole board lives on
// one Cluster node (articles are small; sessions and carts, the bulk of the
// data, spread normally). The tag is used in every mode, so the schema is
// the same on one node, a Cluster and the embedded fallbacks.
const (
	keyArticleSeq   = "{a}article:" // STRING article id counter
	keyArticleScore = "{a}score:"   // ZSET article id -> post time + VOTE_SCORE x (up - down)
	keyArticleTime  = "{a}time:"    // ZSET article id -> post time (Unix seconds, float)
	keyArticleSeed  = "{a}seeded:"  // STRING set once by the instance that seeds demo articles
)

// articleKey is one article's HASH: title, link, poster, poster_id, time,
// score, up, down, votes (= up, the book's field), groups, comments.
func articleKey(id int64) string { return "{a}article:" + strconv.FormatInt(id, 10) }

// votedKey is the SET of user ids who voted an article up (the book's name).
func votedKey(id int64) string { return "{a}voted:" + strconv.FormatInt(id, 10) }

// downvotedKey is the SET of user ids who voted an article down.
func downvotedKey(id int64) string { return "{a}downvoted:" + strconv.FormatInt(id, 10) }

// myVotesKey is the HASH of one user's votes on the board: article id ->
// "up" or "down". It repeats what the voter sets say, indexed by voter, so
// that a listing reads the viewer's votes on a whole page with one HMGET
// instead of two SISMEMBER per article; the vote script keeps both in step
// (same slot). It lives as long as the voter sets of the user's latest
// vote.
func myVotesKey(userID int64) string { return "{a}votes:" + strconv.FormatInt(userID, 10) }

// groupKey is the SET of article ids in a group.
func groupKey(name string) string { return "{a}group:" + name }

// groupOrderKey is a group's cached listing: ZINTERSTORE of `group:<name>`
// with `score:` (order "score:") or `time:` (order "time:"), as the book's
// get_group_articles names it: order + group.
func groupOrderKey(order, name string) string { return "{a}" + order + name }

// commentsKey is an article's comments, a LIST of JSON objects, oldest first.
func commentsKey(id int64) string { return "{a}comments:" + strconv.FormatInt(id, 10) }

// Cart, checkout and orders.
const (
	// keyOrderQueue is the Stream of placed orders waiting for fulfilment
	// (field "order" = order id). It is one key, so it needs no hash tag.
	keyOrderQueue = "orders:queue"
	// orderQueueGroup is the consumer group every instance reads with; each
	// instance is a consumer named by its Instance().
	orderQueueGroup = "fulfilment"
)

// checkoutLockKey guards one cart's checkout against a double submit: a
// guest session's, or an account's (whose cart two devices share).
func checkoutLockKey(o CartOwner) string {
	if o.Guest() {
		return "lock:checkout:" + sessionID(o.Token)
	}
	return userTag(o.UserID) + ":checkout-lock"
}

// Page cache. `cache:<hash>` is the book's key. The lock shares
// the page's slot through the hash tag {cache:<hash>}: a key without braces
// hashes on its whole name, so a Lua script may read the page and take or
// release its lock together on Cluster. The other keys live outside the
// `cache:` prefix so that everything under it is a page.
const (
	keyPageGen   = "pagegen:"        // HASH item id (or "*") -> purge generation
	keyPageStats = "stats:pagecache" // HASH hit, miss, stale, bypass, renders: totals across instances
	pageGenAll   = "*"               // the pagegen: field that purging everything bumps
)

// keySearchGen is the search generation: a counter the store bumps after
// each catalog write of its own has committed, part of the version that
// cached search results are held under (search_cache.go).
const keySearchGen = "searchgen"

// pageLockKey is the short lock that lets one instance render a page.
func pageLockKey(hash string) string { return "{cache:" + hash + "}:lock" }

// keyPurgeChannel is the Pub/Sub channel on which purges are announced to
// every instance's in-process page cache: an item id, or "*" for all.
const keyPurgeChannel = "pagecache:purge"

// Session cleanup and worker reports.
const (
	// leaseCleanup names the lease (leaseKey) that lets one instance run
	// the session cleanup.
	leaseCleanup = "cleanup"
)

// Admin dashboard and shared statistics. Every number the
// dashboard shows lives in Redis, so that all instances report the same
// totals. Each key is used by single-key commands only (no hash tags).
const (
	// keyPageHits is the ZSET item id -> pages of it served from the cache
	// (hits), for the dashboard's most-hit items.
	keyPageHits = "stats:pagehits"
	// keyStatsSamples is the ZSET of dashboard samples: JSON -> time
	// (Unix seconds); the stats worker adds one every StatsInterval and
	// keeps statsKeep of history.
	keyStatsSamples = "stats:samples"
	// keyKeyspace is the HASH of what the stats worker's keyspace scan
	// found: pages, page_bytes, carts, at (Unix milliseconds), took (ms).
	keyKeyspace = "stats:keyspace"
	// leaseStats names the lease that lets one instance take samples.
	leaseStats = "stats"
)

// workerKey is a worker's last report, for the admin dashboard: a HASH of
// instance, last_run, result, error, and last:<n> / total:<n> counters.
func workerKey(name string) string { return "worker:" + name }

// SessionKeys are the Redis names of one session.
type SessionKeys struct {
	ID     string // the member of `recent:` and the field of `login:`
	Viewed string // the recently viewed LIST
	Cart   string // the cart HASH
}

// KeysOfSession names the Redis keys of the session whose cookie token is
// token, for tools and tests that look at a session in Redis.
func KeysOfSession(token string) SessionKeys {
	sid := sessionID(token)
	return SessionKeys{ID: sid, Viewed: viewedKeyOf(sid), Cart: cartKeyOf(sid)}
}

// SignedInScore is what a signed-in session's `recent:` score has on top
// of its last-seen time (guests have none).
const SignedInScore = signedInScore
