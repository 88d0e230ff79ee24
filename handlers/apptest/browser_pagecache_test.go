package apptest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"storefront/handlers/apptest"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/storetest"
)

// TestE2ECachedPageIsPersonalAndLive: a popular item page served from the
// page cache (gzip segments with holes) still shows the signed-in
// shopper's name and cart count, and live.js brings the live stock.
func TestE2ECachedPageIsPersonalAndLive(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"PAGE_CACHE_TOP": "100", "COOKIE_SECURE": "false"})
	tb := b.tab(app)
	const item = "/items/15"
	tb.navigate("/register")
	tb.typeInto("#username", "e2e_shopper")
	tb.typeInto("#password", "correct horse battery")
	tb.typeInto("#email", "e2e_shopper@example.com")
	tb.click(`form[action="/register"] button[type="submit"]`)
	tb.waitFor(`[data-testid=user-name]`)
	tb.navigate(item) // unranked until this first view
	tb.navigate(item) // popular now: rendered and stored
	sid := tb.cookie("sid")
	if sid == "" {
		t.Fatal("no session cookie")
	}
	// The cart (another feature) holds two lines, 3 units; the stock drops in the
	// database behind the cached page's back, as during a sale.
	// The signed-in shopper's cart is the account's.
	uid, err := app.Redis.HGet(t.Context(), keys.Login, keys.OfSession(sid).ID).Result()
	if err != nil {
		t.Fatalf("the session is not signed in: %v", err)
	}
	if err := app.Redis.HSet(t.Context(), keys.AccountCart(parseID(uid)), "3", 2, "6", 1).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := app.DB.ExecContext(t.Context(), `UPDATE items SET stock = 3 WHERE id = 15`); err != nil {
		t.Fatal(err)
	}

	res := tb.navigateResponse(item)
	if got := fmt.Sprint(res.Headers["X-Cache"]); got != "HIT" {
		t.Errorf("the item page was %q, want a cache HIT", got)
	}
	if got := fmt.Sprint(res.Headers["Content-Encoding"]); got != "gzip" {
		t.Errorf("Content-Encoding %q, want the stored gzip", got)
	}
	tb.waitFor(`[data-testid=item-stock][data-live="1"]`)
	if name, cart := tb.text(`[data-testid=user-name]`), tb.text(`[data-testid=cart-count]`); name != "e2e_shopper" || cart != "3" {
		t.Errorf("header shows %q with cart %q, want e2e_shopper and 3 (2+1)", name, cart)
	}
	if stock := tb.text(`[data-testid=item-stock]`); stock != "Only 3 left" {
		t.Errorf("live stock %q, want %q", stock, "Only 3 left")
	}
	if footer := tb.text(`.site-footer`); !strings.Contains(footer, "Storefront") {
		t.Error("the gzip page did not decode to its end in the browser")
	}
	tb.screenshot("item-cached")
	if storetest.DBKind() == platform.DBSQLite { // the app kept its database in DATA_DIR
		if _, err := os.Stat(filepath.Join(app.DataDir, "shop.db")); err != nil {
			t.Error(err)
		}
	}
}
