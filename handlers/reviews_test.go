package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/store/ratelimit"
	"storefront/store/storetest"
)

// TestReviews: one review per account and item, editable; the item page
// (cached) shows the average, count and reviews at once, verified for a
// buyer, hostile text escaped, the form a per-visitor hole; bad input is a
// 422; reviews are rate limited.
func TestReviews(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) { c.Rates.Review = ratelimit.Rate{{N: 2, Per: time.Hour}} })
	a.setStock(12, 10)
	buyer, critic := a.client(), a.client()
	buyer.Register("buyer1")
	critic.Register("critic1")
	buyer.orderFor("buyer1", 12, 1)
	guest := a.client()
	for i := 0; i < 3; i++ { // cache the page
		guest.Get("/items/12")
	}
	if res := guest.Get("/items/12"); res.Header.Get("X-Cache") != "HIT" || textOf(res.Body, "rating") != "No reviews yet." {
		t.Fatalf("before: %s %q", res.Header.Get("X-Cache"), textOf(res.Body, "rating"))
	}
	for _, bad := range []url.Values{{"rating": {"6"}, "body": {"x"}}, {"rating": {"0"}, "body": {"x"}}, {"rating": {"4"}, "body": {"  "}},
		{"rating": {"4"}, "body": {strings.Repeat("a", 2001)}}, {"rating": {"x"}, "body": {"y"}}} {
		if res := buyer.Post("/items/12/reviews", bad); res.Status != http.StatusUnprocessableEntity {
			t.Errorf("%v: %d", bad["rating"], res.Status)
		}
	}
	if res := guest.Post("/items/12/reviews", url.Values{"rating": {"5"}, "body": {"great"}}); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Errorf("guest review: %d", res.Status)
	}
	if res := buyer.Post("/items/12/reviews", url.Values{"rating": {"5"}, "body": {"Great <script>alert(1)</script>"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("review: %d", res.Status)
	}
	if res := critic.Post("/items/12/reviews", url.Values{"rating": {"2"}, "body": {"Meh."}}); res.Status != http.StatusSeeOther {
		t.Fatalf("review: %d", res.Status)
	}
	page := guest.Get("/items/12")
	if got := testids(page.Body, "rating", "data-average"); len(got) != 1 || got[0] != "3.5" || testids(page.Body, "rating", "data-count")[0] != "2" {
		t.Errorf("rating %v", got)
	}
	ver := testids(page.Body, "review", "data-verified")
	if len(ver) != 2 || strings.Join(ver, ",") != "false,true" && strings.Join(ver, ",") != "true,false" {
		t.Errorf("verified flags %v", ver)
	}
	if strings.Contains(page.Body, "<script>alert(1)</script>") {
		t.Error("review text not escaped")
	}
	if strings.Contains(page.Body, `data-testid="review-form"`) {
		t.Error("a guest got a review form")
	}
	// The buyer's own form is filled in; the cached page holds no one's.
	own := buyer.Get("/items/12")
	if !strings.Contains(own.Body, `data-testid="review-form"`) || !strings.Contains(own.Body, "Update review") {
		t.Error("the buyer's form does not carry their review")
	}
	if cp := critic.Get("/items/12").Body; !strings.Contains(cp, ">Meh.</textarea>") || strings.Contains(cp, "alert(1)&lt;/script&gt;</textarea>") {
		t.Error("the critic's form does not carry their own review")
	}
	// Edit: still one review by the buyer, the average follows.
	if res := buyer.Post("/items/12/reviews", url.Values{"rating": {"4"}, "body": {"Good."}}); res.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.Status)
	}
	page = guest.Get("/items/12")
	if got := testids(page.Body, "rating", "data-average"); got[0] != "3.0" || len(testids(page.Body, "review", "")) != 2 {
		t.Errorf("after edit: %v, %d reviews", got, len(testids(page.Body, "review", "")))
	}
	// Cards on the listing show the average.
	it := storetest.Must(a.store.Catalog.Item(t.Context(), 12))(t)
	list := guest.Get("/items?q=" + url.QueryEscape(it.Name))
	if got := testids(list.Body, "rating", "data-average"); len(got) == 0 || got[0] != "3.0" {
		t.Errorf("card rating %v", got)
	}
	if res := buyer.Post("/items/12/reviews", url.Values{"rating": {"3"}, "body": {"Again."}}); res.Status != http.StatusTooManyRequests {
		t.Errorf("third review post: %d, want 429", res.Status)
	}
	if res := critic.Post("/items/99999/reviews", url.Values{"rating": {"3"}, "body": {"?"}}); res.Status != http.StatusNotFound {
		t.Errorf("missing item: %d", res.Status)
	}
}
