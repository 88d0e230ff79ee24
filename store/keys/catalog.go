package keys

import "strconv"

// Catalog: the row cache and the view analytics.
const (
	// RowSchedule is the ZSET item id -> when its row is next refreshed.
	RowSchedule = "schedule:"
	// RowDelay is the ZSET item id -> refresh delay in seconds.
	RowDelay = "delay:"
	// ViewRanking is the ZSET item id -> minus its view count, so rank 0
	// is the most viewed item (the original schema's `viewed:`).
	ViewRanking = "viewed:"
	// SearchGen is a counter the catalog bumps after each of its writes
	// that a search can see has committed: part of the version cached
	// search results are held under.
	SearchGen = "searchgen"
)

// RowCache is one catalog row as JSON, column names as keys plus
// `cached_at` (the original schema's `inv:<id>`).
func RowCache(id int64) string { return "inv:" + strconv.FormatInt(id, 10) }

// ItemCounts is the item's counters HASH: views (analytics), likes
// (social) and buyers (orders that included the item, analytics). One
// hash, so that a page reads them together.
func ItemCounts(id int64) string { return itemTag(id) + ":counts" }

// ItemLikes is the SET of user ids who like the item.
func ItemLikes(id int64) string { return itemTag(id) + ":likes" }

// AlsoBought is the ZSET of items bought in the same orders as the item:
// item id -> orders they shared.
func AlsoBought(id int64) string { return itemTag(id) + ":also" }

// AlsoBoughtVariant is the ZSET of what was bought in the same orders as
// one variant of the item: "<item>" or "<item>:<variant>" -> orders they
// shared. It carries the item's hash tag, so an order's script counts the
// item and its variants together.
func AlsoBoughtVariant(id, variantID int64) string {
	return itemTag(id) + ":also:" + strconv.FormatInt(variantID, 10)
}

// Item likes across items.
const (
	MostLiked     = "most-liked:"     // ZSET item id -> likes (leaderboard)
	RecentlyLiked = "recently-liked:" // ZSET item id -> time last liked, capped (latest list)
)

// Catalog imports run as jobs (rows in import_jobs).
const (
	// LeaseImports names the imports worker: the instance holding it
	// waits for queued imports and runs them.
	LeaseImports = "imports"
	// ImportWake is a LIST an upload pushes to so that the imports worker
	// starts its job at once; the worker pops it (and also looks for work
	// every few seconds, so a lost push only delays a job).
	ImportWake = "imports:wake"
)

// ImportProgress is an import job's progress HASH while it runs: phase
// (checking, applying), total, checked and applied rows (the apply's rows
// count as written, committed only at its end). It expires a day after
// its last write; the job's row keeps the outcome.
func ImportProgress(id int64) string { return "import:" + strconv.FormatInt(id, 10) + ":progress" }

// ImportRun is the lease of the run holding an import job (the key of
// Lease("import:<id>")): exactly one run, whatever the instance, works on
// a job at a time.
func ImportRun(id int64) string { return Lease("import:" + strconv.FormatInt(id, 10)) }
