package apptest_test

import (
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"storefront/handlers/apptest"
)

// shopState is what shoppers did before a fault, to be found intact after
// it: a signed-in session with recently viewed items, a 3-line cart and a
// vote on an article, and another shopper's order.
type shopState struct {
	keeper, buyer *apptest.Client
	keeperName    string
	recent        []string
	cart          map[string]string // item id -> qty
	article       string
	orderPath     string
}

// makeShopState has two shoppers (accounts made by accounts) view, fill a
// cart, vote and check out on base. Several bases may be given: the
// shoppers move from one instance to the next between steps, as behind a
// load balancer.
func makeShopState(t *testing.T, accounts *accountMaker, tag string, bases ...string) *shopState {
	t.Helper()
	next := func(i int) string { return bases[i%len(bases)] }
	st := &shopState{keeperName: "keeper_" + tag, cart: map[string]string{}}
	st.keeper = signIn(t, accounts, next(0), st.keeperName)
	for i, id := range []string{"5", "7", "9"} {
		st.keeper.At(next(i)).MustGet("/items/"+id, http.StatusOK)
	}
	home := st.keeper.At(next(1)).MustGet("/", http.StatusOK)
	st.recent = apptest.ListIDs(home.Body, "recently-viewed")
	if len(st.recent) != 3 {
		t.Fatalf("recently viewed before the fault: %v", st.recent)
	}
	// Three lines of items in stock (a sold-out item answers 422).
	for id, qty := 20, 1; len(st.cart) < 3; id++ {
		r := st.keeper.At(next(id)).Post("/cart", url.Values{"item": {strconv.Itoa(id)}, "qty": {strconv.Itoa(qty)}})
		switch r.Status {
		case http.StatusSeeOther:
			st.cart[strconv.Itoa(id)] = strconv.Itoa(qty)
			qty++
		case http.StatusUnprocessableEntity:
		default:
			t.Fatalf("POST /cart: %d: %.300s", r.Status, r.Body)
		}
	}
	ids := articleIDs(t, next(0))
	if len(ids) == 0 {
		t.Fatal("no articles to vote on")
	}
	st.article = ids[0]
	st.keeper.At(next(2)).MustPost("/articles/"+st.article+"/vote", url.Values{"dir": {"up"}}, http.StatusSeeOther)

	st.buyer = signIn(t, accounts, next(1), "buyer_"+tag)
	inStock := slices.Sorted(maps.Keys(st.cart))[0]
	st.buyer.At(next(1)).MustPost("/cart", url.Values{"item": {inStock}, "qty": {"1"}}, http.StatusSeeOther)
	r := placeOrder(t, st.buyer.At(next(1)), st.buyer.At(next(0)), http.StatusSeeOther)
	st.orderPath = r.Header.Get("Location")
	if !regexp.MustCompile(`^/orders/\d+$`).MatchString(st.orderPath) {
		t.Fatalf("checkout went to %q", st.orderPath)
	}
	st.check(t, bases...)
	return st
}

// signIn makes the account name and signs a new shopper in to it on base.
func signIn(t *testing.T, accounts *accountMaker, base, name string) *apptest.Client {
	t.Helper()
	accounts.make(t, name)
	s := apptest.NewClient(t, "")
	s.At(base).MustPost("/login", url.Values{"username": {name}, "password": {loadPassword}}, http.StatusSeeOther)
	return s
}

// check finds everything intact on every base: still signed in, the same
// recently viewed items, cart lines, vote and order (which the fulfilment
// worker processes, if it has not yet).
func (st *shopState) check(t *testing.T, bases ...string) {
	t.Helper()
	for _, base := range bases {
		home := st.keeper.At(base).MustGet("/", http.StatusOK)
		if got := apptest.TextOf(home.Body, "user-name"); got != st.keeperName {
			t.Errorf("%s: signed in as %q, want %q", base, got, st.keeperName)
		}
		if got := apptest.ListIDs(home.Body, "recently-viewed"); !slices.Equal(got, st.recent) {
			t.Errorf("%s: recently viewed %v, want %v", base, got, st.recent)
		}
		cart := st.keeper.At(base).MustGet("/cart", http.StatusOK)
		ids, qtys := apptest.AttrsOf(cart.Body, "cart-line", "data-item-id"), apptest.AttrsOf(cart.Body, "cart-line", "data-qty")
		got := map[string]string{}
		for i := range ids {
			got[ids[i]] = qtys[i]
		}
		if !maps.Equal(got, st.cart) {
			t.Errorf("%s: cart %v, want %v", base, got, st.cart)
		}
		art := st.keeper.At(base).MustGet("/articles/"+st.article, http.StatusOK)
		if v := apptest.AttrsOf(art.Body, "article", "data-my-vote"); len(v) == 0 || v[0] != "up" {
			t.Errorf("%s: my vote on article %s is %v, want up", base, st.article, v)
		}
	}
	status := ""
	for deadline := time.Now().Add(apptest.PollDeadline); time.Now().Before(deadline); {
		order := st.buyer.At(bases[0]).MustGet(st.orderPath, http.StatusOK)
		if status = apptest.FirstAttr(order.Body, "order-status", "data-status"); status == "processed" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("order %s is %q, want processed", st.orderPath, status)
}
