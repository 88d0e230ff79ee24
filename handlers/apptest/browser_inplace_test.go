package apptest_test

import (
	"fmt"
	"testing"

	"storefront/handlers/apptest"
	"storefront/store/pricing"
)

// Scripts that update a page in place, against what the server renders
// for the same state with JavaScript off: the checkout's review when the
// delivery method changes, and votes and likes. At 390 and 1280 px.

// reviewState is what a person sees of the checkout's review: its lines,
// each row of its totals, the delivery chosen and the total the form
// confirms (on its button and in its hidden field).
var reviewState = stateJS(`{
	lines: [...document.querySelectorAll('[data-testid="review-line"]')].map(r => fold(r.innerText)),
	totals: [...document.querySelectorAll('[data-testid="checkout-review"] tfoot tr')].map(r => fold(r.innerText)),
	delivery: val('input[name="shipping"]:checked'), place: text('[data-place-total]'), total: val('[data-checkout-total]')
}`)

// fillAddress fills the checkout's address for the United Kingdom. With
// JavaScript, choosing the country prices the review again by itself;
// without, the shopper asks for it.
func fillAddress(tb *e2eTab, scripts bool) {
	tb.t.Helper()
	tb.waitFor(`[data-testid="checkout-form"]`)
	tb.fill("#email", "review@example.com")
	tb.fill("#name", "Ada Lovelace")
	tb.fill("#line1", "12 St James's Square")
	tb.fill("#city", "London")
	tb.fill("#postcode", "SW1Y 4JH")
	if scripts {
		tb.choose("#country", "GB")
	} else {
		tb.fill("#country", "GB")
		tb.click(`[data-testid="review-again"]`)
	}
	tb.waitFor(`[data-testid="tax-line"]`)
}

// TestBrowserCheckoutReviewMatchesServer: with a code and a taxed country,
// choosing express delivery and then standard again updates the review's
// delivery, discount, tax and total (and the total the form confirms) in
// place, exactly as the server renders the review for that choice.
func TestBrowserCheckoutReviewMatchesServer(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false", "SHIPPING_EXPRESS": "20.00"})
	if _, err := app.Store.Pricing.SaveCode(t.Context(), pricing.Code{Code: "REVIEW10", Kind: pricing.KindPercent, Value: 1000}); err != nil {
		t.Fatal(err)
	}
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			tb := b.freshTab(t, app)
			tb.size(s)
			plain := tb.plainTab(t, s)
			addLineInBrowser(tb, "8")
			tb.navigate("/cart")
			tb.fill("#code", "review10")
			tb.click(`[data-testid="discount-apply"]`)
			tb.waitFor(`[data-testid="discount-line"]`)

			tb.navigate("/checkout")
			fillAddress(tb, true)
			plain.navigate("/checkout")
			fillAddress(plain, false)
			eval[bool](tb, `window.e2eNotReloaded = true`)
			for _, method := range []string{"express", "standard"} {
				tb.click(`input[name="shipping"][value="` + method + `"]`)
				tb.waitAttr(`input[name="shipping"]:checked`, "value", method)
				plain.click(`input[name="shipping"][value="` + method + `"]`)
				plain.click(`[data-testid="review-again"]`)
				plain.waitAttr(`input[name="shipping"][checked]`, "value", method)
				got, want := eval[string](tb, reviewState), eval[string](plain, reviewState)
				if got != want {
					t.Errorf("%s delivery: the review shows, after its script ran:\n\t%s\nthe server renders:\n\t%s", method, got, want)
				}
			}
			if !eval[bool](tb, `window.e2eNotReloaded === true`) {
				t.Error("choosing the delivery reloaded the checkout; the script should work in place")
			}
			tb.screenshot("checkout-review-" + s.name)
		})
	}
}

// voteRowState is what a person sees of one article's row: its counts,
// points, text and vote buttons (value, pressed, label, open).
func voteRowState(id int64) string {
	return stateJS(fmt.Sprintf(`(row => row ? {
		score: row.dataset.score, up: row.dataset.up, down: row.dataset.down, mine: row.dataset.myVote,
		text: fold(row.innerText),
		buttons: [...row.querySelectorAll(".vote-btn")].map(b => [b.value, b.getAttribute("aria-pressed"), b.getAttribute("aria-label"), b.disabled].join(" | "))
	} : "no article %d")(document.querySelector('[data-testid="article"][data-article-id="%d"]'))`, id, id))
}

// likeState is what a person sees of an item's like box.
var likeState = stateJS(`(box => ({
	liked: box.dataset.liked, text: fold(box.innerText),
	button: attr("button", "aria-pressed", box), dir: val('input[name="dir"]', box)
}))(document.querySelector('[data-testid="like-box"]'))`)

// TestBrowserVotesAndLikesMatchServer: a reader votes an article up, then
// down, then takes the vote back, on the listing and on the article's
// page, and likes and unlikes an item: after each click, updated in place,
// the row or the box is what the server renders for it on a reload.
func TestBrowserVotesAndLikesMatchServer(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false", "VOTE_RATE": "0", "LOGIN_RATE": "0"})
	for i, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			name := fmt.Sprintf("voter%d", i)
			if _, err := app.Store.Sessions.CreateUser(t.Context(), name, "correct horse battery"); err != nil {
				t.Fatal(err)
			}
			tb := b.freshTab(t, app)
			tb.size(s)
			tb.navigate("/login")
			tb.fill("#username", name)
			tb.fill("#password", "correct horse battery")
			tb.click(`form[action="/login"] button[type=submit]`)
			tb.waitUntil("signed in", e2eStepTimeout, func() (bool, string, error) {
				n, err := peek[int](tb, `document.querySelectorAll("[data-testid=user-name]").length`)
				return err == nil && n == 1, "not yet", err
			})
			plain := tb.plainTab(t, s)

			article := int64(30 + i) // among the newest, on the listing's first page
			row := fmt.Sprintf(`[data-testid="article"][data-article-id="%d"]`, article)
			for _, page := range []string{"/articles?sort=new", fmt.Sprintf("/articles/%d", article)} {
				tb.navigate(page)
				tb.waitFor(row)
				eval[bool](tb, `window.e2eNotReloaded = true`)
				for _, click := range []struct{ button, pressed string }{{"vote-up", "true"}, {"vote-down", "true"}, {"vote-down", "false"}} {
					tb.click(row + ` [data-testid="` + click.button + `"]`)
					tb.waitAttr(row+` [data-testid="`+click.button+`"]`, "aria-pressed", click.pressed)
					sameAsServer(t, tb, plain, page, voteRowState(article), fmt.Sprintf("%s after %s", page, click.button))
				}
				if !eval[bool](tb, `window.e2eNotReloaded === true`) {
					t.Errorf("%s: voting reloaded the page; the script should work in place", page)
				}
			}

			item := fmt.Sprintf("/items/%d", 5+i)
			tb.navigate(item)
			for _, liked := range []string{"true", "false"} {
				tb.click(`[data-testid="like-box"] button`)
				tb.waitAttr(`[data-testid="like-box"]`, "data-liked", liked)
				sameAsServer(t, tb, plain, item, likeState, fmt.Sprintf("%s liked=%s", item, liked))
			}
			tb.screenshot("votes-likes-" + s.name)
		})
	}
}
