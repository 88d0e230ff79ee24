package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// repliesOf lists the data-comment-id of the replies rendered under the
// comment ref on an article's page (nil when it has none).
func repliesOf(t *testing.T, page, ref string) []string {
	t.Helper()
	i := strings.Index(page, `data-comment-id="`+ref+`"`)
	if i < 0 {
		t.Fatalf("comment %s is not on the page", ref)
	}
	rest := page[i:]
	next := strings.Index(rest[1:], `<li id="comment-`)
	list := strings.Index(rest, `<ol class="replies">`)
	if list < 0 || (next >= 0 && next < list) {
		return nil
	}
	rest = rest[list:]
	return testids(rest[:strings.Index(rest, "</ol>")], "comment", "data-comment-id")
}

// TestRepliesNestOneLevel: every comment has a reply form that works
// without scripts (a form in a details element); a reply shows under its
// comment, a reply to a reply under the same comment naming whom it
// answers; the comment's author is told of the reply and the article's
// author of the comment, once each; an empty reply comes back to its own
// box, open, with the text and the error.
func TestRepliesNestOneLevel(t *testing.T) {
	a := newApp(t, nil, nil)
	author, ann, bob := a.client(), a.client(), a.client()
	author.Register("poster")
	ann.Register("ann")
	bob.Register("bob")
	id := author.postArticle("Which wax?", "https://example.com/wax", "care")
	path := "/articles/" + itoa(id)
	ann.MustPost(path+"/comments", url.Values{"body": {"Beeswax blend."}}, http.StatusSeeOther)
	page := bob.Get(path).Body
	if forms := testids(page, "comment-reply", "action"); len(forms) != 1 || forms[0] != path+"/comments" {
		t.Fatalf("reply forms %v", forms)
	}
	mustContain(t, page, `<details class="reply">`, `name="reply_to" value="1"`)
	if strings.Contains(a.client().Get(path).Body, `data-testid="comment-reply"`) {
		t.Error("a guest gets reply forms")
	}
	res := bob.MustPost(path+"/comments", url.Values{"body": {"Which brand?"}, "reply_to": {"1"}}, http.StatusSeeOther)
	if res.Header.Get("Location") != path+"#comment-2" {
		t.Errorf("after the reply: %s", res.Header.Get("Location"))
	}
	ann.MustPost(path+"/comments", url.Values{"body": {"The shop's own."}, "reply_to": {"2"}}, http.StatusSeeOther)
	author.MustPost(path+"/comments", url.Values{"body": {"Thanks both."}}, http.StatusSeeOther)
	page = bob.Get(path).Body
	ref := func(n string) string { return itoa(id) + "-" + n }
	if got := repliesOf(t, page, ref("1")); len(got) != 2 || got[0] != ref("2") || got[1] != ref("3") {
		t.Fatalf("replies under the comment: %v", got)
	}
	if got := repliesOf(t, page, ref("4")); got != nil {
		t.Fatalf("the later comment has replies %v", got)
	}
	if !strings.Contains(page, `<span class="reply-to">to bob</span>`) {
		t.Error("the reply to a reply does not say whom it answers")
	}
	if !strings.Contains(page, ">4 comments</h2>") {
		t.Error("the count does not include the replies")
	}

	// Notes: ann hears of bob's reply; bob of ann's; the poster of each
	// comment and reply on the article (ann's own, not twice).
	notes := func(c *client) (replies, comments int) {
		body := c.Get("/notifications").Body
		return strings.Count(body, "replied to your comment on"), strings.Count(body, "commented on")
	}
	if r, c := notes(ann); r != 1 || c != 0 {
		t.Errorf("ann has %d reply and %d comment notes, want 1 and 0", r, c)
	}
	if r, c := notes(bob); r != 1 || c != 0 {
		t.Errorf("bob has %d reply and %d comment notes, want 1 and 0", r, c)
	}
	if r, c := notes(author); r != 0 || c != 3 {
		t.Errorf("the poster has %d reply and %d comment notes, want 0 and 3", r, c)
	}

	// An empty reply: its own box, open, with the error; nothing stored.
	bad := bob.Post(path+"/comments", url.Values{"body": {"  "}, "reply_to": {"4"}})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, `<details class="reply" open>`) ||
		!strings.Contains(bad.Body, `id="reply-4-error"`) || strings.Contains(bad.Body, `id="body-error"`) {
		t.Errorf("an empty reply: %d", bad.Status)
	}
	for _, v := range []string{"x", "0", "-1", "01"} {
		if res := bob.Post(path+"/comments", url.Values{"body": {"hi"}, "reply_to": {v}}); res.Status != http.StatusBadRequest {
			t.Errorf("reply_to=%s: %d, want 400", v, res.Status)
		}
	}
	gone := bob.Post(path+"/comments", url.Values{"body": {"To nothing"}, "reply_to": {"99"}})
	if gone.Status != http.StatusUnprocessableEntity || !strings.Contains(gone.Body, "The comment you answered is gone") || !strings.Contains(gone.Body, ">To nothing</textarea>") {
		t.Errorf("a reply to a missing comment: %d", gone.Status)
	}
	if n := len(testids(bob.Get(path).Body, "comment", "data-comment-id")); n != 4 {
		t.Errorf("%d comments after the refusals, want 4", n)
	}

	// A moderator hides the comment that has replies: readers see a line
	// in its place with the replies under it; its author still sees it.
	admin := a.client()
	admin.signInAdmin()
	admin.MustPost("/admin/comments/"+ref("1")+"/hide", nil, http.StatusSeeOther)
	page = bob.Get(path).Body
	if contains(testids(page, "comment", "data-comment-id"), ref("1")) || strings.Contains(page, "Beeswax blend.") ||
		len(testids(page, "comment-gone", "")) != 1 || !strings.Contains(page, "This comment was hidden by a moderator.") {
		t.Error("a reader still sees the hidden comment, or no line in its place")
	}
	if got := testids(page, "comment", "data-comment-id"); len(got) != 3 || got[0] != ref("2") {
		t.Errorf("comments a reader sees: %v", got)
	}
	if !strings.Contains(ann.Get(path).Body, `data-testid="comment-hidden"`) {
		t.Error("the author of the hidden comment does not see it marked")
	}
}

// TestCommentEditAndDelete: a comment's author edits and deletes it for
// 15 minutes, nobody else can; a deleted comment with replies leaves a
// line saying so, with its replies under it; one without replies is gone;
// the count follows; afterwards the controls are gone and the routes say
// why.
func TestCommentEditAndDelete(t *testing.T) {
	a := newApp(t, nil, nil)
	author, ann, bob := a.client(), a.client(), a.client()
	author.Register("poster")
	ann.Register("ann")
	bob.Register("bob")
	id := author.postArticle("Sharpening", "https://example.com/sharp", "kitchen")
	path := "/articles/" + itoa(id)
	ref := func(n string) string { return itoa(id) + "-" + n }
	ann.MustPost(path+"/comments", url.Values{"body": {"Use a whetstone"}}, http.StatusSeeOther)
	ann.MustPost(path+"/comments", url.Values{"body": {"Typo here"}}, http.StatusSeeOther)
	bob.MustPost(path+"/comments", url.Values{"body": {"Which grit?"}, "reply_to": {"1"}}, http.StatusSeeOther)

	if got := testids(ann.Get(path).Body, "comment-edit-link", "href"); len(got) != 2 || got[0] != "/comments/"+ref("1")+"/edit" {
		t.Fatalf("ann's edit links %v", got)
	}
	if got := testids(bob.Get(path).Body, "comment-edit-link", "href"); len(got) != 1 || got[0] != "/comments/"+ref("3")+"/edit" {
		t.Fatalf("bob's edit links %v", got)
	}
	mustContain(t, ann.MustGet("/comments/"+ref("2")+"/edit", http.StatusOK).Body, `data-testid="edit-form"`, `data-testid="delete-form"`, ">Typo here</textarea>")
	for _, p := range []string{"/comments/" + ref("2") + "/edit", "/comments/" + ref("2") + "/delete"} {
		if res := bob.Post(p, url.Values{"body": {"hijacked"}}); res.Status != http.StatusForbidden {
			t.Errorf("bob posts %s: %d", p, res.Status)
		}
	}
	for _, bad := range []string{"/comments/x/edit", "/comments/" + itoa(id) + "/edit", "/comments/" + ref("9") + "/edit", "/comments/" + ref("01") + "/edit"} {
		if res := ann.Get(bad); res.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", bad, res.Status)
		}
	}
	if res := ann.Post("/comments/"+ref("2")+"/edit", url.Values{"body": {""}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("an empty edit: %d", res.Status)
	}
	ann.MustPost("/comments/"+ref("2")+"/edit", url.Values{"body": {"No typo here"}}, http.StatusSeeOther)
	page := bob.Get(path).Body
	if !strings.Contains(page, "<p>No typo here</p>") || len(testids(page, "edited", "")) != 1 {
		t.Fatal("the edit does not show, marked edited")
	}

	// Delete the comment with a reply, then the one without.
	ann.MustPost("/comments/"+ref("1")+"/delete", nil, http.StatusSeeOther)
	ann.MustPost("/comments/"+ref("2")+"/delete", nil, http.StatusSeeOther)
	page = bob.Get(path).Body
	if got := testids(page, "comment", "data-comment-id"); len(got) != 1 || got[0] != ref("3") {
		t.Fatalf("comments after the deletes: %v", got)
	}
	if n := len(testids(page, "comment-gone", "")); n != 1 || !strings.Contains(page, "This comment was deleted.") || strings.Contains(page, "Use a whetstone") {
		t.Fatalf("%d lines stand for deleted comments", n)
	}
	if !strings.Contains(page, ">1 comment</h2>") {
		t.Error("the count still counts the deleted comments")
	}
	if res := ann.Post("/comments/"+ref("1")+"/edit", url.Values{"body": {"back"}}); res.Status != http.StatusNotFound {
		t.Errorf("editing a deleted comment: %d", res.Status)
	}

	a.shiftClock(15 * time.Minute)
	if strings.Contains(bob.Get(path).Body, `data-testid="comment-edit-link"`) {
		t.Error("after 15 minutes the author still sees the edit link")
	}
	for p, want := range map[string]string{"/comments/" + ref("3") + "/edit": "only in the first 15 minutes", "/comments/" + ref("3") + "/delete": "only in the first 15 minutes"} {
		if res := bob.Post(p, url.Values{"body": {"late"}}); res.Status != http.StatusForbidden || !strings.Contains(res.Body, want) {
			t.Errorf("POST %s after 15 minutes: %d", p, res.Status)
		}
	}
	if res := bob.Get("/comments/" + ref("3") + "/edit"); res.Status != http.StatusForbidden {
		t.Errorf("the edit form after 15 minutes: %d", res.Status)
	}
}
