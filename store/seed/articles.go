package seed

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"storefront/store/board"
	"storefront/store/sessions"
	"storefront/store/social"
)

// DemoArticleUsers are the accounts that post and vote on the demo board.
// Their passwords are random: nobody signs in as them.
var DemoArticleUsers = []string{"ada", "brian", "carmen", "dmitri", "esther", "farid", "gwen", "hiro", "ines", "jonas"}

// demoArticle is one seeded post.
type demoArticle struct {
	title, link string
	groups      []string
}

var demoArticles = []demoArticle{
	{"Redis in Action, chapter 1: voting on articles", "https://redis.io/ebook/part-1-getting-started/chapter-1-getting-to-know-redis/", []string{"redis"}},
	{"Effective Go", "https://go.dev/doc/effective_go", []string{"go"}},
	{"Sorted sets explained", "https://redis.io/docs/latest/develop/data-types/sorted-sets/", []string{"redis", "databases"}},
	{"A tour of Go generics", "https://go.dev/doc/tutorial/generics", []string{"go"}},
	{"Scripting with Lua in Redis", "https://redis.io/docs/latest/develop/interact/programmability/eval-intro/", []string{"redis"}},
	{"Hash tags and key slots in Redis Cluster", "https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/", []string{"redis", "databases"}},
	{"Why PostgreSQL's MVCC works the way it does", "https://www.postgresql.org/docs/current/mvcc-intro.html", []string{"databases"}},
	{"SQLite is not a toy database", "https://www.sqlite.org/whentouse.html", []string{"databases"}},
	{"The Go memory model", "https://go.dev/ref/mem", []string{"go"}},
	{"Progressive enhancement still matters", "https://developer.mozilla.org/en-US/docs/Glossary/Progressive_Enhancement", []string{"web"}},
	{"Content Security Policy in practice", "https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP", []string{"web"}},
	{"How we pick cast-iron skillets", "https://en.wikipedia.org/wiki/Cast-iron_cookware", []string{"shopping"}},
	{"Buying a tent that lasts", "https://en.wikipedia.org/wiki/Tent", []string{"shopping"}},
	{"Context cancellation patterns in Go", "https://go.dev/blog/context", []string{"go"}},
	{"Rate limiting with a sliding window log", "https://redis.io/glossary/rate-limiting/", []string{"redis", "web"}},
	{"Post/Redirect/Get, explained", "https://en.wikipedia.org/wiki/Post/Redirect/Get", []string{"web"}},
	{"Fountain pens for everyday writing", "https://en.wikipedia.org/wiki/Fountain_pen", []string{"shopping", "offtopic"}},
	{"The joy of mechanical keyboards", "https://en.wikipedia.org/wiki/Keyboard_technology", []string{"offtopic"}},
	{"Profiling Go programs", "https://go.dev/blog/pprof", []string{"go"}},
	{"Redis persistence: RDB and AOF", "https://redis.io/docs/latest/operate/oss_and_stack/management/persistence/", []string{"redis", "databases"}},
	{"Indexes that PostgreSQL actually uses", "https://www.postgresql.org/docs/current/indexes.html", []string{"databases"}},
	{"SameSite cookies explained", "https://developer.mozilla.org/en-US/docs/Web/HTTP/Cookies", []string{"web"}},
	{"Bread baking for programmers", "https://en.wikipedia.org/wiki/Sourdough", []string{"offtopic"}},
	{"Structured logging with log/slog", "https://go.dev/blog/slog", []string{"go"}},
	{"Redis streams as a reliable queue", "https://redis.io/docs/latest/develop/data-types/streams/", []string{"redis"}},
	{"Why your checkout needs a transaction", "https://en.wikipedia.org/wiki/Database_transaction", []string{"databases", "shopping"}},
	{"HTTP caching headers from first principles", "https://developer.mozilla.org/en-US/docs/Web/HTTP/Caching", []string{"web"}},
	{"Choosing a rain jacket", "https://en.wikipedia.org/wiki/Raincoat", []string{"shopping"}},
	{"Go 1.22's loop variable change", "https://go.dev/blog/loopvar-preview", []string{"go"}},
	{"Pipelining: fewer round trips to Redis", "https://redis.io/docs/latest/develop/use/pipelining/", []string{"redis"}},
	{"The accessibility of forms", "https://www.w3.org/WAI/tutorials/forms/", []string{"web"}},
	{"Gardening in small spaces", "https://en.wikipedia.org/wiki/Container_garden", []string{"offtopic"}},
	{"Table-driven tests in Go", "https://go.dev/wiki/TableDrivenTests", []string{"go"}},
	{"What bcrypt's cost factor buys you", "https://en.wikipedia.org/wiki/Bcrypt", []string{"web", "databases"}},
	{"Leaderboards with sorted sets", "https://redis.io/solutions/leaderboards/", []string{"redis", "shopping"}},
	{"A week without a smartphone", "https://en.wikipedia.org/wiki/Digital_detox", []string{"offtopic"}},
}

var demoComments = []string{
	"Great read, thanks for sharing.",
	"I tried this last week and it worked well for us.",
	"The part about edge cases is the best bit.",
	"Does anyone have numbers for a bigger setup?",
	"Bookmarked. The diagrams help a lot.",
	"I disagree with the conclusion, but the reasoning is clear.",
}

// seedArticles fills an empty board with the demo articles, posted over the
// last two weeks by the demo users, with their votes and a few comments.
// It runs only when the `article:` counter is unset, and only on the one
// instance that claims the seed marker, so several instances starting at
// once seed once (a seeding that fails half way is not retried: the marker
// stays). The content is the same on every run (a fixed random seed); only
// the times follow the clock.
func (s *Service) seedArticles(ctx context.Context) error {
	if !s.opt.Articles {
		return nil
	}
	if ok, err := s.Board.ClaimDemo(ctx, s.instance); err != nil || !ok {
		return err
	}
	users, err := s.demoUsers(ctx)
	if err != nil {
		return fmt.Errorf("seed articles: %w", err)
	}
	rng := mrand.New(mrand.NewPCG(20261121, 1))
	now := s.clock.Now()
	// The posts span the last twelve hours: a vote is worth VOTE_SCORE
	// seconds, so with ten voters an article's votes move it by up to about
	// an hour and a half, past several of its neighbours. Top then differs
	// from New as on a live board, where the day's liked posts rise.
	span := 12 * time.Hour
	for i, d := range demoArticles {
		posted := now.Add(-span + time.Duration(i)*span/time.Duration(len(demoArticles)) + time.Duration(rng.IntN(600))*time.Second)
		if posted.After(now) {
			posted = now
		}
		poster := users[rng.IntN(len(users))]
		// Each article has its own appeal: some are liked by nearly
		// everyone, some are voted down.
		appeal := rng.IntN(100)
		up, down := []int64{poster.ID}, []int64(nil)
		for _, u := range users {
			switch r := rng.IntN(100); {
			case u.ID == poster.ID:
			case r < appeal:
				up = append(up, u.ID)
			case r < appeal+(100-appeal)/3:
				down = append(down, u.ID)
			}
		}
		if err := s.seedArticle(ctx, d, poster, posted, now, up, down, rng, users); err != nil {
			return fmt.Errorf("seed articles: %w", err)
		}
	}
	s.log.Info("seeded demo articles", "articles", len(demoArticles), "users", len(users))
	return nil
}

// seedArticle writes one demo article posted at posted (not after now)
// with up to three comments, dated in order between the post and now: the
// time from the post to now is cut in one slot per comment, and each falls
// in the later part of its own slot.
func (s *Service) seedArticle(ctx context.Context, d demoArticle, poster sessions.User, posted, now time.Time, up, down []int64, rng *mrand.Rand, users []sessions.User) error {
	var comments []board.Comment
	n := rng.IntN(4)
	slot := now.Sub(posted) / time.Duration(max(n, 1))
	for j := range n {
		u := users[rng.IntN(len(users))]
		into := time.Duration(600+rng.IntN(3000)) * slot / 3600 // 1/6 to 1 of the slot
		at := posted.Add(time.Duration(j)*slot + into)
		comments = append(comments, board.Comment{UserID: u.ID, User: u.Username, Body: demoComments[rng.IntN(len(demoComments))], Posted: at})
	}
	a, err := s.Board.WriteDemo(ctx, board.Article{Title: d.title, Link: d.link, Poster: poster.Username, PosterID: poster.ID,
		Posted: posted, Groups: d.groups}, up, down, comments)
	if err != nil {
		return err
	}
	// As a post from the page would: the author's posts and counter, and
	// the followers' feeds (following an author later copies these in).
	return s.Social.RecordPost(ctx, social.FeedEntry{
		ArticleID: a.ID, AuthorID: a.PosterID, AuthorName: a.Poster,
		Title: a.Title, Link: a.Link, PostedAt: float64(a.Posted.UnixMicro()) / 1e6,
	})
}

// demoUsers creates the demo accounts, or finds them if they exist.
func (s *Service) demoUsers(ctx context.Context) ([]sessions.User, error) {
	users := make([]sessions.User, 0, len(DemoArticleUsers))
	for _, name := range DemoArticleUsers {
		u, err := s.Sessions.EnsureDemoUser(ctx, name)
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	return users, nil
}
