package apptest_test

import (
	"bytes"
	_ "embed"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"storefront/store/board"
	"storefront/store/merchant"
)

// axeSource is axe-core, vendored with its licence header (MPL-2.0) so the
// accessibility check runs wherever the tests do.
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// axeTags are the rules the pages are held to: WCAG 2.1 A and AA, plus
// axe's best practices (heading order, landmarks...).
const axeTags = `['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']`

// TestBrowserAccessibilityOfEveryPageFamily runs axe-core on every page family,
// signed out and signed in, on a desktop and a phone width: any violation
// fails the test with the rule and the elements. At the phone width every
// page must also fit the screen: a page wider than it scrolls sideways.
func TestBrowserAccessibilityOfEveryPageFamily(t *testing.T) {
	if !strings.HasPrefix(axeSource, "/*! axe v") || !strings.Contains(axeSource[:600], "Mozilla Public") {
		t.Fatal("testdata/axe/axe.min.js lost its licence header")
	}
	app := startBrowserApp(t, nil)
	b := newBrowser(t)
	guestPages := []string{"/", "/items", "/items?category=Books", "/items/3", "/cart", "/articles", "/articles/1", "/users/ada", "/login", "/register", "/nowhere"}
	memberPages := []string{"/", "/items", "/items/3", "/cart", "/articles", "/articles/1", "/articles/new", "/users/ada", "/feed", "/notifications", "/orders", "/admin"}

	guest := b.freshTab(t, app)
	admin := b.freshTab(t, app)
	admin.signInAdmin(app)
	// A followed author fills the feed, so the feed is checked with rows.
	admin.navigate("/users/ada")
	admin.click(`[data-testid=follow-button]`)
	admin.waitAttr(`[data-testid=follow-button]`, "aria-pressed", "true")

	// Pages with order lines: the admin's own order, the checkout with a
	// line in the cart, and a guest's order behind its signed link.
	order := placeOrderInBrowser(admin)
	addLineInBrowser(admin, "8")
	// A hidden article, so that the moderation page has a row to check.
	admin.navigate("/articles/2")
	admin.click(`[data-testid=hide-article]`)
	admin.waitFor(`[data-testid=unhide-article]`)
	// The board's own pages: a thread of replies, the admin's article and
	// comment with their edit pages, the report form and a report on the
	// moderation page.
	memberPages = append(memberPages, boardPages(t, app, admin)...)
	memberPages = append(memberPages, "/checkout", order, order+"/cancel", "/admin/items", "/admin/orders", "/admin/orders?q=a",
		"/admin/moderation", "/items?q=skilet")
	// The catalog's tree and collections, the account's pages, and every
	// admin page family: the merchant's settings, the team, the audit
	// log, the catalog's editors, pricing, returns, reports and the
	// admin's view of an order.
	memberPages = append(memberPages, "/c/leisure", "/collections/staff-picks", "/account", "/account/two-factor",
		"/admin/settings", "/admin/home", "/admin/pages", "/admin/demo", "/admin/staff", "/admin/audit", "/admin/system", "/admin/outbox",
		"/admin/items/5", "/admin/items/28/variants", "/admin/items/new", "/admin/items/import", "/admin/categories", "/admin/collections",
		"/admin/discounts", "/admin/shipping", "/admin/tax", "/admin/returns", "/admin/refunds", "/admin/sales", "/admin"+order)
	guestPages = append(guestPages, guestOrderLink(t, app), "/c/leisure", "/collections/staff-picks", "/password/forgot")
	// A wide logo in the header, so that every page is checked with one
	// (at 390 px it must not push the header past the screen).
	setLogo(t, app, 800, 160)
	guest.waitUntil("the logo in the header", e2eStepTimeout, func() (bool, string, error) {
		guest.navigate("/")
		n := guest.count(`[data-testid=shop-logo]`)
		return n == 1, fmt.Sprintf("%d logos", n), nil
	})

	for _, width := range []int64{1280, 390} {
		for _, run := range []struct {
			who   string
			tab   *e2eTab
			pages []string
		}{{"guest", guest, guestPages}, {"admin", admin, memberPages}} {
			run.tab.do("viewport", chromedp.EmulateViewport(width, 900))
			for _, path := range run.pages {
				if found := axeViolations(run.tab, path); found != "" {
					t.Errorf("%s at %d px, %s: %s", run.who, width, path, found)
				}
				if path == "/" || path == "/admin/settings" {
					run.tab.screenshot(fmt.Sprintf("pages-%s-%d%s", run.who, width, strings.ReplaceAll(path, "/", "-")))
				}
				if path == "/checkout" && run.tab.count(`[data-testid=review-line]`) == 0 {
					t.Errorf("%s: /checkout has no line to check", run.who)
				}
				if width == 390 {
					if wide := tooWide(run.tab); wide != "" {
						t.Errorf("%s at 390 px, %s is wider than the screen: %s", run.who, path, wide)
					}
				}
			}
		}
	}
}

// axeViolations opens the page, runs axe-core in it and describes the
// violations ("" when there are none). The script goes in through the
// DevTools protocol, which the page's Content-Security-Policy does not
// govern; the result is polled for, as axe answers asynchronously.
func axeViolations(tb *e2eTab, path string) string {
	tb.t.Helper()
	tb.navigate(path)
	eval[bool](tb, axeSource+";true")
	eval[bool](tb, `window.__axeResult = undefined; axe.run(document, {runOnly: {type: 'tag', values: `+axeTags+`}}).then(r => {
		window.__axeResult = r.violations.map(v => v.id + ' (' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ') + ')').join('; ');
	}, e => { window.__axeResult = 'axe failed: ' + e; }); true`)
	var result string
	tb.waitUntil(fmt.Sprintf("axe on %s", path), e2eStepTimeout, func() (bool, string, error) {
		r, err := peek[*string](tb, `window.__axeResult === undefined ? null : window.__axeResult`)
		if err != nil || r == nil {
			return false, "running", err
		}
		result = *r
		return true, "done", nil
	})
	return result
}

// tooWide describes how the open page is wider than the viewport, so that
// a phone would scroll it sideways ("" when it fits): the document's width
// and the widest elements that stick out on the right. clientWidth is the
// viewport without a vertical scrollbar, what the page may fill.
func tooWide(tb *e2eTab) string {
	tb.t.Helper()
	return eval[string](tb, `(() => {
		const de = document.documentElement, w = de.clientWidth;
		if (de.scrollWidth <= w) return '';
		const out = [];
		for (const e of document.querySelectorAll('body *')) {
			const r = e.getBoundingClientRect();
			if (r.width > 0 && r.right > w + 1) out.push(e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '') + ' right=' + Math.round(r.right));
		}
		return 'scrollWidth ' + de.scrollWidth + ' > ' + w + ' (' + out.slice(-4).join(', ') + ')';
	})()`)
}

// addLineInBrowser puts one of an item in the tab's cart from the item
// page and waits for the page to confirm it.
func addLineInBrowser(tb *e2eTab, item string) {
	tb.t.Helper()
	tb.navigate("/items/" + item)
	tb.fill("#qty", "1")
	tb.click("form.buy button[type=submit]")
	tb.waitFor(".cart-msg a[href='/cart']")
}

// placeOrderInBrowser has the tab's signed-in shopper buy one of item 8
// (in stock in the demo catalog) through the checkout form and returns the
// order page's path.
func placeOrderInBrowser(tb *e2eTab) string {
	tb.t.Helper()
	addLineInBrowser(tb, "8")
	tb.navigate("/checkout")
	tb.waitFor(`[data-testid="checkout-form"]`)
	tb.fill("#name", "Ada Lovelace")
	tb.fill("#line1", "1 Main Street")
	tb.fill("#city", "London")
	tb.fill("#postcode", "N1 1AA")
	// Delivery is priced once the country is chosen.
	tb.fill("#country", "GB")
	tb.click(`[data-testid="review-again"]`)
	tb.waitFor(`[data-testid="delivery-zone"][data-zone="Europe"]`)
	tb.click(`[data-testid="checkout-form"] button[type=submit]`)
	return tb.waitPath("/orders/")
}

// guestOrderLink places a guest's order over HTTP and returns its signed
// link (path and key), which anyone holding it may open.
func guestOrderLink(t *testing.T, app *browserApp) string {
	t.Helper()
	c := app.client(t)
	c.MustPost("/cart", url.Values{"item": {"8"}, "qty": {"1"}}, http.StatusSeeOther)
	res := placeOrder(t, c, c, http.StatusSeeOther)
	loc := res.Header.Get("Location")
	if !strings.HasPrefix(loc, "/guest-orders/") || !strings.Contains(loc, "key=") {
		t.Fatalf("a guest's order went to %q, want its signed link", loc)
	}
	return loc
}

// boardPages sets up a thread of replies on article 1, an article and a
// comment of the admin's (editable for 15 minutes), and a report the
// admin sends from its form, and returns the pages that show them.
func boardPages(t *testing.T, app *browserApp, admin *e2eTab) []string {
	t.Helper()
	ctx := t.Context()
	st := app.Store
	me, err := st.Sessions.UserByName(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	ada, err := st.Sessions.UserByName(ctx, "ada")
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Board.AddComment(ctx, 1, ada.ID, ada.Username, "Which wax did you use?")
	if err != nil {
		t.Fatal(err)
	}
	mine, err := st.Board.AddReply(ctx, 1, me.ID, me.Username, "The shop's own, https://example.com/wax", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	own, err := st.Board.PostArticle(ctx, board.NewArticle{Title: "Notes from the shop", Body: "New stock on Friday.\n\nAsk us anything.",
		PosterID: me.ID, Poster: me.Username, Groups: []string{"products"}})
	if err != nil {
		t.Fatal(err)
	}
	admin.navigate("/comments/" + board.CommentRef(1, c.ID) + "/report")
	admin.click(`[data-testid=report-form] input[value=spam]`)
	admin.click(`[data-testid=report-form] button[type=submit]`)
	admin.waitFor(`[data-testid=flash]`)
	return []string{"/articles/" + itoaE2E(own.ID), "/articles/" + itoaE2E(own.ID) + "/edit",
		"/comments/" + board.CommentRef(1, mine.ID) + "/edit", "/articles/1/report"}
}

// setLogo makes a w x h picture the shop's logo, as the settings page's
// upload does, through the app's own stores; the app hears of it as
// another instance would.
func setLogo(t *testing.T, app *browserApp, w, h int) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), 80, uint8(y * 255 / h), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	pic, err := app.Store.Media.ProcessImage(ctx, buf.Bytes(), 10<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Store.Media.StoreImage(ctx, pic); err != nil {
		t.Fatal(err)
	}
	logo := merchant.Logo{Hash: pic.Hash}
	for _, r := range pic.Renditions {
		logo.Sizes = append(logo.Sizes, merchant.LogoSize{Width: r.Width, Height: r.Height, Ext: r.Ext})
	}
	if _, err := app.Store.Merchant.SetLogo(ctx, logo); err != nil {
		t.Fatal(err)
	}
}
