package keys

import "strconv"

// The article board: every key behind one hash tag, {a}. The vote script
// updates an article's hash, its voter sets and `score:` atomically, and a
// group listing runs ZINTERSTORE over `group:<name>` and `score:` (or
// `time:`), so under Cluster all of them must live in one slot. The
// trade-off: the whole board lives on one Cluster node (articles are
// small; sessions and carts, the bulk of the data, spread normally). The
// tag is used in every mode, so the schema is the same on one node, a
// Cluster and the embedded fallbacks.
const (
	ArticleSeq    = "{a}article:" // STRING article id counter
	ArticleScores = "{a}score:"   // ZSET article id -> post time + VOTE_SCORE x (up - down)
	ArticleTimes  = "{a}time:"    // ZSET article id -> post time (Unix seconds, float)
	ArticleSeed   = "{a}seeded:"  // STRING set once by the instance that seeds demo articles
)

// Article is one article's HASH: title, link, body, poster, poster_id,
// time, edited, score, up, down, votes (= up), groups, comments, hidden.
func Article(id int64) string { return "{a}article:" + strconv.FormatInt(id, 10) }

// UpVoters is the SET of user ids who voted an article up (`voted:<id>`).
func UpVoters(id int64) string { return "{a}voted:" + strconv.FormatInt(id, 10) }

// DownVoters is the SET of user ids who voted an article down.
func DownVoters(id int64) string { return "{a}downvoted:" + strconv.FormatInt(id, 10) }

// MyVotes is the HASH of one user's votes on the board: article id ->
// "up" or "down". It repeats what the voter sets say, indexed by voter, so
// that a listing reads the viewer's votes on a whole page with one HMGET
// instead of two SISMEMBER per article; the vote script keeps both in step
// (same slot). It lives as long as the voter sets of the user's latest
// vote.
func MyVotes(userID int64) string { return "{a}votes:" + strconv.FormatInt(userID, 10) }

// Group is the SET of article ids in a group.
func Group(name string) string { return "{a}group:" + name }

// GroupListing is a group's cached listing: the ZINTERSTORE of
// `group:<name>` with `score:` (`score:<name>`), or with `time:` when
// byTime (`time:<name>`).
func GroupListing(name string, byTime bool) string {
	if byTime {
		return "{a}time:" + name
	}
	return "{a}score:" + name
}

// Comments is an article's comments, a LIST of JSON objects, oldest first.
func Comments(id int64) string { return "{a}comments:" + strconv.FormatInt(id, 10) }

// HiddenArticles is the ZSET of hidden article ids -> when a moderator
// hid them (Unix seconds): the moderation page's list, kept by the hide
// and unhide scripts with the article's hash.
const HiddenArticles = "{a}hidden:"

// HiddenComments is the ZSET of hidden comments, "<article>-<number>" ->
// when a moderator hid them, kept by the hide and unhide scripts.
const HiddenComments = "{a}hidden-comments:"

// RateReport names the rate limit of readers' reports to moderation, per
// account (`rate:report:{<user id>}`).
const RateReport = "report"

// OpenReports is the ZSET of reported things awaiting a moderator: an
// article's id or a comment's "<article>-<number>" -> when it was last
// reported (Unix seconds). Hiding, dismissing or deleting the thing takes
// it off.
const OpenReports = "{a}reports:"

// Reports is the HASH of every report on an article and its comments:
// "<thing>/<reporter's user id>" -> the report as JSON, and
// "<thing>/closed" -> when a moderator last hid or dismissed the thing's
// reports. One field per reader and thing, so a reader reports a thing
// once; one key per article, so deleting the article drops them all.
func Reports(articleID int64) string { return "{a}reports:" + strconv.FormatInt(articleID, 10) }
