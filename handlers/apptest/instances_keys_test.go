package apptest_test

import (
	"maps"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"storefront/handlers/apptest"
)

// TestInstancesShareGeneratedCookieKeys: two instances on one Redis and
// one PostgreSQL, each with a DATA_DIR of its own and no COOKIE_KEYS,
// started at once (a first deployment), agree on one key set, kept in the
// database: a shopper signed in with a cart on one is the same signed-in
// shopper with the same cart on the other. Before, each generated keys of
// its own and the other saw a signed-out guest with an empty cart.
func TestInstancesShareGeneratedCookieKeys(t *testing.T) {
	apptest.Parallel(t)
	sh := sharedEnv(t, map[string]string{"COOKIE_KEYS": ""})
	if sh.env["DATABASE_URL"] == "" {
		sh.env["DATABASE_URL"] = startOwnPostgres(t).URL() // one SQLite file cannot be shared across DATA_DIRs
	}
	ps := make([]*apptest.App, 2)
	var wg sync.WaitGroup
	for i := range ps {
		env := maps.Clone(sh.env)
		env["DATA_DIR"] = t.TempDir()
		wg.Go(func() { ps[i] = apptest.Start(t, env) })
	}
	wg.Wait()
	for _, p := range ps {
		if p == nil || p.URL == "" {
			t.FailNow()
		}
	}
	sources := map[string]int{}
	for _, p := range ps {
		for _, m := range p.Logged("cookie keys") {
			s, _ := m["source"].(string)
			sources[s]++
		}
	}
	if sources["generated, kept in the database"] != 1 || sources["database"] != 1 {
		t.Errorf("cookie key sources %v: want one instance to generate them and the other to read them", sources)
	}

	a, b := ps[0].URL, ps[1].URL
	s := apptest.NewClient(t, a)
	s.Register("two_dirs")
	s.MustPost("/cart", url.Values{"item": {"3"}, "qty": {"2"}}, http.StatusSeeOther)
	for _, base := range []string{a, b, a} {
		page := s.At(base).MustGet("/items", http.StatusOK)
		if name, n := apptest.TextOf(page.Body, "user-name"), apptest.TextOf(page.Body, "cart-count"); name != "two_dirs" || n != "2" {
			t.Fatalf("on %s: signed in as %q with %q in the cart, want two_dirs with 2", base, name, n)
		}
	}
	guest := apptest.NewClient(t, b)
	guest.MustPost("/cart", url.Values{"item": {"5"}, "qty": {"1"}}, http.StatusSeeOther)
	if n := apptest.TextOf(guest.At(a).MustGet("/cart", http.StatusOK).Body, "cart-count"); n != "1" {
		t.Errorf("a guest's cart made on one instance counts %q on the other, want 1", n)
	}
}
