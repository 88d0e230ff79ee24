package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// Report reasons: what a reader can say is wrong with a post.
const (
	ReasonSpam     = "spam"     // advertising, scams, links for their own sake
	ReasonAbuse    = "abuse"    // rude, hateful or threatening
	ReasonOffTopic = "offtopic" // nothing to do with the shop or its readers
	ReasonOther    = "other"    // anything else, said in the note
)

// ReportReasons lists the reasons in the order forms offer them.
var ReportReasons = []string{ReasonSpam, ReasonAbuse, ReasonOffTopic, ReasonOther}

// IsReportReason reports whether r is one of ReportReasons.
func IsReportReason(r string) bool { return slices.Contains(ReportReasons, r) }

// Errors of reporting.
var (
	// ErrOwnPost: readers do not report their own posts (they can edit or
	// delete them).
	ErrOwnPost = errors.New("own post")
	// ErrReported: the reader has reported this already.
	ErrReported = errors.New("already reported")
)

// NewReport is a reader's report of an article, or of one of its
// comments when CommentID > 0.
type NewReport struct {
	ArticleID, CommentID int64
	UserID               int64
	User                 string
	Reason               string // one of ReportReasons
	Note                 string // what the reader adds; may be empty
}

// Report is one reader's report as moderators read it.
type Report struct {
	User   string
	Reason string
	Note   string
	At     time.Time
}

// storedReport is a report as JSON in the article's reports hash.
type storedReport struct {
	User   string  `json:"user"`
	Reason string  `json:"reason"`
	Note   string  `json:"note,omitempty"`
	At     float64 `json:"at"`
}

// ReportedThing is an article or comment with open reports: what it says,
// who wrote it, and the reports since a moderator last closed them.
type ReportedThing struct {
	Ref       string // the article's id or the comment's CommentRef
	ArticleID int64
	CommentID int64 // 0 for the article itself
	Title     string
	Author    string
	Text      string // the comment's text, or the article's body or link
	Reports   []Report
	Latest    time.Time
}

// closedField is the reports hash's field for when a moderator last hid
// or dismissed a thing's reports.
func closedField(ref string) string { return ref + "/closed" }

// reportScript records one reader's report of an article or comment, once
// per reader and thing, and puts the thing on the moderators' open list.
// KEYS: article hash, comments list, open reports, the article's reports.
// ARGV: the thing's ref, user id, report JSON, now (s), comment number (0
// for the article). Returns 0 when the thing is missing, hidden or
// deleted, -1 for the reader's own post, -2 when already reported, 1 when
// recorded.
var reportScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'hidden') == 1 then return 0 end
local author
local n = tonumber(ARGV[5])
if n > 0 then
  local raw = redis.call('LINDEX', KEYS[2], n - 1)
  if not raw then return 0 end
  local ok, c = pcall(cjson.decode, raw)
  if not ok or c.hidden or c.deleted then return 0 end
  author = tonumber(c.user_id)
else
  author = tonumber(redis.call('HGET', KEYS[1], 'poster_id'))
end
if author == tonumber(ARGV[2]) then return -1 end
if redis.call('HSETNX', KEYS[4], ARGV[1] .. '/' .. ARGV[2], ARGV[3]) == 0 then return -2 end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return 1`)

// ReportPost records a reader's report for the moderators.
// platform.ErrNotFound for a missing, hidden or deleted article or
// comment, ErrOwnPost, ErrReported, platform.ErrInvalid for an unknown
// reason. Length limits on the note are the caller's.
func (s *Service) ReportPost(ctx context.Context, r NewReport) error {
	if !IsReportReason(r.Reason) || r.UserID <= 0 || r.ArticleID <= 0 || r.CommentID < 0 {
		return platform.ErrInvalid
	}
	ref := ThingRef(r.ArticleID, r.CommentID)
	now := s.clock.Seconds()
	raw, err := json.Marshal(storedReport{User: r.User, Reason: r.Reason, Note: r.Note, At: now})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	n, err := reportScript.Run(ctx, s.rdb,
		[]string{keys.Article(r.ArticleID), keys.Comments(r.ArticleID), keys.OpenReports, keys.Reports(r.ArticleID)},
		ref, r.UserID, raw, formatFloat(now), r.CommentID).Int()
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	switch n {
	case 0:
		return platform.ErrNotFound
	case -1:
		return ErrOwnPost
	case -2:
		return ErrReported
	}
	return nil
}

// ParseThingRef reads the ref of a reported thing: an article's id, or a
// comment's CommentRef (commentID > 0), written as ThingRef writes it.
func ParseThingRef(ref string) (articleID, commentID int64, ok bool) {
	if strings.Contains(ref, "-") {
		articleID, commentID, ok = ParseCommentRef(ref)
	} else {
		var err error
		articleID, err = strconv.ParseInt(ref, 10, 64)
		ok = err == nil && articleID > 0
	}
	// One spelling per thing: the open list holds refs as written.
	return articleID, commentID, ok && ThingRef(articleID, commentID) == ref
}

// ThingRef names an article (commentID 0) or one of its comments, as
// report routes and the open list do.
func ThingRef(articleID, commentID int64) string {
	if commentID > 0 {
		return CommentRef(articleID, commentID)
	}
	return strconv.FormatInt(articleID, 10)
}

// dismissScript closes a thing's reports: off the open list, and the time
// noted so that its earlier reports are not shown again if it is reported
// anew. KEYS: open reports, the article's reports. ARGV: ref, now (s).
// Returns 0 when it had no open reports.
var dismissScript = redis.NewScript(`
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1] .. '/closed', ARGV[2])
return 1`)

// DismissReports closes a thing's open reports without hiding it (a
// moderator found nothing wrong). platform.ErrNotFound when it has none.
func (s *Service) DismissReports(ctx context.Context, ref string) error {
	articleID, _, ok := ParseThingRef(ref)
	if !ok {
		return platform.ErrNotFound
	}
	n, err := dismissScript.Run(ctx, s.rdb, []string{keys.OpenReports, keys.Reports(articleID)}, ref, formatFloat(s.clock.Seconds())).Int()
	if err != nil {
		return fmt.Errorf("dismiss reports: %w", err)
	}
	if n == 0 {
		return platform.ErrNotFound
	}
	return nil
}

// OpenReports lists the things with open reports, the most recently
// reported first (at most n), and how many there are, in two round trips.
func (s *Service) OpenReports(ctx context.Context, n int64) ([]ReportedThing, int64, error) {
	zs, total, err := s.hiddenRange(ctx, keys.OpenReports, n)
	if err != nil || len(zs) == 0 {
		return nil, total, err
	}
	type read struct {
		thing   ReportedThing
		article *redis.MapStringStringCmd
		reports *redis.MapStringStringCmd
		comment *redis.StringCmd
	}
	reads := make([]read, 0, len(zs))
	pipe := s.rdb.Pipeline()
	for _, z := range zs {
		ref := fmt.Sprint(z.Member)
		a, c, ok := ParseThingRef(ref)
		if !ok {
			continue
		}
		r := read{thing: ReportedThing{Ref: ref, ArticleID: a, CommentID: c, Latest: secondsTime(z.Score)},
			article: pipe.HGetAll(ctx, keys.Article(a)), reports: pipe.HGetAll(ctx, keys.Reports(a))}
		if c > 0 {
			r.comment = pipe.LIndex(ctx, keys.Comments(a), c-1)
		}
		reads = append(reads, r)
	}
	if cmds, err := pipe.Exec(ctx); platform.RealErr(cmds, err) != nil {
		return nil, 0, fmt.Errorf("open reports: %w", platform.RealErr(cmds, err))
	}
	out := make([]ReportedThing, 0, len(reads))
	for _, r := range reads {
		h := r.article.Val()
		if len(h) == 0 {
			continue // deleted since the range was read
		}
		t := r.thing
		t.Title, t.Author, t.Text = h["title"], h["poster"], h["body"]
		if t.Text == "" {
			t.Text = h["link"]
		}
		if r.comment != nil {
			c, ok := s.parseComment(r.comment.Val())
			if !ok {
				continue
			}
			t.Author, t.Text = c.User, c.Body
		}
		t.Reports = reportsOf(r.reports.Val(), t.Ref)
		out = append(out, t)
	}
	return out, total, nil
}

// reportsOf picks one thing's reports made since its reports were last
// closed out of its article's reports hash, oldest first.
func reportsOf(h map[string]string, ref string) []Report {
	closed, _ := strconv.ParseFloat(h[closedField(ref)], 64)
	var out []Report
	for f, v := range h {
		if !strings.HasPrefix(f, ref+"/") || f == closedField(ref) {
			continue
		}
		var sr storedReport
		if json.Unmarshal([]byte(v), &sr) != nil || sr.At <= closed {
			continue
		}
		out = append(out, Report{User: sr.User, Reason: sr.Reason, Note: sr.Note, At: secondsTime(sr.At)})
	}
	slices.SortFunc(out, func(a, b Report) int { return a.At.Compare(b.At) })
	return out
}
