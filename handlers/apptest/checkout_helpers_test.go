package apptest_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"storefront/handlers/apptest"
)

// checkoutTotalRE reads the total the checkout form confirms.
var checkoutTotalRE = regexp.MustCompile(`name="total" value="([^"]*)"`)

// placeOrder reviews the cart through review and places the order through
// place (the same shopper, maybe on another instance) with a valid address
// at the total the review showed; it fails the test unless the answer has
// status want.
func placeOrder(t *testing.T, review, place *apptest.Client, want int) apptest.Response {
	t.Helper()
	page := review.MustGet("/checkout", http.StatusOK)
	// The review prices delivery once the country is chosen ("Update the
	// review" without JavaScript).
	priced := review.MustPost("/checkout", url.Values{"country": {"GB"}, "shipping": {"standard"}, "review": {"1"}}, http.StatusOK)
	m := checkoutTotalRE.FindStringSubmatch(priced.Body)
	if m == nil {
		t.Fatal("the checkout form has no total")
	}
	form := url.Values{"name": {"Ada Lovelace"}, "line1": {"1 Main Street"}, "city": {"London"}, "postcode": {"N1 1AA"},
		"country": {"GB"}, "shipping": {"standard"}, "payment": {"invoice"}, "total": {m[1]}}
	if strings.Contains(page.Body, `name="email"`) {
		form.Set("email", "guest@example.com")
	}
	return place.MustPost("/checkout", form, want)
}
