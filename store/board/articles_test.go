package board_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"storefront/store/board"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// users creates n accounts directly in the store.
func users(t testing.TB, st *wiring.Services, prefix string, n int) []sessions.User {
	t.Helper()
	out := make([]sessions.User, n)
	for i := range out {
		u, err := st.Sessions.CreateUser(t.Context(), fmt.Sprintf("%s%d", prefix, i), "correct horse battery")
		if err != nil {
			t.Fatal(err)
		}
		out[i] = u
	}
	return out
}

func post(t testing.TB, st *wiring.Services, u sessions.User, title string, groups ...string) board.Article {
	t.Helper()
	a, err := st.Board.PostArticle(t.Context(), board.NewArticle{Title: title, Link: "https://example.com/" + title, Groups: groups, PosterID: u.ID, Poster: u.Username})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func vote(t *testing.T, st *wiring.Services, id int64, u sessions.User, dir string) (board.Article, bool) {
	t.Helper()
	a, changed, err := st.Board.Vote(t.Context(), id, u.ID, dir)
	if err != nil {
		t.Fatalf("vote %s: %v", dir, err)
	}
	return a, changed
}

// TestVotingScenario votes up, down, switches and takes votes back,
// checking the score against the formula and the stored state after each
// step.
func TestVotingScenario(t *testing.T) {
	st := wiringtest.New(t)
	us := users(t, st, "reader", 3)
	poster, other, third := us[0], us[1], us[2]
	a := post(t, st, poster, "first")
	posted := float64(a.Posted.UnixMicro()) / 1e6
	if a.Up != 1 || a.Down != 0 || a.Score != posted+432 || a.MyVote != board.VoteUp || !a.Open {
		t.Fatalf("new post: %+v, want 1 up and score time+432", a)
	}
	steps := []struct {
		name     string
		who      sessions.User
		dir      string
		changed  bool
		up, down int64
		mine     string
		overTime float64
	}{
		{"another user's up vote", other, "up", true, 2, 0, "up", 864},
		{"the same user again", other, "up", false, 2, 0, "up", 864},
		{"the poster again", poster, "up", false, 2, 0, "up", 864},
		{"a down vote", third, "down", true, 2, 1, "down", 432},
		{"a repeated down vote", third, "down", false, 2, 1, "down", 432},
		{"up to down", other, "down", true, 1, 2, "down", -432},
		{"down to up", other, "up", true, 2, 1, "up", 432},
		{"taking an up vote back", other, "none", true, 1, 1, "none", 0},
		{"taking it back again", other, "none", false, 1, 1, "none", 0},
		{"taking a down vote back", third, "none", true, 1, 0, "none", 432},
	}
	prev := a.Score
	for _, s := range steps {
		got, changed := vote(t, st, a.ID, s.who, s.dir)
		if changed != s.changed || got.Up != s.up || got.Down != s.down || got.MyVote != s.mine || !got.Open {
			t.Fatalf("%s: changed=%v %+v, want changed=%v up=%d down=%d mine=%s", s.name, changed, got, s.changed, s.up, s.down, s.mine)
		}
		if got.Score != posted+s.overTime {
			t.Fatalf("%s: score %v, want time%+v", s.name, got.Score, s.overTime)
		}
		if s.name == "up to down" && got.Score-prev != -864 {
			t.Fatalf("a switch moved the score by %v, want -864", got.Score-prev)
		}
		prev = got.Score
		// Listings and the article page read the voter's own record of
		// votes: it must say what the voter sets say.
		listed, err := st.Board.ArticlesByID(t.Context(), []int64{a.ID, 999999, a.ID}, s.who.ID)
		if err != nil || len(listed) != 2 || listed[0].MyVote != s.mine || listed[1].MyVote != s.mine {
			t.Fatalf("%s: listing %+v, %v; want my vote %s", s.name, listed, err, s.mine)
		}
		if one, _, err := st.Board.ArticleWithComments(t.Context(), a.ID, s.who.ID); err != nil || one.MyVote != s.mine {
			t.Fatalf("%s: article page my vote %q, %v; want %s", s.name, one.MyVote, err, s.mine)
		}
		z, err := st.Redis().ZScore(t.Context(), keys.ArticleScores, fmt.Sprint(a.ID)).Result()
		if err != nil || z != got.Score {
			t.Fatalf("%s: score: is %v (%v), want %v", s.name, z, err, got.Score)
		}
	}
	// The sets hold each voter once, in one direction.
	rdb := st.Redis()
	up := storetest.Must(rdb.SMembers(t.Context(), keys.UpVoters(a.ID)).Result())(t)
	down := storetest.Must(rdb.SMembers(t.Context(), keys.DownVoters(a.ID)).Result())(t)
	if !slices.Equal(up, []string{fmt.Sprint(poster.ID)}) || len(down) != 0 {
		t.Fatalf("voted %v downvoted %v", up, down)
	}
	if ttl := rdb.PTTL(t.Context(), keys.UpVoters(a.ID)).Val(); ttl <= 168*time.Hour {
		t.Errorf("voter set lives %v, want past the vote window", ttl)
	}
}

func TestVoteErrors(t *testing.T) {
	st := wiringtest.New(t)
	u := users(t, st, "reader", 1)[0]
	a := post(t, st, u, "x")
	if _, _, err := st.Board.Vote(t.Context(), a.ID+100, u.ID, "up"); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("missing article: %v", err)
	}
	if _, _, err := st.Board.Vote(t.Context(), a.ID, u.ID, "sideways"); !errors.Is(err, platform.ErrInvalid) {
		t.Errorf("bad dir: %v", err)
	}
	if _, err := st.Board.PostArticle(t.Context(), board.NewArticle{Title: "t", Link: "https://x", Groups: []string{"nope"}, PosterID: u.ID}); !errors.Is(err, platform.ErrInvalid) {
		t.Errorf("unknown group: %v", err)
	}
	if _, err := st.Board.AddComment(t.Context(), a.ID+100, u.ID, u.Username, "hi"); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("comment on a missing article: %v", err)
	}
	if _, _, err := st.Board.ArticleWithComments(t.Context(), a.ID+100, 0); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("missing article page: %v", err)
	}
}

// TestVoteWindow moves the clock past VOTE_WINDOW: votes then change
// nothing and the article reads as closed.
func TestVoteWindow(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.VoteWindow = 2 * time.Second })
	us := users(t, st, "reader", 2)
	a := post(t, st, us[0], "x")
	now := time.Now()
	st.SetClock(func() time.Time { return now.Add(3 * time.Second) })
	got, changed := vote(t, st, a.ID, us[1], "up")
	if changed || got.Open || got.Up != 1 || got.Score != a.Score || got.MyVote != "none" {
		t.Fatalf("vote after the window: changed=%v %+v", changed, got)
	}
	got, changed = vote(t, st, a.ID, us[0], "none")
	if changed || got.Up != 1 || got.MyVote != "up" {
		t.Fatalf("take back after the window: changed=%v %+v", changed, got)
	}
	arts, err := st.Board.ArticlesByID(t.Context(), []int64{a.ID}, us[0].ID)
	if err != nil || len(arts) != 1 || arts[0].Open {
		t.Fatalf("listing shows it open: %+v %v", arts, err)
	}
}

// TestConcurrentVotes: 100 simultaneous up votes by one user count once;
// by 100 users, a hundred times.
func TestConcurrentVotes(t *testing.T) {
	st := wiringtest.New(t)
	us := users(t, st, "reader", 101)
	a := post(t, st, us[0], "hot")
	run := func(voter func(i int) sessions.User) {
		var wg sync.WaitGroup
		for i := range 100 {
			wg.Go(func() {
				if _, _, err := st.Board.Vote(context.Background(), a.ID, voter(i).ID, "up"); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	run(func(int) sessions.User { return us[1] })
	got, _ := vote(t, st, a.ID, us[1], "up")
	if got.Score != a.Score+432 || got.Up != 2 {
		t.Fatalf("one user x100: score +%v, up %d; want +432 once", got.Score-a.Score, got.Up)
	}
	vote(t, st, a.ID, us[1], "none")
	run(func(i int) sessions.User { return us[i+1] })
	got, _ = vote(t, st, a.ID, us[0], "up")
	if got.Score != a.Score+100*432 || got.Up != 101 {
		t.Fatalf("100 users: score +%v, up %d; want +%d", got.Score-a.Score, got.Up, 100*432)
	}
}

func TestListings(t *testing.T) {
	st := wiringtest.New(t)
	us := users(t, st, "reader", 2)
	var ids []int64
	for i := range 30 {
		ids = append(ids, post(t, st, us[0], fmt.Sprintf("a%d", i)).ID)
	}
	// Vote the oldest up so that top and new differ.
	vote(t, st, ids[0], us[1], "up")
	ctx := t.Context()
	page := func(sort string, n int) board.ArticlePage {
		p, err := st.Board.Articles(ctx, board.ArticleQuery{Sort: sort, Page: n, PerPage: 25, ViewerID: us[1].ID})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p1, p2, p3 := page(board.SortNew, 1), page(board.SortNew, 2), page(board.SortNew, 3)
	if len(p1.Articles) != 25 || len(p2.Articles) != 5 || len(p3.Articles) != 0 || p1.Total != 30 {
		t.Fatalf("pages of %d, %d, %d (total %d), want 25, 5, 0 of 30", len(p1.Articles), len(p2.Articles), len(p3.Articles), p1.Total)
	}
	if p1.Articles[0].ID != ids[29] || p2.Articles[4].ID != ids[0] {
		t.Errorf("new is not newest first")
	}
	top := page(board.SortTop, 1)
	if top.Articles[0].ID != ids[0] || top.Articles[0].MyVote != "up" || top.Articles[1].MyVote != "none" {
		t.Errorf("top: first %d (my vote %s), want %d (up)", top.Articles[0].ID, top.Articles[0].MyVote, ids[0])
	}
}

// TestGroupListings: a group lists only its articles, by score or time,
// from a cached ZINTERSTORE that catches up within GROUP_CACHE_TTL.
func TestGroupListings(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.GroupCacheTTL = time.Second })
	us := users(t, st, "reader", 2)
	g1 := post(t, st, us[0], "go1", "care")
	post(t, st, us[0], "web1", "kitchen")
	g2 := post(t, st, us[0], "go2", "care", "making")
	vote(t, st, g1.ID, us[1], "up")
	list := func(group, sort string) []int64 {
		p, err := st.Board.Articles(t.Context(), board.ArticleQuery{Group: group, Sort: sort, Page: 1, PerPage: 25})
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, a := range p.Articles {
			out = append(out, a.ID)
		}
		return out
	}
	if got := list("care", board.SortTop); !slices.Equal(got, []int64{g1.ID, g2.ID}) {
		t.Fatalf("go by score: %v", got)
	}
	if got := list("care", board.SortNew); !slices.Equal(got, []int64{g2.ID, g1.ID}) {
		t.Fatalf("go by time: %v", got)
	}
	if got := list("making", board.SortTop); !slices.Equal(got, []int64{g2.ID}) {
		t.Fatalf("redis: %v", got)
	}
	if ttl := st.Redis().PTTL(t.Context(), keys.GroupListing("care", false)).Val(); ttl <= 0 || ttl > time.Second {
		t.Errorf("cached listing TTL %v", ttl)
	}
	g3 := post(t, st, us[0], "go3", "care")
	storetest.Wait(t, 1100*time.Millisecond)
	if got := list("care", board.SortNew); !slices.Equal(got, []int64{g3.ID, g2.ID, g1.ID}) {
		t.Fatalf("after the TTL: %v", got)
	}
	if _, err := st.Board.Articles(t.Context(), board.ArticleQuery{Group: "nope", Page: 1, PerPage: 25}); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("unknown group: %v", err)
	}
}

func TestComments(t *testing.T) {
	st := wiringtest.New(t)
	u := users(t, st, "reader", 1)[0]
	a := post(t, st, u, "x")
	for _, body := range []string{"first", "<b>second</b>"} {
		if _, err := st.Board.AddComment(t.Context(), a.ID, u.ID, u.Username, body); err != nil {
			t.Fatal(err)
		}
	}
	got, cs, err := st.Board.ArticleWithComments(t.Context(), a.ID, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Comments != 2 || len(cs) != 2 || cs[0].Body != "first" || cs[1].ID != 2 || cs[1].User != u.Username || got.MyVote != "up" {
		t.Fatalf("%+v %+v", got, cs)
	}
}

// recorder is an ArticleEvents that remembers what it was told.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(s string) { r.mu.Lock(); r.events = append(r.events, s); r.mu.Unlock() }
func (r *recorder) ArticlePosted(_ context.Context, a board.Article) {
	r.add(fmt.Sprintf("posted %d by %d", a.ID, a.PosterID))
}
func (r *recorder) ArticleVoted(_ context.Context, a board.Article, voter int64, dir string) {
	r.add(fmt.Sprintf("voted %d by %d %s (poster %d)", a.ID, voter, dir, a.PosterID))
}
func (r *recorder) ArticleCommented(_ context.Context, a board.Article, c board.Comment) {
	r.add(fmt.Sprintf("commented %d by %d #%d (poster %d)", a.ID, c.UserID, c.ID, a.PosterID))
}
func (r *recorder) ArticleEdited(_ context.Context, a board.Article) {
	r.add(fmt.Sprintf("edited %d %q", a.ID, a.Title))
}
func (r *recorder) ArticleDeleted(_ context.Context, a board.Article) error {
	r.add(fmt.Sprintf("deleted %d (poster %d)", a.ID, a.PosterID))
	return nil
}
func (r *recorder) ArticleHidden(_ context.Context, a board.Article) error {
	r.add(fmt.Sprintf("hidden %d (poster %d)", a.ID, a.PosterID))
	return nil
}
func (r *recorder) ArticleUnhidden(_ context.Context, a board.Article) error {
	r.add(fmt.Sprintf("unhidden %d (poster %d)", a.ID, a.PosterID))
	return nil
}

func TestArticleEvents(t *testing.T) {
	st := wiringtest.New(t)
	rec := &recorder{}
	st.Board.SetEvents(rec)
	us := users(t, st, "reader", 2)
	a := post(t, st, us[0], "x")
	vote(t, st, a.ID, us[1], "down")
	vote(t, st, a.ID, us[1], "down") // no change, no event
	if _, err := st.Board.AddComment(t.Context(), a.ID, us[1].ID, us[1].Username, "hi"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Board.HideArticle(t.Context(), a.ID, "moderator"); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second changes nothing, so says nothing
		if _, err := st.Board.UnhideArticle(t.Context(), a.ID); err != nil {
			t.Fatal(err)
		}
	}
	p, v := us[0].ID, us[1].ID
	want := []string{
		fmt.Sprintf("posted %d by %d", a.ID, p),
		fmt.Sprintf("voted %d by %d down (poster %d)", a.ID, v, p),
		fmt.Sprintf("commented %d by %d #1 (poster %d)", a.ID, v, p),
		fmt.Sprintf("hidden %d (poster %d)", a.ID, p),
		fmt.Sprintf("unhidden %d (poster %d)", a.ID, p),
	}
	if !slices.Equal(rec.events, want) {
		t.Fatalf("events %q, want %q", rec.events, want)
	}
}

// TestSeedArticles: the demo board is seeded once, the same every time.
func TestSeedArticles(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.SeedArticles = true })
	ctx := t.Context()
	p, err := st.Board.Articles(ctx, board.ArticleQuery{Sort: board.SortNew, Page: 1, PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total < 30 {
		t.Fatalf("%d demo articles, want a few dozen", p.Total)
	}
	oldest, newest := p.Articles[len(p.Articles)-1].Posted, p.Articles[0].Posted
	if time.Since(oldest) < 11*time.Hour || time.Since(oldest) > 13*time.Hour || time.Since(newest) > time.Hour {
		t.Errorf("demo articles from %v to %v, want the last twelve hours", oldest, newest)
	}
	// Top is not New: the votes move articles past their neighbours.
	top, err := st.Board.Articles(ctx, board.ArticleQuery{Sort: board.SortTop, Page: 1, PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for i := range top.Articles {
		if top.Articles[i].ID != p.Articles[i].ID {
			moved++
		}
	}
	if moved < p.Total/3 {
		t.Errorf("only %d of %d articles are placed differently in Top and New", moved, p.Total)
	}
	// Every author's profile counts and lists their articles, and following
	// an author fills the follower's feed with them.
	perAuthor := map[int64]int64{}
	for _, a := range p.Articles {
		perAuthor[a.PosterID]++
	}
	for id, n := range perAuthor {
		prof, err := st.Social.Profile(ctx, id, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if prof.Counts.Posts != n || int64(len(prof.PostIDs)) != n {
			t.Errorf("author %d: profile counts %d posts and lists %d, posted %d", id, prof.Counts.Posts, len(prof.PostIDs), n)
		}
	}
	reader, err := st.Sessions.CreateUser(ctx, "reader", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	author := p.Articles[0].PosterID
	if _, err := st.Social.Follow(ctx, reader.ID, author, true); err != nil {
		t.Fatal(err)
	}
	feed, total, err := st.Social.Feed(ctx, reader.ID, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if total != perAuthor[author] || len(feed) == 0 || feed[0] != p.Articles[0].ID {
		t.Errorf("after following author %d: feed %v (total %d), want their %d articles, newest %d first", author, feed, total, perAuthor[author], p.Articles[0].ID)
	}
	var votes, downs int64
	for _, a := range p.Articles {
		votes += a.Up + a.Down
		downs += a.Down
		if want := float64(a.Posted.UnixMicro())/1e6 + 432*float64(a.Up-a.Down); a.Score != want {
			t.Errorf("article %d: score %v, want %v", a.ID, a.Score, want)
		}
	}
	if votes < int64(2*p.Total) || downs == 0 {
		t.Errorf("%d votes (%d down) on %d articles", votes, downs, p.Total)
	}
	// Idempotent: seeding again adds nothing.
	if _, err := st.SeedDemo(ctx, storetest.AdminPassword); err != nil {
		t.Fatal(err)
	}
	again, _ := st.Board.Articles(ctx, board.ArticleQuery{Sort: board.SortNew, Page: 1, PerPage: 100})
	if again.Total != p.Total {
		t.Errorf("second seed: %d articles, had %d", again.Total, p.Total)
	}
	// Deterministic: another empty board gets the same articles and votes.
	other := wiringtest.New(t, func(o *wiring.Options) { o.SeedArticles = true })
	q, _ := other.Board.Articles(ctx, board.ArticleQuery{Sort: board.SortNew, Page: 1, PerPage: 100})
	for i := range p.Articles {
		x, y := p.Articles[i], q.Articles[i]
		if x.Title != y.Title || x.Poster != y.Poster || x.Up != y.Up || x.Down != y.Down || x.Comments != y.Comments {
			t.Fatalf("seed differs at %d: %+v vs %+v", i, x, y)
		}
	}
}

// TestVoteWindowLastSecond: with the clock seam, a vote in the window's
// last second counts (one second before the close, and a millisecond
// before it), and one at the close or a second after changes nothing; the
// article reads open up to the close and closed from it.
func TestVoteWindowLastSecond(t *testing.T) {
	const window = time.Hour
	st := wiringtest.New(t, func(o *wiring.Options) { o.VoteWindow = window })
	us := users(t, st, "voter", 5)
	posted := time.Unix(1_800_000_000, 0) // whole seconds: the close is exact
	at := func(d time.Duration) { st.SetClock(func() time.Time { return posted.Add(d) }) }
	at(0)
	a := post(t, st, us[0], "last-second")
	steps := []struct {
		at    time.Duration
		voter sessions.User
		open  bool
	}{
		{window - time.Second, us[1], true},
		{window - time.Millisecond, us[2], true},
		{window, us[3], false},
		{window + time.Second, us[4], false},
	}
	up := a.Up // the poster's own vote
	for _, s := range steps {
		at(s.at)
		got, changed := vote(t, st, a.ID, s.voter, "up")
		if s.open {
			up++
		}
		if changed != s.open || got.Open != s.open || got.Up != up {
			t.Fatalf("vote at posted+%v: changed=%v open=%v up=%d, want changed=%v open=%v up=%d", s.at, changed, got.Open, got.Up, s.open, s.open, up)
		}
		arts, err := st.Board.ArticlesByID(t.Context(), []int64{a.ID}, s.voter.ID)
		if err != nil || len(arts) != 1 {
			t.Fatalf("read back: %+v %v", arts, err)
		}
		if arts[0].Open != s.open || arts[0].Up != up {
			t.Errorf("at posted+%v the article reads open=%v up=%d, want open=%v up=%d", s.at, arts[0].Open, arts[0].Up, s.open, up)
		}
	}
}
