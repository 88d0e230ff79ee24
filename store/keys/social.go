package keys

import "strconv"

// UserCounts is the user's counters HASH: posts, likes, followers,
// following (and fseq, the version of the user's follow changes).
func UserCounts(id int64) string { return userTag(id) + ":counts" }

// Following is the ZSET of users id follows: user id -> time followed.
func Following(id int64) string { return userTag(id) + ":following" }

// Followers is the ZSET of id's followers: user id -> time followed.
func Followers(id int64) string { return userTag(id) + ":followers" }

// FollowVersions is a HASH follower id -> version of the last follow
// change applied to Followers(id); it orders the two sides of a follow.
func FollowVersions(id int64) string { return userTag(id) + ":fver" }

// Posts is the ZSET of articles id posted: article id -> time posted.
func Posts(id int64) string { return userTag(id) + ":posts" }

// Feed is id's feed: article id -> time posted, the newest kept, plus the
// member "0" at score 0 that marks the feed as built.
func Feed(id int64) string { return userTag(id) + ":feed" }

// Post is a feed entry: the HASH of an article as feeds show it, stored
// once per article (feeds hold only ids).
func Post(articleID int64) string { return "post:" + strconv.FormatInt(articleID, 10) }

// FanOut is the ZSET of fan-out jobs -> the time each may next run.
const FanOut = "fanout:"

// Unread is the HASH of a user's unread notification counts: kind -> count.
func Unread(id int64) string { return userTag(id) + ":unread" }

// Notes is the capped LIST of a user's recent notifications, newest
// first, as JSON.
func Notes(id int64) string { return userTag(id) + ":notes" }
