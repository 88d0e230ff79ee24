package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/board"
	"storefront/store/keys"
	"storefront/store/ratelimit"
	"storefront/store/storetest"
	"storefront/wiring"
)

// voteAnswer is the JSON answer to a vote.
type voteAnswer struct {
	ID     int64   `json:"id"`
	Score  float64 `json:"score"`
	Up     int64   `json:"up"`
	Down   int64   `json:"down"`
	MyVote string  `json:"my_vote"`
	Open   bool    `json:"open"`
}

// postArticle posts through the form and returns the new article's id.
func (c *client) postArticle(title, link string, groups ...string) int64 {
	c.a.t.Helper()
	res := c.Post("/articles", url.Values{"title": {title}, "link": {link}, "groups": groups})
	loc := res.Header.Get("Location")
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/articles/") {
		c.a.t.Fatalf("post article: %d %s", res.Status, loc)
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(loc, "/articles/"), 10, 64)
	if err != nil {
		c.a.t.Fatal(err)
	}
	return id
}

// vote votes with Accept: application/json and decodes the answer.
func (c *client) vote(id int64, dir string) (int, voteAnswer) {
	c.a.t.Helper()
	res := c.Post(fmt.Sprintf("/articles/%d/vote", id), url.Values{"dir": {dir}}, "Accept", "application/json")
	var v voteAnswer
	if res.Status == http.StatusOK {
		if err := json.Unmarshal([]byte(res.Body), &v); err != nil {
			c.a.t.Fatalf("vote answer %q: %v", res.Body, err)
		}
	}
	return res.Status, v
}

// articleAttrs reads the article hooks of the first `article` on a page.
func articleAttrs(t *testing.T, body string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, a := range []string{"data-article-id", "data-score", "data-up", "data-down", "data-my-vote"} {
		v := testids(body, "article", a)
		if len(v) == 0 {
			t.Fatalf("no article on the page")
		}
		out[a] = v[0]
	}
	return out
}

func scoreOf(t *testing.T, st *wiring.Services, id int64) float64 {
	t.Helper()
	v, err := st.Redis().ZScore(t.Context(), keys.ArticleScores, strconv.FormatInt(id, 10)).Result()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestArticleVotingOverHTTP runs a voting scenario through the router:
// the poster's vote counts, repeats change nothing, a switch moves 864,
// none takes a vote back; JSON answers and pages agree with Redis.
func TestArticleVotingOverHTTP(t *testing.T) {
	a := newApp(t, nil, nil)
	alice, bob, carol := a.client(), a.client(), a.client()
	alice.Register("alice")
	bob.Register("bob")
	carol.Register("carol")
	id := alice.postArticle("Sorted sets", "https://redis.io/docs/sorted-sets", "making")
	page := alice.Get(fmt.Sprintf("/articles/%d", id))
	if page.Status != 200 {
		t.Fatalf("article page: %d", page.Status)
	}
	attrs := articleAttrs(t, page.Body)
	base, _ := strconv.ParseFloat(attrs["data-score"], 64)
	if attrs["data-up"] != "1" || attrs["data-my-vote"] != "up" || attrs["data-article-id"] != strconv.FormatInt(id, 10) {
		t.Fatalf("new article: %v", attrs)
	}
	posted := base - 432
	steps := []struct {
		name     string
		who      *client
		dir      string
		up, down int64
		mine     string
		delta    float64 // score minus post time
	}{
		{"another reader's up vote", bob, "up", 2, 0, "up", 864},
		{"the same reader again", bob, "up", 2, 0, "up", 864},
		{"the poster again", alice, "up", 2, 0, "up", 864},
		{"down", carol, "down", 2, 1, "down", 432},
		{"down again", carol, "down", 2, 1, "down", 432},
		{"up to down", bob, "down", 1, 2, "down", -432},
		{"none restores", bob, "none", 1, 1, "none", 0},
		{"carol takes hers back", carol, "none", 1, 0, "none", 432},
	}
	for _, s := range steps {
		status, v := s.who.vote(id, s.dir)
		if status != 200 || v.Up != s.up || v.Down != s.down || v.MyVote != s.mine || !v.Open || v.Score != posted+s.delta {
			t.Fatalf("%s: %d %+v, want up=%d down=%d mine=%s score=time%+v", s.name, status, v, s.up, s.down, s.mine, s.delta)
		}
		if got := scoreOf(t, a.store, id); got != v.Score {
			t.Fatalf("%s: score: holds %v, answer said %v", s.name, got, v.Score)
		}
	}
	// The page shows each reader's own vote.
	bob.vote(id, "down")
	for who, want := range map[*client]string{alice: "up", bob: "down", carol: "none", a.client(): "none"} {
		if got := articleAttrs(t, who.Get("/articles").Body)["data-my-vote"]; got != want {
			t.Errorf("listing shows my vote %q, want %q", got, want)
		}
	}
}

// TestVoteWithoutJavaScript: a plain form post redirects (303) back to
// the page it came from (next, else a same-site Referer, else the article).
func TestVoteWithoutJavaScript(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("alice")
	id := c.postArticle("x", "https://example.com/")
	path := fmt.Sprintf("/articles/%d/vote", id)
	tests := []struct {
		name    string
		form    url.Values
		referer string
		want    string
	}{
		{"next field", url.Values{"dir": {"down"}, "next": {"/articles?sort=new&page=2"}}, "", "/articles?sort=new&page=2#article-" + itoa(id)},
		{"referer", url.Values{"dir": {"up"}}, a.srv.URL + "/groups/care?sort=new", "/groups/care?sort=new#article-" + itoa(id)},
		{"foreign referer", url.Values{"dir": {"none"}}, "https://evil.example/x", "/articles/" + itoa(id) + "#article-" + itoa(id)},
		{"open redirect", url.Values{"dir": {"up"}, "next": {"//evil.example/"}}, "", "/articles/" + itoa(id) + "#article-" + itoa(id)},
	}
	for _, tc := range tests {
		h := []string{}
		if tc.referer != "" {
			h = []string{"Referer", tc.referer}
		}
		res := c.Post(path, tc.form, h...)
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != tc.want {
			t.Errorf("%s: %d to %q, want 303 to %q", tc.name, res.Status, res.Header.Get("Location"), tc.want)
		}
	}
	if got := articleAttrs(t, c.Get("/articles/"+itoa(id)).Body); got["data-my-vote"] != "up" || got["data-up"] != "1" {
		t.Errorf("after the votes: %v", got)
	}
}

// TestVoteBadRequests: bad direction 400, missing article 404, guests
// sent to sign in (401 for JSON); none of them changes anything.
func TestVoteBadRequests(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("alice")
	id := c.postArticle("x", "https://example.com/")
	before := scoreOf(t, a.store, id)
	guest := a.client()
	tests := []struct {
		name   string
		who    *client
		path   string
		dir    string
		json   bool
		status int
		loc    string
	}{
		{"bad dir", c, "/articles/" + itoa(id) + "/vote", "sideways", false, 400, ""},
		{"empty dir", c, "/articles/" + itoa(id) + "/vote", "", true, 400, ""},
		{"missing article", c, "/articles/99999/vote", "up", true, 404, ""},
		{"missing article form", c, "/articles/99999/vote", "up", false, 404, ""},
		{"not a number", c, "/articles/abc/vote", "up", false, 404, ""},
		{"guest", guest, "/articles/" + itoa(id) + "/vote", "down", false, 303, "/login?next=%2Farticles%2F" + itoa(id)},
		{"guest json", guest, "/articles/" + itoa(id) + "/vote", "down", true, 401, ""},
	}
	for _, tc := range tests {
		h := []string{}
		if tc.json {
			h = []string{"Accept", "application/json"}
		}
		res := tc.who.Post(tc.path, url.Values{"dir": {tc.dir}}, h...)
		if res.Status != tc.status || (tc.loc != "" && res.Header.Get("Location") != tc.loc) {
			t.Errorf("%s: %d %q, want %d %q", tc.name, res.Status, res.Header.Get("Location"), tc.status, tc.loc)
		}
		if tc.json && !strings.Contains(res.Body, `"error"`) {
			t.Errorf("%s: JSON answer without an error: %s", tc.name, res.Body)
		}
	}
	if got := scoreOf(t, a.store, id); got != before {
		t.Errorf("score moved from %v to %v", before, got)
	}
}

// TestVoteWindowCloses: with VOTE_WINDOW=2s, once the window has closed votes
// change nothing and the page says voting has closed.
func TestVoteWindowCloses(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.VoteWindow = 2 * time.Second }, nil)
	alice, bob := a.client(), a.client()
	alice.Register("alice")
	bob.Register("bob")
	id := alice.postArticle("x", "https://example.com/")
	if body := alice.Get("/articles/" + itoa(id)).Body; strings.Contains(body, `data-testid="vote-closed"`) {
		t.Fatal("a new article shows as closed")
	}
	before := scoreOf(t, a.store, id)
	// Wait for the window to close as the page reports it (polling: a
	// busy machine makes this slower, never red).
	apptest.Eventually(t, "the article shows voting closed", func() bool {
		return strings.Contains(alice.Get("/articles/"+itoa(id)).Body, `data-testid="vote-closed"`)
	})
	status, v := bob.vote(id, "up")
	if status != 200 || v.Open || v.Up != 1 || v.MyVote != "none" || v.Score != before {
		t.Fatalf("vote after the window: %d %+v", status, v)
	}
	res := bob.Post("/articles/"+itoa(id)+"/vote", url.Values{"dir": {"down"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("form vote after the window: %d", res.Status)
	}
	page := bob.Get("/articles/" + itoa(id))
	mustContain(t, page.Body, `data-testid="vote-closed"`, "Voting on this article has closed", "disabled")
	if got := scoreOf(t, a.store, id); got != before {
		t.Errorf("score moved after the window")
	}
	if n := len(testids(bob.Get("/articles").Body, "vote-closed", "")); n != 1 {
		t.Errorf("listing shows %d closed marks, want 1", n)
	}
}

// TestConcurrentVotesOverHTTP: 100 simultaneous up votes by one reader
// count once; by 100 readers, exactly 100 x VOTE_SCORE.
func TestConcurrentVotesOverHTTP(t *testing.T) {
	a := newApp(t, nil, nil)
	poster := a.client()
	poster.Register("poster")
	id := poster.postArticle("hot", "https://example.com/hot")
	before := scoreOf(t, a.store, id)
	one := a.client()
	one.Register("one")
	hammer := func(voter func(i int) *client) {
		var wg sync.WaitGroup
		for i := range 100 {
			wg.Go(func() {
				req, _ := http.NewRequest("POST", a.srv.URL+"/articles/"+itoa(id)+"/vote", strings.NewReader("dir=up"))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Accept", "application/json")
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				res, err := voter(i).HTTP().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				res.Body.Close()
				if res.StatusCode != 200 {
					t.Errorf("vote: %d", res.StatusCode)
				}
			})
		}
		wg.Wait()
	}
	hammer(func(int) *client { return one })
	if got := scoreOf(t, a.store, id) - before; got != 432 {
		t.Fatalf("100 votes by one reader moved the score by %v, want 432", got)
	}
	one.vote(id, "none")
	voters := make([]*client, 100)
	for i := range voters {
		voters[i] = a.client()
		voters[i].Register(fmt.Sprintf("voter%d", i))
	}
	hammer(func(i int) *client { return voters[i] })
	if got := scoreOf(t, a.store, id) - before; got != 100*432 {
		t.Fatalf("100 readers moved the score by %v, want %d", got, 100*432)
	}
	if up := a.store.Redis().SCard(t.Context(), keys.UpVoters(id)).Val(); up != 101 {
		t.Errorf("%d up voters, want 101", up)
	}
}

// TestPostArticleInput: the form's rules, hostile input, and guests.
func TestPostArticleInput(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("alice")
	tests := []struct {
		name, title, link string
		groups            []string
		msg               string
	}{
		{"empty title", "  ", "https://example.com/", nil, "1 to 200 characters"},
		{"long title", strings.Repeat("é", 201), "https://example.com/", nil, "1 to 200 characters"},
		{"javascript link", "x", "javascript:alert(1)", nil, "Only http:// and https:// links"},
		{"javascript upper", "x", "JavaScript:alert(document.cookie)", nil, "Only http:// and https:// links"},
		{"data link", "x", "data:text/html,<script>alert(1)</script>", nil, "Only http:// and https:// links"},
		{"ftp link", "x", "ftp://example.com/file", nil, "Only http:// and https:// links"},
		{"relative link", "x", "/articles", nil, "Only http:// and https:// links"},
		{"no host", "x", "https:///path", nil, "full web address"},
		{"credentials", "x", "https://user:pw@example.com/", nil, "user name or password"},
		{"empty link", "x", "", nil, "web address"},
		{"spaces", "x", "https://exa mple.com/", nil, "not valid"},
		{"unknown group", "x", "https://example.com/", []string{"care", "<b>evil</b>"}, "Pick groups from the list"},
	}
	for _, tc := range tests {
		res := c.Post("/articles", url.Values{"title": {tc.title}, "link": {tc.link}, "groups": tc.groups})
		if res.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422", tc.name, res.Status)
			continue
		}
		if errs := testids(res.Body, "field-error", ""); len(errs) == 0 || !strings.Contains(res.Body, tc.msg) {
			t.Errorf("%s: no %q message", tc.name, tc.msg)
		}
		if strings.Contains(res.Body, "<b>evil</b>") || strings.Contains(res.Body, "<script>alert") {
			t.Errorf("%s: input echoed unescaped", tc.name)
		}
	}
	if n := storetest.Must(a.store.Redis().Exists(t.Context(), keys.ArticleSeq).Result())(t); n != 0 {
		t.Fatal("a refused post stored something")
	}
	// A script in a title is shown as text, here and in listings.
	id := c.postArticle(`<script>alert("t")</script>`, "HTTPS://Example.com/a?b=<c>", "care", "care", "kitchen")
	for _, path := range []string{"/articles/" + itoa(id), "/articles", "/groups/care", "/"} {
		body := c.Get(path).Body
		if strings.Contains(body, `<script>alert`) || !strings.Contains(body, "&lt;script&gt;alert(") {
			t.Errorf("%s: title not escaped", path)
		}
		mustContain(t, body, `rel="noopener noreferrer nofollow"`, `data-testid="article-link">example.com <span aria-hidden="true">↗</span><span class="visually-hidden">, external link</span>`, `href="/users/alice"`)
	}
	if g := a.store.Redis().SMembers(t.Context(), keys.Group("care")).Val(); len(g) != 1 {
		t.Errorf("group:go holds %v", g)
	}
	// Guests are sent to sign in and nothing is stored.
	guest := a.client()
	for _, res := range []apptest.Response{guest.Get("/articles/new"), guest.Post("/articles", url.Values{"title": {"x"}, "link": {"https://x.org"}})} {
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/login?next=%2Farticles%2Fnew" {
			t.Errorf("guest: %d %s", res.Status, res.Header.Get("Location"))
		}
	}
	if got := a.store.Redis().Get(t.Context(), keys.ArticleSeq).Val(); got != itoa(id) {
		t.Errorf("article counter %s", got)
	}
	if res := c.Get("/articles/new"); res.Status != 200 || !strings.Contains(res.Body, `name="groups" value="offtopic"`) {
		t.Errorf("form: %d", res.Status)
	}
}

// TestPostRate: POST_RATE limits posts per reader.
func TestPostRate(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) { c.Rates.Post = ratelimit.Rate{{N: 1, Per: time.Hour}} })
	c := a.client()
	c.Register("alice")
	c.postArticle("one", "https://example.com/1")
	res := c.Post("/articles", url.Values{"title": {"two"}, "link": {"https://example.com/2"}})
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("second post: %d", res.Status)
	}
}

func TestArticleListings(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("alice")
	u, err := a.store.Sessions.UserByName(t.Context(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range 30 {
		group := []string{"care", "kitchen"}[i%2]
		art, err := a.store.Board.PostArticle(t.Context(), board.NewArticle{Title: fmt.Sprintf("Article %d", i), Link: "https://example.com/" + itoa(int64(i)), Groups: []string{group}, PosterID: u.ID, Poster: u.Username})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, art.ID)
	}
	tests := []struct {
		path   string
		status int
		rows   int
		first  int64
		want   []string
	}{
		{"/articles", 200, 25, ids[29], []string{`rel="next"`, "Page 1 of 2"}},
		{"/articles?page=2", 200, 5, ids[4], []string{`rel="prev"`, "Page 2 of 2"}},
		{"/articles?sort=new&page=2", 200, 5, ids[4], []string{`href="/articles?sort=new" rel="prev"`}},
		{"/articles?page=3", 200, 0, 0, []string{"No articles here"}},
		{"/articles?page=99999999999", 200, 0, 0, nil},
		{"/articles?page=0", 400, 0, 0, []string{"page number"}},
		{"/articles?page=-1", 400, 0, 0, []string{"page number"}},
		{"/articles?page=abc", 400, 0, 0, []string{"page number"}},
		{"/articles?sort=best", 400, 0, 0, []string{"top or new"}},
		{"/groups/care", 200, 15, ids[28], nil},
		{"/groups/kitchen?sort=new", 200, 15, ids[29], nil},
		{"/groups/care?page=0", 400, 0, 0, nil},
		{"/groups/outdoors", 200, 0, 0, nil},
		{"/groups/nope", 404, 0, 0, []string{"no group"}},
		{"/groups/%3Cscript%3E", 404, 0, 0, nil},
	}
	for _, tc := range tests {
		res := c.Get(tc.path)
		if res.Status != tc.status {
			t.Errorf("%s: status %d, want %d", tc.path, res.Status, tc.status)
			continue
		}
		mustContain(t, res.Body, tc.want...)
		rows := testids(res.Body, "article", "data-article-id")
		if tc.status == 200 && len(rows) != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.path, len(rows), tc.rows)
		}
		if tc.first != 0 && (len(rows) == 0 || rows[0] != itoa(tc.first)) {
			t.Errorf("%s: first row %v, want %d", tc.path, rows, tc.first)
		}
	}
	// A vote lifts the oldest article to the top of the board and the home page.
	c.Register("bob")
	c.vote(ids[0], "up")
	if rows := testids(c.Get("/articles?sort=top").Body, "article", "data-article-id"); rows[0] != itoa(ids[0]) {
		t.Errorf("top: first %s, want %d", rows[0], ids[0])
	}
	home := c.Get("/")
	mustContain(t, home.Body, "Top articles")
	if rows := testids(home.Body, "article", "data-my-vote"); len(rows) != 5 || rows[0] != "up" {
		t.Errorf("home: %v", rows)
	}
}

// TestGroupListingCatchesUp: a group's cached listing shows a new article
// once GROUP_CACHE_TTL has passed.
func TestGroupListingCatchesUp(t *testing.T) {
	a := newApp(t, func(o *wiring.Options) { o.GroupCacheTTL = time.Second }, nil)
	c := a.client()
	c.Register("alice")
	first := c.postArticle("one", "https://example.com/1", "making")
	if rows := testids(c.Get("/groups/making?sort=new").Body, "article", "data-article-id"); len(rows) != 1 {
		t.Fatalf("redis: %v", rows)
	}
	second := c.postArticle("two", "https://example.com/2", "making")
	c.postArticle("three", "https://example.com/3", "kitchen")
	storetest.Wait(t, 1100*time.Millisecond)
	rows := testids(c.Get("/groups/making?sort=new").Body, "article", "data-article-id")
	if len(rows) != 2 || rows[0] != itoa(second) || rows[1] != itoa(first) {
		t.Fatalf("after GROUP_CACHE_TTL: %v, want [%d %d]", rows, second, first)
	}
}

// TestComments: escaped, limited to COMMENT_RATE per reader (429 with
// Retry-After, nothing stored), and open again after the window.
func TestComments(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) { c.Rates.Comment = ratelimit.Rate{{N: 2, Per: time.Minute}} })
	c := a.client()
	c.Register("alice")
	id := c.postArticle("x", "https://example.com/")
	path := "/articles/" + itoa(id) + "/comments"
	comment := func(body string) apptest.Response { return c.Post(path, url.Values{"body": {body}}) }
	for i, body := range []string{"<script>alert(1)</script>", "second\nline"} {
		res := comment(body)
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != fmt.Sprintf("/articles/%d#comment-%d", id, i+1) {
			t.Fatalf("comment %d: %d %s", i+1, res.Status, res.Header.Get("Location"))
		}
	}
	res := comment("third <i>as typed</i>\nwith a second line")
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(res.Body, "commenting faster") {
		t.Fatalf("third comment: %d retry-after %q", res.Status, res.Header.Get("Retry-After"))
	}
	// The article again, the comment box holding the text as typed, the
	// message by the box, not a bare error page.
	if got := textOf(res.Body, "field-error"); !strings.Contains(got, "commenting faster") || !strings.Contains(got, "Try again in") {
		t.Errorf("message by the box: %q", got)
	}
	mustContain(t, res.Body, ">third &lt;i&gt;as typed&lt;/i&gt;\nwith a second line</textarea>", `data-testid="article"`, "&lt;script&gt;alert(1)")
	if res.Header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("Cache-Control %q", res.Header.Get("Cache-Control"))
	}
	if n := a.store.Redis().LLen(t.Context(), keys.Comments(id)).Val(); n != 2 {
		t.Fatalf("%d comments stored, want 2", n)
	}
	page := c.Get("/articles/" + itoa(id))
	if n := len(testids(page.Body, "comment", "")); n != 2 {
		t.Errorf("%d comments shown", n)
	}
	mustContain(t, page.Body, "&lt;script&gt;alert(1)&lt;/script&gt;", "2 comments", "alice")
	if strings.Contains(page.Body, "<script>alert(1)") {
		t.Error("comment not escaped")
	}
	later := time.Now().Add(61 * time.Second)
	a.store.SetClock(func() time.Time { return later })
	if res := comment("fourth"); res.Status != http.StatusSeeOther {
		t.Fatalf("after the window: %d", res.Status)
	}
	// Bad comments: 422 with the text kept, guests sent to sign in, 404.
	for _, body := range []string{"   ", strings.Repeat("x", 2001)} {
		res := comment(body)
		if res.Status != http.StatusUnprocessableEntity || len(testids(res.Body, "field-error", "")) == 0 {
			t.Errorf("bad comment of %d chars: %d", len(body), res.Status)
		}
	}
	if res := a.client().Post(path, url.Values{"body": {"hi"}}); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login?next=") {
		t.Errorf("guest comment: %d %s", res.Status, res.Header.Get("Location"))
	}
	if res := c.Post("/articles/99999/comments", url.Values{"body": {"hi"}}); res.Status != 404 {
		t.Errorf("comment on a missing article: %d", res.Status)
	}
	if res := c.Get("/articles/99999"); res.Status != 404 {
		t.Errorf("missing article page: %d", res.Status)
	}
}

func TestVoteMetrics(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("alice")
	id := c.postArticle("x", "https://example.com/")
	c.vote(id, "down")
	c.vote(id, "none")
	body := a.scrape(t)
	mustContain(t, body, `storefront_votes_total{dir="down"} 1`, `storefront_votes_total{dir="none"} 1`)
}

// TestArticleJSONAnswers: posting and commenting answer JSON to JSON
// clients, errors included.
func TestArticleJSONAnswers(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("alice")
	js := []string{"Accept", "application/json"}
	res := c.Post("/articles", url.Values{"title": {"x"}, "link": {"data:text/html,hi"}}, js...)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `"link":"Only http://`) {
		t.Fatalf("bad post: %d %s", res.Status, res.Body)
	}
	res = c.Post("/articles", url.Values{"title": {"x"}, "link": {"https://example.com/"}}, js...)
	var posted struct {
		ID  int64  `json:"id"`
		URL string `json:"url"`
	}
	if res.Status != http.StatusCreated || json.Unmarshal([]byte(res.Body), &posted) != nil || posted.URL != "/articles/"+itoa(posted.ID) {
		t.Fatalf("post: %d %s", res.Status, res.Body)
	}
	res = c.Post("/articles/"+itoa(posted.ID)+"/comments", url.Values{"body": {"  "}}, js...)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `"error"`) {
		t.Fatalf("empty comment: %d %s", res.Status, res.Body)
	}
	res = c.Post("/articles/"+itoa(posted.ID)+"/comments", url.Values{"body": {"<i>hi</i>"}}, js...)
	if res.Status != http.StatusCreated || !strings.Contains(res.Body, `"id":1`) {
		t.Fatalf("comment: %d %s", res.Status, res.Body)
	}
}
