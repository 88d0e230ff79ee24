package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"storefront/handlers"
	"storefront/store/ratelimit"
)

// TestReportsReachModeration: a reader reports an article and a comment
// through forms that say what is reported; a second report of the same
// thing, a report of one's own post and a bad reason are refused with
// their words and change nothing; the moderation page lists each reported
// thing with its reasons, hides it or dismisses its reports, and comes
// back to itself; only admins can.
func TestReportsReachModeration(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) {
		r, err := ratelimit.ParseRate("4/1h")
		if err != nil {
			t.Fatal(err)
		}
		c.Rates.Report = r
	})
	author, critic, reader, admin := a.client(), a.client(), a.client(), a.client()
	author.Register("seller")
	critic.Register("critic")
	reader.Register("reader")
	admin.signInAdmin()
	id := author.postArticle("Buy my pans", "https://example.com/pans", "kitchen")
	path := "/articles/" + itoa(id)
	critic.MustPost(path+"/comments", url.Values{"body": {"You are all fools"}}, http.StatusSeeOther)
	cref := itoa(id) + "-1"

	page := reader.Get(path).Body
	if got := testids(page, "report-link", "href"); len(got) != 1 || got[0] != path+"/report" {
		t.Fatalf("report link %v", got)
	}
	if got := testids(page, "comment-report-link", "href"); len(got) != 1 || got[0] != "/comments/"+cref+"/report" {
		t.Fatalf("comment report links %v", got)
	}
	if strings.Contains(author.Get(path).Body, `data-testid="report-link"`) || strings.Contains(critic.Get(path).Body, `data-testid="comment-report-link"`) {
		t.Error("authors are offered to report their own posts")
	}
	form := reader.MustGet("/comments/"+cref+"/report", http.StatusOK).Body
	mustContain(t, form, `data-testid="report-form"`, "You are all fools", `value="abuse"`)

	for _, tc := range []struct {
		who    *client
		path   string
		form   url.Values
		status int
		words  string
	}{
		{reader, path + "/report", url.Values{"reason": {"boring"}}, http.StatusUnprocessableEntity, "Choose what is wrong"},
		{reader, path + "/report", url.Values{"reason": {"other"}}, http.StatusUnprocessableEntity, "Say what is wrong in the note"},
		{reader, path + "/report", url.Values{"reason": {"spam"}, "note": {strings.Repeat("n", 501)}}, http.StatusUnprocessableEntity, "at most 500"},
		{author, path + "/report", url.Values{"reason": {"spam"}}, http.StatusForbidden, "You cannot report what you posted"},
		{critic, "/comments/" + cref + "/report", url.Values{"reason": {"spam"}}, http.StatusForbidden, "You cannot report what you posted"},
		{reader, "/comments/" + itoa(id) + "-9/report", url.Values{"reason": {"spam"}}, http.StatusNotFound, ""},
		{reader, "/articles/9999/report", url.Values{"reason": {"spam"}}, http.StatusNotFound, ""},
	} {
		res := tc.who.Post(tc.path, tc.form)
		if res.Status != tc.status || !strings.Contains(res.Body, tc.words) {
			t.Errorf("POST %s %v: %d, want %d saying %q", tc.path, tc.form, res.Status, tc.status, tc.words)
		}
	}
	if got := admin.Get("/admin/moderation").Body; len(testids(got, "report-row", "data-id")) != 0 {
		t.Fatal("refused reports reached the moderators")
	}
	res := reader.MustPost(path+"/report", url.Values{"reason": {"spam"}, "note": {"Advertising only"}}, http.StatusSeeOther)
	if res.Header.Get("Location") != path {
		t.Errorf("after the report: to %s", res.Header.Get("Location"))
	}
	if res := reader.Post(path+"/report", url.Values{"reason": {"abuse"}}); res.Status != http.StatusConflict || !strings.Contains(res.Body, "reported this already") {
		t.Errorf("a second report: %d", res.Status)
	}
	reader.MustPost("/comments/"+cref+"/report", url.Values{"reason": {"abuse"}}, http.StatusSeeOther)
	author.MustPost("/comments/"+cref+"/report", url.Values{"reason": {"other"}, "note": {"Insults"}}, http.StatusSeeOther)

	mod := admin.MustGet("/admin/moderation", http.StatusOK).Body
	if got := testids(mod, "report-row", "data-id"); len(got) != 2 || got[0] != cref || got[1] != itoa(id) {
		t.Fatalf("report rows %v", got)
	}
	mustContain(t, mod, "You are all fools", "Rude, hateful or threatening", "Advertising only", "Insults", "2 things await")
	if n := len(testids(mod, "report-reason", "")); n != 3 {
		t.Errorf("%d reasons listed, want 3", n)
	}
	if res := reader.Post("/admin/reports/"+itoa(id)+"/dismiss", nil); res.Status != http.StatusForbidden {
		t.Errorf("a reader dismisses reports: %d", res.Status)
	}

	// Hide the comment from its row: back to the page, the row gone, the
	// comment hidden.
	res = admin.MustPost("/admin/comments/"+cref+"/hide", url.Values{"next": {"/admin/moderation"}}, http.StatusSeeOther)
	if res.Header.Get("Location") != "/admin/moderation" {
		t.Errorf("hiding from the moderation page goes to %s", res.Header.Get("Location"))
	}
	if contains(testids(reader.Get(path).Body, "comment", "data-comment-id"), cref) {
		t.Error("the hidden comment still shows")
	}
	// Dismiss the article's reports: it stays.
	admin.MustPost("/admin/reports/"+itoa(id)+"/dismiss", nil, http.StatusSeeOther)
	mod = admin.Get("/admin/moderation").Body
	if got := testids(mod, "report-row", "data-id"); len(got) != 0 || !strings.Contains(mod, "Nothing is reported.") {
		t.Fatalf("report rows after hiding and dismissing: %v", got)
	}
	if !contains(testids(reader.Get("/articles").Body, "article", "data-article-id"), itoa(id)) {
		t.Error("dismissing the reports hid the article")
	}
	if res := admin.Post("/admin/reports/"+itoa(id)+"/dismiss", nil); res.Status != http.StatusNotFound {
		t.Errorf("dismissing again: %d", res.Status)
	}
	if res := admin.Post("/admin/reports/x/dismiss", nil); res.Status != http.StatusNotFound {
		t.Errorf("dismissing nonsense: %d", res.Status)
	}

	// REPORT_RATE: four reports an hour here.
	var last int
	for i := range 4 {
		n := author.postArticle("Another "+itoa(int64(i)), "https://example.com/x")
		last = reader.Post("/articles/"+itoa(n)+"/report", url.Values{"reason": {"spam"}}).Status
	}
	if last != http.StatusTooManyRequests {
		t.Errorf("the fifth report in an hour: %d, want 429", last)
	}
}

// TestBoardFormsMarkup: the board's new pages (a text article with
// replies and a deleted comment's line, seen by its poster, a reader and
// the admin; the edit, delete and report forms, with their errors; the
// moderation page with reports) pass the markup checks.
func TestBoardFormsMarkup(t *testing.T) {
	a := newApp(t, nil, nil)
	author, reader, admin := a.client(), a.client(), a.client()
	author.Register("marker")
	reader.Register("reader")
	admin.signInAdmin()
	id := author.postText("Markup", "https://example.com/m", "One https://example.com/a\n\nTwo <b>")
	path := "/articles/" + itoa(id)
	ref := itoa(id) + "-"
	reader.MustPost(path+"/comments", url.Values{"body": {"first"}}, http.StatusSeeOther)
	author.MustPost(path+"/comments", url.Values{"body": {"reply"}, "reply_to": {"1"}}, http.StatusSeeOther)
	reader.MustPost(path+"/comments", url.Values{"body": {"reply to reply"}, "reply_to": {"2"}}, http.StatusSeeOther)
	reader.MustPost("/comments/"+ref+"1/delete", nil, http.StatusSeeOther)
	reader.MustPost(path+"/report", url.Values{"reason": {"spam"}}, http.StatusSeeOther)
	reader.MustPost("/comments/"+ref+"2/report", url.Values{"reason": {"other"}, "note": {"<i>why</i>"}}, http.StatusSeeOther)
	pages := map[string]string{
		"poster's article":     author.MustGet(path, http.StatusOK).Body,
		"reader's article":     reader.MustGet(path, http.StatusOK).Body,
		"admin's article":      admin.MustGet(path, http.StatusOK).Body,
		"reply with errors":    reader.Post(path+"/comments", url.Values{"body": {""}, "reply_to": {"2"}}).Body,
		"edit article":         author.MustGet(path+"/edit", http.StatusOK).Body,
		"edit article errors":  author.Post(path+"/edit", url.Values{"title": {""}}).Body,
		"edit comment":         author.MustGet("/comments/"+ref+"2/edit", http.StatusOK).Body,
		"edit comment errors":  author.Post("/comments/"+ref+"2/edit", url.Values{"body": {""}}).Body,
		"report article":       reader.MustGet(path+"/report", http.StatusOK).Body,
		"report comment":       author.MustGet("/comments/"+ref+"3/report", http.StatusOK).Body,
		"report comment error": author.Post("/comments/"+ref+"3/report", url.Values{"reason": {"other"}}).Body,
		"new article errors":   author.Post("/articles", url.Values{"title": {"x"}}).Body,
		"moderation":           admin.MustGet("/admin/moderation", http.StatusOK).Body,
	}
	for n, body := range pages {
		for _, p := range markupProblems(body) {
			t.Errorf("%s: %s", n, p)
		}
	}
	if !strings.Contains(pages["moderation"], "&lt;i&gt;why&lt;/i&gt;") {
		t.Error("a report's note is not escaped on the moderation page")
	}
}
