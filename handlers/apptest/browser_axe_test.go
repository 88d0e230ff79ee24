package apptest_test

import (
	_ "embed"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
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
// fails the test with the rule and the elements.
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
