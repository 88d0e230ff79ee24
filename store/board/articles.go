package board

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// ArticleGroups is the site's list of groups an article can be posted in:
// what the shop's readers talk about.
var ArticleGroups = []string{"products", "care", "making", "kitchen", "outdoors", "offtopic"}

// IsArticleGroup reports whether name is one of ArticleGroups.
func IsArticleGroup(name string) bool { return slices.Contains(ArticleGroups, name) }

// Vote directions: the values of the form's dir field and of MyVote.
const (
	VoteUp   = "up"
	VoteDown = "down"
	VoteNone = "none"
)

// Article sort orders.
const (
	SortTop = "top" // by score (`score:`)
	SortNew = "new" // by post time (`time:`)
)

// voterSetGrace keeps the voter sets a day past the end of the vote
// window, so that readers still see their own vote on a just-closed article
// and a clock a little ahead on one instance cannot let a set expire while
// another still takes votes.
const voterSetGrace = 24 * time.Hour

// Article is one post on the board as a reader sees it: a title with a
// link, a text (Body), or both.
type Article struct {
	ID    int64
	Title string
	Link  string // "" for a text post
	// Body is the post's text as typed: plain text, paragraphs split by
	// blank lines; pages escape it and make its http(s) addresses links.
	Body     string
	Poster   string // the poster's username
	PosterID int64  // so that notifications can find the author
	Posted   time.Time
	// Edited is when its author last changed it (zero if never).
	Edited time.Time
	// EditLeft is how long its author may still edit or delete it (zero
	// once EditWindow has passed, and for a hidden article).
	EditLeft time.Duration
	// Score is post time (Unix seconds) + VOTE_SCORE x (up - down): votes
	// lift an article against the newer ones.
	Score    float64
	Up, Down int64
	Groups   []string
	Comments int64
	// MyVote is the reader's vote: VoteUp, VoteDown or VoteNone.
	MyVote string
	// Open reports whether the article can still be voted on.
	Open bool
	// Hidden is set when a moderator hid the article: it is gone from
	// every listing and feed, and only its poster and admins can open it.
	Hidden bool
}

// NewArticle is what a reader posts: a title with a link, a body, or
// both.
type NewArticle struct {
	Title    string
	Link     string
	Body     string
	Groups   []string
	PosterID int64
	Poster   string
}

// ArticleQuery selects one page of a listing.
type ArticleQuery struct {
	Sort     string // SortTop or SortNew
	Group    string // "" lists every article
	Page     int    // from 1
	PerPage  int
	ViewerID int64 // whose votes to show; 0 for a guest
}

// ArticlePage is one page of a listing and the listing's size.
type ArticlePage struct {
	Articles []Article
	Total    int
}

// Service is the article board.
type Service struct {
	rdb    redis.UniversalClient
	log    *slog.Logger
	clock  *platform.Clock
	reader *platform.Reader
	opt    Options
	events Events
	votes  *prometheus.CounterVec
}

// Options are the board's knobs.
type Options struct {
	VoteWindow    time.Duration // how long an article can be voted on (VOTE_WINDOW)
	VoteScore     int64         // points per vote (VOTE_SCORE)
	GroupCacheTTL time.Duration // lifetime of a computed group listing (GROUP_CACHE_TTL)
}

// New returns the board; nothing hears its events until SetEvents.
func New(b platform.Base, opt Options) *Service {
	s := &Service{rdb: b.Redis, log: b.Log, clock: b.Clock, reader: b.Reader, opt: opt, events: noEvents{},
		votes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_votes_total",
			Help: "Article votes that changed something, by direction (none = a vote taken back).",
		}, []string{"dir"}),
	}
	for _, d := range []string{"up", "down", "none"} { // series from 0, so rate() sees the first vote
		s.votes.WithLabelValues(d)
	}
	return s
}

// Collectors are the board's Prometheus series.
func (s *Service) Collectors() []prometheus.Collector { return []prometheus.Collector{s.votes} }

// PostArticle stores a new article with the poster's own up vote: score =
// post time + VOTE_SCORE. The caller validates the form; the board refuses
// only what would corrupt it.
func (s *Service) PostArticle(ctx context.Context, p NewArticle) (Article, error) {
	if strings.TrimSpace(p.Title) == "" || (p.Link == "" && strings.TrimSpace(p.Body) == "") || p.PosterID <= 0 {
		return Article{}, platform.ErrInvalid
	}
	for _, g := range p.Groups {
		if !IsArticleGroup(g) {
			return Article{}, platform.ErrInvalid
		}
	}
	id, err := s.rdb.Incr(ctx, keys.ArticleSeq).Result()
	if err != nil {
		return Article{}, fmt.Errorf("post article: %w", err)
	}
	now := s.clock.Seconds()
	a := Article{
		ID: id, Title: p.Title, Link: p.Link, Body: p.Body, Poster: p.Poster, PosterID: p.PosterID,
		Posted: secondsTime(now), Score: now + float64(s.opt.VoteScore), Up: 1,
		Groups: slices.Compact(slices.Sorted(slices.Values(p.Groups))), MyVote: VoteUp, Open: true,
		EditLeft: EditWindow,
	}
	if err := s.writeArticle(ctx, a, []int64{p.PosterID}, nil); err != nil {
		return Article{}, fmt.Errorf("post article: %w", err)
	}
	s.events.ArticlePosted(ctx, a)
	return a, nil
}

// writeArticle stores an article with its voters in one transaction (all
// its keys share the board's hash tag). The voter sets expire a day after
// the vote window closes: nobody can vote any more.
func (s *Service) writeArticle(ctx context.Context, a Article, up, down []int64) error {
	t := unixSeconds(a.Posted)
	pipe := s.rdb.TxPipeline()
	pipe.HSet(ctx, keys.Article(a.ID), map[string]any{
		"title": a.Title, "link": a.Link, "body": a.Body, "poster": a.Poster, "poster_id": a.PosterID,
		"time": formatFloat(t), "score": formatFloat(a.Score), "up": a.Up, "down": a.Down, "votes": a.Up,
		"groups": strings.Join(a.Groups, ","), "comments": a.Comments,
	})
	ttl := s.voterSetTTL(t, s.clock.Seconds())
	for _, v := range []struct {
		key   string
		users []int64
	}{{keys.UpVoters(a.ID), up}, {keys.DownVoters(a.ID), down}} {
		if len(v.users) == 0 || ttl <= 0 {
			continue
		}
		members := make([]any, len(v.users))
		for i, u := range v.users {
			members[i] = u
		}
		pipe.SAdd(ctx, v.key, members...)
		pipe.PExpire(ctx, v.key, ttl)
	}
	id := strconv.FormatInt(a.ID, 10)
	if ttl > 0 {
		for dir, users := range map[string][]int64{VoteUp: up, VoteDown: down} {
			for _, u := range users {
				pipe.HSet(ctx, keys.MyVotes(u), id, dir)
				pipe.ExpireNX(ctx, keys.MyVotes(u), ttl) // a new hash
				pipe.ExpireGT(ctx, keys.MyVotes(u), ttl) // never shorten it
			}
		}
	}
	pipe.ZAdd(ctx, keys.ArticleScores, redis.Z{Score: a.Score, Member: id})
	pipe.ZAdd(ctx, keys.ArticleTimes, redis.Z{Score: t, Member: id})
	for _, g := range a.Groups {
		pipe.SAdd(ctx, keys.Group(g), id)
	}
	_, err := pipe.Exec(ctx)
	return err
}

// voterSetTTL is how long an article's voter sets live from now.
func (s *Service) voterSetTTL(posted, now float64) time.Duration {
	closes := posted + (s.opt.VoteWindow + voterSetGrace).Seconds()
	return time.Duration((closes - now) * float64(time.Second)).Truncate(time.Millisecond)
}

// groupListing reads a group's listing in one round trip: build the
// group's ordered listing with ZINTERSTORE ... AGGREGATE MAX unless a
// cached one exists, cache it for GROUP_CACHE_TTL, and read one page.
var groupListing = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZINTERSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'AGGREGATE', 'MAX')
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return {redis.call('ZCARD', KEYS[1]), redis.call('ZREVRANGE', KEYS[1], ARGV[2], ARGV[3])}`)

// Articles returns one page of a listing, highest score or newest first,
// optionally of one group, with the viewer's own votes.
func (s *Service) Articles(ctx context.Context, q ArticleQuery) (ArticlePage, error) {
	if q.PerPage < 1 {
		return ArticlePage{}, platform.ErrInvalid
	}
	order, byTime := keys.ArticleScores, false
	if q.Sort == SortNew {
		order, byTime = keys.ArticleTimes, true
	}
	start := int64(max(q.Page, 1)-1) * int64(q.PerPage)
	stop := start + int64(q.PerPage) - 1
	var total int64
	var ids []string
	if q.Group != "" {
		if !IsArticleGroup(q.Group) {
			return ArticlePage{}, platform.ErrNotFound
		}
		res, err := groupListing.Run(ctx, s.rdb, []string{keys.GroupListing(q.Group, byTime), keys.Group(q.Group), order},
			s.opt.GroupCacheTTL.Milliseconds(), start, stop).Slice()
		if err != nil {
			return ArticlePage{}, fmt.Errorf("group articles: %w", err)
		}
		total, _ = res[0].(int64)
		page, _ := res[1].([]any)
		for _, v := range page {
			ids = append(ids, fmt.Sprint(v))
		}
	} else {
		// Every home page reads this listing and only votes and posts
		// change it: read through the client-side cache where there is
		// one (two lookups), else in one pipelined round trip.
		var page *redis.StringSliceCmd
		var n *redis.IntCmd
		err := s.reader.Read(ctx, func(c redis.Cmdable) error {
			page, n = c.ZRevRange(ctx, order, start, stop), c.ZCard(ctx, order)
			return platform.CmdErr(page, n)
		})
		if err != nil {
			return ArticlePage{}, fmt.Errorf("articles: %w", err)
		}
		ids, total = page.Val(), n.Val()
	}
	arts, err := s.ArticlesByID(ctx, platform.ParseIDs(ids), q.ViewerID)
	if err != nil {
		return ArticlePage{}, err
	}
	return ArticlePage{Articles: arts, Total: int(total)}, nil
}

// ArticlesByID reads articles in the order of ids, with viewerID's votes,
// in one round trip (feeds use it too): one HGETALL per article and one
// HMGET of the viewer's votes for all of them, through the client-side
// cache where there is one (an article changes far less often than
// listings are read, and Redis tells the client when it changes; the
// viewer's own vote drops their copy on this instance at once). Missing
// articles are skipped, and so are hidden ones: a listing read just
// before a hide may still name them.
func (s *Service) ArticlesByID(ctx context.Context, ids []int64, viewerID int64) ([]Article, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	hashes := make([]*redis.MapStringStringCmd, len(ids))
	fields := make([]string, len(ids))
	for i, id := range ids {
		fields[i] = strconv.FormatInt(id, 10)
	}
	var mine *redis.SliceCmd
	err := s.reader.Read(ctx, func(c redis.Cmdable) error {
		cmds := make([]redis.Cmder, 0, len(ids)+1)
		for i, id := range ids {
			hashes[i] = c.HGetAll(ctx, keys.Article(id))
			cmds = append(cmds, hashes[i])
		}
		if viewerID > 0 {
			mine = c.HMGet(ctx, keys.MyVotes(viewerID), fields...)
			cmds = append(cmds, mine)
		}
		return platform.CmdErr(cmds...)
	})
	if err != nil {
		return nil, fmt.Errorf("read articles: %w", err)
	}
	out := make([]Article, 0, len(ids))
	for i, id := range ids {
		h := hashes[i].Val()
		if len(h) == 0 || h["hidden"] != "" {
			continue
		}
		vote := VoteNone
		if mine != nil {
			if v, ok := mine.Val()[i].(string); ok && (v == VoteUp || v == VoteDown) {
				vote = v
			}
		}
		out = append(out, s.parseArticle(id, h, vote))
	}
	return out, nil
}

// articleRead is an article's hash and the viewer's vote on it, queued on
// a pipeline.
type articleRead struct {
	hash *redis.MapStringStringCmd
	mine *redis.StringCmd // nil without a viewer
}

func (s *Service) addReadArticle(ctx context.Context, pipe redis.Pipeliner, id, viewerID int64) articleRead {
	r := articleRead{hash: pipe.HGetAll(ctx, keys.Article(id))}
	if viewerID > 0 {
		r.mine = pipe.HGet(ctx, keys.MyVotes(viewerID), strconv.FormatInt(id, 10))
	}
	return r
}

func (s *Service) articleFrom(id int64, r articleRead) (Article, bool) {
	if len(r.hash.Val()) == 0 {
		return Article{}, false
	}
	mine := VoteNone
	if r.mine != nil {
		if v := r.mine.Val(); v == VoteUp || v == VoteDown {
			mine = v
		}
	}
	return s.parseArticle(id, r.hash.Val(), mine), true
}

// parseArticle builds an Article from its hash fields.
func (s *Service) parseArticle(id int64, h map[string]string, myVote string) Article {
	num := func(k string) int64 { n, _ := strconv.ParseInt(h[k], 10, 64); return n }
	posted, _ := strconv.ParseFloat(h["time"], 64)
	score, _ := strconv.ParseFloat(h["score"], 64)
	now := s.clock.Seconds()
	a := Article{
		ID: id, Title: h["title"], Link: h["link"], Body: h["body"], Poster: h["poster"], PosterID: num("poster_id"),
		Posted: secondsTime(posted), Score: score, Up: num("up"), Down: num("down"),
		Comments: num("comments"), MyVote: myVote,
		Open:   now < posted+s.opt.VoteWindow.Seconds(),
		Hidden: h["hidden"] != "",
	}
	if e, _ := strconv.ParseFloat(h["edited"], 64); e > 0 {
		a.Edited = secondsTime(e)
	}
	if !a.Hidden {
		a.EditLeft = editLeft(posted, now)
	}
	// Only the site's groups: an article keeps the name of a group the
	// site no longer has, which no page links to.
	for g := range strings.SplitSeq(h["groups"], ",") {
		if IsArticleGroup(g) {
			a.Groups = append(a.Groups, g)
		}
	}
	return a
}

// secondsTime turns fractional Unix seconds into a time, to the microsecond.
func secondsTime(f float64) time.Time { return time.UnixMicro(int64(math.Round(f * 1e6))) }

// unixSeconds is the inverse of secondsTime.
func unixSeconds(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

// formatFloat writes a float so that it reads back exactly.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ClaimDemo reports whether the board is empty and this instance (named
// instance) has claimed its demo seeding: once across instances starting
// together, and a seeding that fails half way is not retried (the claim
// stays).
func (s *Service) ClaimDemo(ctx context.Context, instance string) (bool, error) {
	if n, err := s.rdb.Exists(ctx, keys.ArticleSeq).Result(); err != nil || n > 0 {
		return false, err
	}
	return s.rdb.SetNX(ctx, keys.ArticleSeed, instance, 0).Result()
}

// WriteDemo stores a demo article posted in the past (a.Posted) with its
// voters and comments (a comment's Parent names an earlier one by its
// number), as if they had happened, and returns it with its id and score.
func (s *Service) WriteDemo(ctx context.Context, a Article, up, down []int64, comments []Comment) (Article, error) {
	id, err := s.rdb.Incr(ctx, keys.ArticleSeq).Result()
	if err != nil {
		return a, err
	}
	t := unixSeconds(a.Posted)
	a.ID, a.Up, a.Down = id, int64(len(up)), int64(len(down))
	a.Score = t + float64(s.opt.VoteScore)*float64(len(up)-len(down))
	if err := s.writeArticle(ctx, a, up, down); err != nil {
		return a, err
	}
	if len(comments) == 0 {
		return a, nil
	}
	pipe := s.rdb.Pipeline()
	for _, c := range comments {
		raw, err := json.Marshal(storedOf(c))
		if err != nil {
			return a, err
		}
		pipe.RPush(ctx, keys.Comments(id), raw)
	}
	pipe.HSet(ctx, keys.Article(id), "comments", len(comments))
	_, err = pipe.Exec(ctx)
	return a, err
}
