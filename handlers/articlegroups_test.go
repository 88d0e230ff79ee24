package handlers_test

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"storefront/store/board"
	"storefront/store/keys"
	"storefront/store/storetest"
)

// TestEditArticleGroups: the poster (or an admin) moves an article between
// groups; the cached group listings follow at once; anyone else gets a
// 403 and unknown groups a 422, changing nothing; concurrent edits leave
// the article's groups and the group sets in agreement.
func TestEditArticleGroups(t *testing.T) {
	a, logs := newLoggedApp(t)
	poster, other, admin := a.client(), a.client(), a.client()
	poster.Register("grouper")
	other.Register("stranger")
	admin.signInAdmin()
	id := poster.postArticle("Moving groups", "https://example.com/g", "making")
	// Cache both listings first.
	if !contains(testids(other.Get("/groups/making").Body, "article", "data-article-id"), itoa(id)) {
		t.Fatal("not in redis")
	}
	if contains(testids(other.Get("/groups/care").Body, "article", "data-article-id"), itoa(id)) {
		t.Fatal("already in go")
	}
	if res := other.Post("/articles/"+itoa(id)+"/groups", url.Values{"add": {"care"}}); res.Status != http.StatusForbidden {
		t.Errorf("a stranger: %d", res.Status)
	}
	for _, bad := range []url.Values{{"add": {"nonsense"}}, {"remove": {"making", "../x"}}, {}} {
		if res := poster.Post("/articles/"+itoa(id)+"/groups", bad); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("%v: %d", bad, res.Status)
		}
	}
	if !contains(testids(other.Get("/groups/making").Body, "article", "data-article-id"), itoa(id)) {
		t.Fatal("a refused edit changed the groups")
	}
	if res := poster.Post("/articles/"+itoa(id)+"/groups", url.Values{"add": {"care"}, "remove": {"making"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.Status)
	}
	if !contains(testids(other.Get("/groups/care").Body, "article", "data-article-id"), itoa(id)) {
		t.Error("the cached go listing does not show the article")
	}
	if contains(testids(other.Get("/groups/making?sort=new").Body, "article", "data-article-id"), itoa(id)) ||
		contains(testids(other.Get("/groups/making").Body, "article", "data-article-id"), itoa(id)) {
		t.Error("the cached redis listing still shows the article")
	}
	if res := admin.Post("/articles/"+itoa(id)+"/groups", url.Values{"add": {"kitchen,products"}}, "Accept", "application/json"); res.Status != http.StatusOK || !strings.Contains(res.Body, `"groups":["care","kitchen","products"]`) {
		t.Errorf("admin edit: %d %s", res.Status, res.Body)
	}
	if got := len(logs.lines("admin action")); got != 1 {
		t.Errorf("%d audit lines, want 1 (the admin's edit)", got)
	}

	// Concurrent edits by the poster and the admin.
	var wg sync.WaitGroup
	for i, g := range board.ArticleGroups {
		wg.Add(1)
		go func(i int, g string) {
			defer wg.Done()
			c := []*client{poster, admin}[i%2]
			field := []string{"add", "remove"}[i%2]
			c.Post("/articles/"+itoa(id)+"/groups", url.Values{field: {g}})
		}(i, g)
	}
	wg.Wait()
	ctx := t.Context()
	hash := storetest.Must(a.store.Redis().HGet(ctx, keys.ArticleSeq+itoa(id), "groups").Result())(t)
	var inSets []string
	for _, g := range board.ArticleGroups {
		if ok := storetest.Must(a.store.Redis().SIsMember(ctx, keys.Group(g), itoa(id)).Result())(t); ok {
			inSets = append(inSets, g)
		}
	}
	sort.Strings(inSets)
	if hash != strings.Join(inSets, ",") {
		t.Errorf("hash says %q, the sets %v", hash, inSets)
	}
}
