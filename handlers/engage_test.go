package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/social"
)

// postJSON posts a form asking for a JSON answer, as engage.js does.
func (c *client) postJSON(path string, form url.Values, into any) apptest.Response {
	c.a.t.Helper()
	res := c.Post(path, form, "Accept", "application/json")
	if into != nil && res.Status == http.StatusOK {
		if err := json.Unmarshal([]byte(res.Body), into); err != nil {
			c.a.t.Fatalf("POST %s: %v in %q", path, err, res.Body)
		}
	}
	return res
}

type likeJSON struct {
	Liked bool  `json:"liked"`
	Count int64 `json:"count"`
}

type followJSON struct {
	Following bool  `json:"following"`
	Followers int64 `json:"followers"`
	Changed   bool  `json:"changed"`
}

func (a *app) userID(name string) int64 {
	a.t.Helper()
	u, err := a.store.Sessions.UserByName(a.t.Context(), name)
	if err != nil {
		a.t.Fatal(err)
	}
	return u.ID
}

// publish records an article by name for feeds, as the article board will.
func (a *app) publish(name string, id int64, title string) {
	a.t.Helper()
	err := a.store.Social.RecordPost(a.t.Context(), social.FeedEntry{
		ArticleID: id, AuthorID: a.userID(name), AuthorName: name, Title: title,
		Link: "https://example.com/" + strconv.FormatInt(id, 10), PostedAt: float64(1_700_000_000 + id),
	})
	if err != nil {
		a.t.Fatal(err)
	}
}

func TestLikeItem(t *testing.T) {
	a := newApp(t, nil, nil)
	guest := a.client()
	if res := guest.Post("/items/5/like", url.Values{"dir": {"like"}}); res.Status != 303 || res.Header.Get("Location") != "/login?next=%2Fitems%2F5" {
		t.Errorf("guest like: %d to %q", res.Status, res.Header.Get("Location"))
	}
	if res := guest.postJSON("/items/5/like", nil, nil); res.Status != 401 || !strings.Contains(res.Body, "Sign in") {
		t.Errorf("guest JSON like: %d %s", res.Status, res.Body)
	}
	page := guest.Get("/items/5")
	if got := textOf(page.Body, "like-count"); got != "0" {
		t.Errorf("like count %q, want 0", got)
	}
	mustContain(t, page.Body, "Sign in to like this")

	c := a.client()
	c.Register("liker")
	res := c.Post("/items/5/like", url.Values{"dir": {"like"}, "next": {"/items/5"}})
	if res.Status != 303 || res.Header.Get("Location") != "/items/5" {
		t.Fatalf("like: %d to %q", res.Status, res.Header.Get("Location"))
	}
	page = c.Get("/items/5")
	if got := textOf(page.Body, "like-count"); got != "1" {
		t.Errorf("like count %q, want 1", got)
	}
	if got := testids(page.Body, "like-box", "data-liked"); !slices.Equal(got, []string{"true"}) {
		t.Errorf("like box data-liked %v", got)
	}
	mustContain(t, page.Body, `name="dir" value="unlike"`)
	// The count is the same for everyone; the state is each visitor's own.
	if got := testids(a.client().Get("/items/5").Body, "like-box", "data-liked"); !slices.Equal(got, []string{"false"}) {
		t.Errorf("a guest sees data-liked %v", got)
	}

	var lj likeJSON
	if res := c.postJSON("/items/5/like", url.Values{"dir": {"like"}}, &lj); res.Status != 200 || !lj.Liked || lj.Count != 1 {
		t.Errorf("like again: %d %+v", res.Status, lj)
	}
	if res := c.postJSON("/items/5/like", nil, &lj); res.Status != 200 || lj.Liked || lj.Count != 0 {
		t.Errorf("toggle: %d %+v", res.Status, lj)
	}
	for _, tc := range []struct {
		path, dir string
		status    int
	}{
		{"/items/5/like", "love", 400},
		{"/items/999999/like", "like", 404},
		{"/items/abc/like", "like", 404},
	} {
		if res := c.Post(tc.path, url.Values{"dir": {tc.dir}}); res.Status != tc.status {
			t.Errorf("POST %s dir=%s: %d, want %d", tc.path, tc.dir, res.Status, tc.status)
		}
	}
	if res := c.Post("/items/5/like", url.Values{"dir": {"like"}, "next": {"https://evil.example/"}}); res.Header.Get("Location") != "/items/5" {
		t.Errorf("open redirect: %q", res.Header.Get("Location"))
	}
	c.Post("/items/7/like", url.Values{"dir": {"like"}})
	home := c.Get("/")
	if got := listItems(t, home.Body, "most-liked"); !slices.Equal(got, []string{"5", "7"}) && !slices.Equal(got, []string{"7", "5"}) {
		t.Errorf("most liked %v", got)
	}
	if got := listItems(t, home.Body, "recently-liked"); len(got) != 2 || got[0] != "7" {
		t.Errorf("recently liked %v, want 7 first", got)
	}
	if got := textOf(c.Get("/users/liker").Body, "likes-count"); got != "2" {
		t.Errorf("user likes counter %q, want 2", got)
	}
}

func TestLikeConcurrentRequests(t *testing.T) {
	a := newApp(t, nil, nil)
	one := a.client()
	one.Register("toggler")
	const n = 50
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if res := one.postJSON("/items/3/like", url.Values{"dir": {"toggle"}}, nil); res.Status != 200 {
				t.Errorf("toggle: %d", res.Status)
			}
		})
	}
	wg.Wait()
	count, liked, err := a.store.Social.LikeState(t.Context(), 3, a.userID("toggler"))
	if err != nil || count != 0 || liked {
		t.Errorf("after %d toggles: count %d liked %v (%v)", n, count, liked, err)
	}

	clients := make([]*client, n)
	for i := range clients {
		clients[i] = a.client()
		clients[i].Register(fmt.Sprintf("fan%02d", i))
	}
	for _, c := range clients {
		wg.Go(func() {
			if res := c.postJSON("/items/4/like", url.Values{"dir": {"like"}}, nil); res.Status != 200 {
				t.Errorf("like: %d", res.Status)
			}
		})
	}
	wg.Wait()
	if got := textOf(one.Get("/items/4").Body, "like-count"); got != strconv.Itoa(n) {
		t.Errorf("%d users liked, page says %s", n, got)
	}
	most, _, _ := a.store.Social.LikeBoards(t.Context(), 1)
	if len(most) != 1 || most[0] != (social.ItemLikes{ItemID: 4, Likes: n}) {
		t.Errorf("leaderboard %+v", most)
	}
}

func TestFollowRoutes(t *testing.T) {
	a := newApp(t, nil, nil)
	alice, bob := a.client(), a.client()
	alice.Register("alice")
	bob.Register("bob")

	res := alice.Post("/users/bob/follow", url.Values{"dir": {"follow"}})
	if res.Status != 303 || res.Header.Get("Location") != "/users/bob" {
		t.Fatalf("follow: %d to %q", res.Status, res.Header.Get("Location"))
	}
	page := alice.Get("/users/bob")
	if textOf(page.Body, "flash") != "You now follow bob." || textOf(page.Body, "followers-count") != "1" || textOf(page.Body, "following-count") != "0" {
		t.Errorf("bob's page: flash %q followers %q following %q", textOf(page.Body, "flash"),
			textOf(page.Body, "followers-count"), textOf(page.Body, "following-count"))
	}
	mustContain(t, page.Body, `name="dir" value="unfollow"`)
	if got := textOf(alice.Get("/users/alice").Body, "following-count"); got != "1" {
		t.Errorf("alice follows %s, want 1", got)
	}

	var fj followJSON
	if res := alice.postJSON("/users/bob/follow", url.Values{"dir": {"follow"}}, &fj); res.Status != 200 || !fj.Following || fj.Changed || fj.Followers != 1 {
		t.Errorf("follow again: %d %+v", res.Status, fj)
	}
	if res := alice.postJSON("/users/BOB/follow", url.Values{"dir": {"unfollow"}}, &fj); res.Status != 200 || fj.Following || !fj.Changed || fj.Followers != 0 {
		t.Errorf("unfollow: %d %+v", res.Status, fj)
	}

	for _, tc := range []struct {
		name   string
		c      *client
		path   string
		dir    string
		status int
		want   string
	}{
		{"self", alice, "/users/alice/follow", "follow", 422, "cannot follow yourself"},
		{"unknown", alice, "/users/nobody_here/follow", "follow", 404, "nobody by that name"},
		{"bad name", alice, "/users/a%3Cb/follow", "follow", 404, ""},
		{"bad dir", alice, "/users/bob/follow", "befriend", 400, "follow or unfollow"},
		{"no dir", alice, "/users/bob/follow", "", 400, ""},
		{"guest", a.client(), "/users/bob/follow", "follow", 303, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.c.Post(tc.path, url.Values{"dir": {tc.dir}})
			if res.Status != tc.status {
				t.Fatalf("status %d, want %d", res.Status, tc.status)
			}
			mustContain(t, res.Body, tc.want)
		})
	}
	if res := alice.postJSON("/users/alice/follow", url.Values{"dir": {"follow"}}, nil); res.Status != 422 || !strings.Contains(res.Body, "yourself") {
		t.Errorf("self-follow JSON: %d %s", res.Status, res.Body)
	}
	c, err := a.store.Social.UserCounts(t.Context(), a.userID("alice"))
	if err != nil || c != (social.UserCounts{}) {
		t.Errorf("refused requests changed alice's counters: %+v (%v)", c, err)
	}
	if res := a.client().Get("/users/nobody_here"); res.Status != 404 {
		t.Errorf("unknown user page: %d", res.Status)
	}
}

func TestCommonFollowsOnProfile(t *testing.T) {
	a := newApp(t, nil, nil)
	cs := map[string]*client{}
	for _, n := range []string{"alice", "bob", "carol", "dave", "erin"} {
		cs[n] = a.client()
		cs[n].Register(n)
	}
	follow := func(who string, whom ...string) {
		for _, w := range whom {
			if res := cs[who].Post("/users/"+w+"/follow", url.Values{"dir": {"follow"}}); res.Status != 303 {
				t.Fatalf("%s follows %s: %d", who, w, res.Status)
			}
		}
	}
	follow("alice", "carol", "dave", "erin")
	follow("bob", "erin", "carol")
	page := cs["alice"].Get("/users/bob")
	var common []string
	for _, m := range strings.Split(page.Body, `data-user="`)[1:] {
		common = append(common, m[:strings.IndexByte(m, '"')])
	}
	// The first data-user is the profile itself.
	if !slices.Equal(common, []string{"bob", "carol", "erin"}) {
		t.Errorf("common follows %v, want [carol erin]", common[1:])
	}
	if !strings.Contains(page.Body, `data-testid="common-follows"`) {
		t.Error("no common-follows list")
	}
	if strings.Contains(a.client().Get("/users/bob").Body, `data-testid="common-follows"`) {
		t.Error("a guest has no follows in common")
	}
	if strings.Contains(cs["bob"].Get("/users/bob").Body, `data-testid="common-follows"`) {
		t.Error("nobody has follows in common with themselves")
	}
}

func TestFeedAndNotifications(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) { c.ArticlesPage = 2 })
	reader, writer, other := a.client(), a.client(), a.client()
	reader.Register("reader")
	writer.Register("writer")
	other.Register("other")

	if res := a.client().Get("/feed"); res.Status != 303 || res.Header.Get("Location") != "/login?next=%2Ffeed" {
		t.Errorf("guest feed: %d %q", res.Status, res.Header.Get("Location"))
	}
	if res := reader.Get("/feed"); res.Status != 200 || len(testids(res.Body, "article", "data-article-id")) != 0 {
		t.Errorf("empty feed: %d", res.Status)
	}
	a.publish("writer", 1, "First")
	reader.Post("/users/writer/follow", url.Values{"dir": {"follow"}})
	a.publish("writer", 2, "Second")
	a.publish("other", 3, "Not followed")
	a.publish("writer", 4, "Fourth <b>bold</b>")

	res := reader.Get("/feed")
	if got := testids(res.Body, "article", "data-article-id"); !slices.Equal(got, []string{"4", "2"}) {
		t.Errorf("feed page 1: %v, want [4 2]", got)
	}
	mustContain(t, res.Body, "Fourth &lt;b&gt;bold&lt;/b&gt;", `href="/users/writer"`, `rel="next"`, `data-score="0"`)
	// Times read as on the board: how long ago, the exact time as a title.
	if !regexp.MustCompile(`<time datetime="[^"]+" title="\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2} UTC">(just now|\d{1,3}(,\d{3})* (minute|hour|day)s? ago)</time>`).MatchString(res.Body) {
		t.Error("feed rows do not say how long ago the article was posted")
	}
	if got := testids(reader.Get("/feed?page=2").Body, "article", "data-article-id"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("feed page 2: %v, want [1]", got)
	}
	if got := testids(reader.Get("/feed?page=9").Body, "article", "data-article-id"); len(got) != 0 {
		t.Errorf("past the end: %v", got)
	}
	if res := reader.Get("/feed?page=0"); res.Status != 400 {
		t.Errorf("page 0: %d", res.Status)
	}
	if got := testids(reader.Get("/users/writer").Body, "article", "data-article-id"); !slices.Equal(got, []string{"4", "2", "1"}) {
		t.Errorf("writer's page: %v", got)
	}
	if got := textOf(reader.Get("/users/writer").Body, "posts-count"); got != "3" {
		t.Errorf("posts counter %s", got)
	}

	reader.Post("/users/writer/follow", url.Values{"dir": {"unfollow"}})
	a.publish("writer", 5, "After unfollow")
	if got := testids(reader.Get("/feed").Body, "article", "data-article-id"); slices.Contains(got, "5") {
		t.Errorf("an unfollowed writer's post reached the feed: %v", got)
	}

	// Notifications: the writer was followed once, then a vote and a
	// comment arrive.
	if got := textOf(writer.Get("/").Body, "unread-count"); got != "1" {
		t.Errorf("writer's unread %q, want 1", got)
	}
	wid, oid := a.userID("writer"), a.userID("other")
	if err := a.store.Notify.NotifyVote(t.Context(), wid, oid, "other", 4, "Fourth", "up"); err != nil {
		t.Fatal(err)
	}
	if err := a.store.Notify.NotifyComment(t.Context(), wid, oid, "other", 4, "Fourth"); err != nil {
		t.Fatal(err)
	}
	if got := textOf(writer.Get("/items/2").Body, "unread-count"); got != "3" {
		t.Errorf("unread on an item page %q, want 3", got)
	}
	res = writer.Get("/notifications")
	if got := testids(res.Body, "notification", "data-kind"); !slices.Equal(got, []string{"comment", "vote", "follower"}) {
		t.Errorf("notifications %v", got)
	}
	if got := testids(res.Body, "notification", "data-unread"); !slices.Equal(got, []string{"true", "true", "true"}) {
		t.Errorf("unread marks %v", got)
	}
	mustContain(t, res.Body, "started following you", "commented on", "voted up")
	// Showing changes nothing: a GET (or a cross-site link) never marks read.
	if got := textOf(writer.Get("/").Body, "unread-count"); got != "3" {
		t.Errorf("after showing: %q, want 3", got)
	}
	// The button marks read what the page showed; a note that arrives in
	// between stays new.
	form := formFields(res.Body, "mark-read")
	if form.Get("vote") != "1" || form.Get("comment") != "1" || form.Get("follower") != "1" {
		t.Fatalf("mark-read form %v", form)
	}
	if err := a.store.Notify.NotifyFollower(t.Context(), wid, "someone"); err != nil {
		t.Fatal(err)
	}
	if res := writer.crossPost("/notifications/read", form); res.Status != 403 {
		t.Errorf("cross-site mark read: %d", res.Status)
	}
	if res := writer.Post("/notifications/read", url.Values{"vote": {"-1"}}); res.Status != 400 {
		t.Errorf("negative count: %d", res.Status)
	}
	if res := writer.Post("/notifications/read", form); res.Status != 303 || res.Header.Get("Location") != "/notifications" {
		t.Errorf("mark read: %d %q", res.Status, res.Header.Get("Location"))
	}
	if got := textOf(writer.Get("/").Body, "unread-count"); got != "1" {
		t.Errorf("after marking read: %q, want 1 (the late follower)", got)
	}
	if got := testids(writer.Get("/notifications").Body, "notification", "data-unread"); !slices.Equal(got, []string{"true", "false", "false", "false"}) {
		t.Errorf("read notifications still new: %v", got)
	}
	if res := a.client().Post("/notifications/read", form); res.Status != 303 || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Errorf("guest mark read: %d", res.Status)
	}
	if res := a.client().Get("/notifications"); res.Status != 303 {
		t.Errorf("guest notifications: %d", res.Status)
	}
}

// formFields reads the hidden inputs of the form with data-testid=id.
func formFields(body, id string) url.Values {
	i := strings.Index(body, `data-testid="`+id+`"`)
	if i < 0 {
		return nil
	}
	end := strings.Index(body[i:], "</form>")
	if end < 0 {
		return nil
	}
	out := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(body[i:i+end], -1) {
		out.Set(m[1], m[2])
	}
	return out
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)"`)

// TestLikeBoxTrustsTheSessionNotTheCookie: an item page reads the like
// box for the user the `user` cookie claims (in the same round trip as the
// session), but shows that user's like only once the session has
// confirmed the claim. A signed-out shopper's old cookies, replayed, get
// the guest's box: not "liked", a link to sign in.
func TestLikeBoxTrustsTheSessionNotTheCookie(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("private_liker")
	if res := c.Post("/items/5/like", url.Values{"dir": {"like"}}); res.Status != 303 {
		t.Fatalf("like: %d", res.Status)
	}
	page := c.Get("/items/5")
	if got := testids(page.Body, "like-box", "data-liked"); !slices.Equal(got, []string{"true"}) {
		t.Fatalf("the liker's own box: data-liked %v", got)
	}
	sid, user := c.Cookie("sid"), c.Cookie("user")
	if sid == "" || user == "" {
		t.Fatalf("cookies sid=%q user=%q", sid, user)
	}
	if res := c.Post("/logout", nil); res.Status != 303 {
		t.Fatalf("logout: %d", res.Status)
	}
	for i := range 3 { // a miss, then the cached page: both render the box per visitor
		replay := a.client()
		replay.SetCookie("sid", sid)
		replay.SetCookie("user", user)
		page := replay.Get("/items/5")
		if page.Status != 200 {
			t.Fatalf("replay %d: %d", i, page.Status)
		}
		if got := testids(page.Body, "like-box", "data-liked"); !slices.Equal(got, []string{"false"}) {
			t.Errorf("replay %d: the signed-out cookies see data-liked %v, want [false]", i, got)
		}
		mustContain(t, page.Body, "Sign in to like this")
		if strings.Contains(page.Body, "private_liker") {
			t.Errorf("replay %d: the page names the signed-out user", i)
		}
	}
}
