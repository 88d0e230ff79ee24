package handlers_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/store/keys"
)

// postText posts an article through the form with a text (and the link,
// if any) and returns its id.
func (c *client) postText(title, link, body string, groups ...string) int64 {
	c.a.t.Helper()
	res := c.Post("/articles", url.Values{"title": {title}, "link": {link}, "body": {body}, "groups": groups})
	loc := res.Header.Get("Location")
	id, err := strconv.ParseInt(strings.TrimPrefix(loc, "/articles/"), 10, 64)
	if res.Status != http.StatusSeeOther || err != nil {
		c.a.t.Fatalf("post a text: %d %s %s", res.Status, loc, textOf(res.Body, "field-error"))
	}
	return id
}

// articleCount is how many articles the board lists.
func (a *app) articleCount() int64 {
	a.t.Helper()
	return a.store.Redis().ZCard(a.t.Context(), keys.ArticleScores).Val()
}

// TestTextPosts: an article may be a text without a link, a link without
// a text, or both; its page shows the text as paragraphs with its web
// addresses as links marked as the readers' own, and any markup as text;
// listings show no external link for a text post. Bad words are a 422
// with the words kept and a message by the field, and post nothing.
func TestTextPosts(t *testing.T) {
	a := newApp(t, nil, nil)
	c := a.client()
	c.Register("writer")
	text := "How I re-waxed my jacket <script>alert(1)</script>\n\nThe wax is at https://example.com/wax, javascript:alert(2) is not a link."
	id := c.postText("Re-waxing canvas", "", text, "care")
	page := c.MustGet("/articles/"+itoa(id), http.StatusOK).Body
	body := page[strings.Index(page, `data-testid="article-body"`):]
	body = body[:strings.Index(body, "</div>")]
	mustContain(t, body, "<p>How I re-waxed my jacket &lt;script&gt;alert(1)&lt;/script&gt;</p>",
		`<a href="https://example.com/wax" rel="nofollow ugc noopener">https://example.com/wax</a>, javascript:alert(2) is not a link.</p>`)
	if strings.Contains(page, "<script>alert") || strings.Count(body, "<a ") != 1 {
		t.Errorf("the text is not escaped, or has other links: %s", body)
	}
	if n := len(testids(page, "article-link", "href")); n != 0 {
		t.Errorf("a text post shows %d external links", n)
	}
	if ids := testids(c.Get("/articles").Body, "article", "data-article-id"); len(ids) != 1 || ids[0] != itoa(id) {
		t.Errorf("the board lists %v", ids)
	}
	both := c.postText("Wax and a link", "https://example.com/both", "And some words.")
	page = c.Get("/articles/" + itoa(both)).Body
	if len(testids(page, "article-link", "href")) != 1 || !strings.Contains(page, `data-testid="article-body"`) {
		t.Error("an article with a link and a text does not show both")
	}
	linkOnly := c.postArticle("Only a link", "https://example.com/only")
	if strings.Contains(c.Get("/articles/"+itoa(linkOnly)).Body, `data-testid="article-body"`) {
		t.Error("an article without a text shows a text")
	}

	before := a.articleCount()
	for _, tc := range []struct {
		name, title, link, body, field, msg string
	}{
		{"neither link nor text", "Empty", "", "  \n ", "body", "Give a link, write a text, or both."},
		{"a text too long", "Long", "", strings.Repeat("é", 10_001), "body", "at most 10,000 characters"},
		{"control characters", "Bell", "", "ding\x07", "body", "characters we cannot show"},
		{"a bad link with a text", "Bad link", "javascript:alert(1)", "words", "link", "Only http:// and https://"},
		{"a title too long", strings.Repeat("t", 201), "", "words", "title", "1 to 200 characters"},
	} {
		res := c.Post("/articles", url.Values{"title": {tc.title}, "link": {tc.link}, "body": {tc.body}})
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, tc.msg) {
			t.Errorf("%s: %d, want 422 saying %q", tc.name, res.Status, tc.msg)
		}
		if tc.field == "body" && tc.name != "neither link nor text" && !strings.Contains(res.Body, `id="body-error"`) {
			t.Errorf("%s: the message is not by the text box", tc.name)
		}
		js := c.Post("/articles", url.Values{"title": {tc.title}, "link": {tc.link}, "body": {tc.body}}, "Accept", "application/json")
		if js.Status != http.StatusUnprocessableEntity || !strings.Contains(js.Body, `"`+tc.field+`"`) {
			t.Errorf("%s as JSON: %d %s", tc.name, js.Status, js.Body)
		}
	}
	if n := a.articleCount(); n != before {
		t.Errorf("refused posts changed the board: %d articles, had %d", n, before)
	}
	// 10,000 characters is allowed.
	c.postText("Long but fine", "", strings.Repeat("é", 10_000))
}

// TestAuthorEditsArticle: the poster edits title, link and text for 15
// minutes (the page then says "edited"), and the edit controls and
// routes are theirs alone; afterwards the controls are gone and the
// routes say why; an article a moderator hid stays as it is.
func TestAuthorEditsArticle(t *testing.T) {
	a := newApp(t, nil, nil)
	author, other, admin, guest := a.client(), a.client(), a.client(), a.client()
	author.Register("author")
	other.Register("other")
	admin.signInAdmin()
	id := author.postArticle("Cast iron care", "https://example.com/iron", "kitchen")
	path := "/articles/" + itoa(id)
	page := author.MustGet(path, http.StatusOK).Body
	if textOf(page, "edit-link") != "Edit or delete" || !strings.Contains(page, "for 15 minutes more") {
		t.Fatalf("the poster sees no edit link: %q", textOf(page, "owner-tools"))
	}
	for _, c := range []*client{other, admin, guest} {
		if strings.Contains(c.Get(path).Body, `data-testid="edit-link"`) {
			t.Fatal("someone else sees the edit link")
		}
	}
	form := author.MustGet(path+"/edit", http.StatusOK).Body
	mustContain(t, form, `data-testid="edit-form"`, `data-testid="delete-form"`, `value="Cast iron care"`)

	edit := url.Values{"title": {"Cast iron care after ten years"}, "link": {""}, "body": {"Oil, heat, repeat."}}
	for who, c := range map[string]*client{"another reader": other, "the admin": admin} {
		if res := c.Get(path + "/edit"); res.Status != http.StatusForbidden {
			t.Errorf("%s opens the edit form: %d", who, res.Status)
		}
		if res := c.Post(path+"/edit", edit); res.Status != http.StatusForbidden || !strings.Contains(res.Body, "Only its author") {
			t.Errorf("%s edits: %d", who, res.Status)
		}
	}
	if res := guest.Post(path+"/edit", edit); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login?next=") {
		t.Errorf("a guest's edit: %d %s", res.Status, res.Header.Get("Location"))
	}
	if title := textOf(other.Get(path).Body, "edited"); title != "" {
		t.Fatal("refused edits marked the article edited")
	}
	bad := author.Post(path+"/edit", url.Values{"title": {""}, "link": {"ftp://x"}, "body": {"kept words"}})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "kept words") || !strings.Contains(bad.Body, "1 to 200") {
		t.Errorf("a bad edit: %d", bad.Status)
	}
	author.MustPost(path+"/edit", edit, http.StatusSeeOther)
	page = other.Get(path).Body
	if textOf(page, "edited") != "edited" || !strings.Contains(page, "<h1 class=\"article-title\">Cast iron care after ten years</h1>") ||
		!strings.Contains(page, "<p>Oil, heat, repeat.</p>") || len(testids(page, "article-link", "href")) != 0 {
		t.Fatal("the edit does not show")
	}
	if !strings.Contains(other.Get("/articles").Body, `data-testid="edited"`) {
		t.Error("the listing does not say the article was edited")
	}
	if res := author.Post(path+"/edit", url.Values{"title": {"Via JSON"}, "body": {"x"}}, "Accept", "application/json"); res.Status != http.StatusOK || !strings.Contains(res.Body, `"message"`) {
		t.Errorf("a JSON edit: %d %s", res.Status, res.Body)
	}

	a.shiftClock(15 * time.Minute)
	page = author.Get(path).Body
	if strings.Contains(page, `data-testid="edit-link"`) || strings.Contains(page, `data-testid="owner-tools"`) {
		t.Error("after 15 minutes the poster still sees the edit link")
	}
	for name, res := range map[string]int{
		"the form":   author.Get(path + "/edit").Status,
		"an edit":    author.Post(path+"/edit", edit).Status,
		"the delete": author.Post(path+"/delete", nil).Status,
	} {
		if res != http.StatusForbidden {
			t.Errorf("%s after 15 minutes: %d, want 403", name, res)
		}
	}
	if res := author.Post(path+"/edit", edit); !strings.Contains(res.Body, "only in the first 15 minutes") {
		t.Error("a late edit does not say why it is refused")
	}

	a.shiftClock(-15 * time.Minute)
	hidden := author.postArticle("To hide", "https://example.com/hide")
	admin.MustPost("/admin/articles/"+itoa(hidden)+"/hide", nil, http.StatusSeeOther)
	if strings.Contains(author.Get("/articles/"+itoa(hidden)).Body, `data-testid="edit-link"`) {
		t.Error("the poster is offered to edit a hidden article")
	}
	if res := author.Post("/articles/"+itoa(hidden)+"/edit", edit); res.Status != http.StatusForbidden || !strings.Contains(res.Body, "A moderator hid") {
		t.Errorf("the poster's edit of a hidden article: %d", res.Status)
	}
	if res := other.Post("/articles/"+itoa(hidden)+"/edit", edit); res.Status != http.StatusNotFound {
		t.Errorf("another reader's edit of a hidden article: %d, want 404", res.Status)
	}
	if res := author.Get("/articles/9999/edit"); res.Status != http.StatusNotFound {
		t.Errorf("editing a missing article: %d", res.Status)
	}
}

// TestAuthorDeletesArticle: the poster deletes an article that was voted
// on, commented on and followed: it leaves the board, its group, the
// followers' feed, the poster's page and count, and its page is a 404;
// nobody else can delete it.
func TestAuthorDeletesArticle(t *testing.T) {
	a := newApp(t, nil, nil)
	author, fan := a.client(), a.client()
	author.Register("regretful")
	fan.Register("fan")
	fan.MustPost("/users/regretful/follow", url.Values{"dir": {"follow"}}, http.StatusSeeOther)
	keep := author.postArticle("Keeper", "https://example.com/keep", "making")
	id := author.postArticle("Oops", "https://example.com/oops", "making")
	fan.vote(id, "up")
	fan.MustPost("/articles/"+itoa(id)+"/comments", url.Values{"body": {"nice"}}, http.StatusSeeOther)
	for _, p := range []string{"/articles", "/groups/making", "/feed", "/users/regretful"} {
		if !contains(testids(fan.Get(p).Body, "article", "data-article-id"), itoa(id)) {
			t.Fatalf("%s does not list the article before the delete", p)
		}
	}
	if res := fan.Post("/articles/"+itoa(id)+"/delete", nil); res.Status != http.StatusForbidden {
		t.Fatalf("someone else's delete: %d", res.Status)
	}
	res := author.MustPost("/articles/"+itoa(id)+"/delete", nil, http.StatusSeeOther)
	if res.Header.Get("Location") != "/articles" {
		t.Errorf("after the delete: to %s", res.Header.Get("Location"))
	}
	for _, p := range []string{"/articles", "/articles?sort=new", "/groups/making", "/feed", "/users/regretful", "/"} {
		ids := testids(fan.Get(p).Body, "article", "data-article-id")
		if contains(ids, itoa(id)) || (p != "/feed" && p != "/" && !contains(ids, itoa(keep))) {
			t.Errorf("%s lists %v after the delete", p, ids)
		}
	}
	if got := textOf(fan.Get("/users/regretful").Body, "posts-count"); got != "1" {
		t.Errorf("the poster's count is %s, want 1", got)
	}
	if res := fan.Get("/articles/" + itoa(id)); res.Status != http.StatusNotFound {
		t.Errorf("the deleted article's page: %d", res.Status)
	}
	if res := author.Post("/articles/"+itoa(id)+"/delete", nil); res.Status != http.StatusNotFound {
		t.Errorf("deleting again: %d", res.Status)
	}
	if st, _ := fan.vote(id, "down"); st != http.StatusNotFound {
		t.Errorf("a vote on the deleted article: %d", st)
	}
	if v := a.store.Redis().HGet(t.Context(), keys.MyVotes(a.userID("fan")), itoa(id)).Val(); v != "" {
		t.Errorf("the fan's record still holds a %s vote on it", v)
	}
}
