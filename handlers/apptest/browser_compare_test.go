package apptest_test

// What a script shows against what the server renders. A script that
// changes a page in place (a variant chosen, a cart line changed, a
// delivery method picked, a vote) must leave it as the server would render
// it: these helpers read what a person sees of a part of the page (the
// visible text, the values of its fields) as one JSON string, in a tab
// whose scripts ran and in one with JavaScript off, at the two screen
// widths every such flow is tried at.

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// screen is a width a script-driven flow is tried at.
type screen struct {
	name          string
	width, height int64
	mobile        bool
}

// screens are a phone's and a laptop's.
var screens = []screen{{"390px", 390, 844, true}, {"1280px", 1280, 900, false}}

// size gives the tab the screen's size (a phone's touch and scale too).
func (tb *e2eTab) size(s screen) {
	tb.t.Helper()
	opts := []chromedp.EmulateViewportOption{}
	if s.mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	tb.do("set the screen to "+s.name, chromedp.EmulateViewport(s.width, s.height, opts...))
}

// plainTab opens another tab in tb's browser context (the same cookies,
// so the same cart) with JavaScript off, at the screen's size: what the
// server renders, and what a visitor without JavaScript sees.
func (tb *e2eTab) plainTab(t *testing.T, s screen) *e2eTab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(tb.ctx) // a new tab in tb's browser context
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("open a tab without JavaScript: %v", err)
	}
	plain := &e2eTab{t: t, ctx: ctx, app: tb.app}
	plain.disableScripts()
	plain.size(s)
	return plain
}

// shownJS defines, in an expression, helpers for the state readers: shown
// (rendered and not hidden), text (an element's visible text, "" when not
// shown, white space folded) and val (a field's value).
const shownJS = `const shown = e => !!e && e.checkVisibility({opacityProperty: true, visibilityProperty: true});
	const fold = s => s.replace(/\s+/g, " ").trim();
	const text = (sel, root) => { const e = (root || document).querySelector(sel); return shown(e) ? fold(e.innerText) : ""; };
	const val = (sel, root) => { const e = (root || document).querySelector(sel); return e ? String(e.value) : ""; };
	const attr = (sel, name, root) => { const e = (root || document).querySelector(sel); return e ? e.getAttribute(name) || "" : ""; };`

// stateJS wraps a state reader's body (an expression of an object, which
// may use shownJS's helpers) into JavaScript that returns it as JSON.
func stateJS(body string) string {
	return fmt.Sprintf("(() => { %s\n return JSON.stringify(%s); })()", shownJS, body)
}

// sameAsServer checks that what live shows (the reader js, after its
// scripts ran) is what the server renders at path with JavaScript off,
// read the same way in plain; it returns the live state.
func sameAsServer(t *testing.T, live, plain *e2eTab, path, js, what string) string {
	t.Helper()
	got := eval[string](live, js)
	plain.navigate(path)
	want := eval[string](plain, js)
	if got != want {
		t.Errorf("%s: the page shows, after its scripts ran:\n\t%s\nthe server renders %s with JavaScript off:\n\t%s", what, got, path, want)
	}
	return got
}

// choose picks a value in a select as a person does: the value changes,
// then a change event bubbles up (which the page's scripts listen to).
func (tb *e2eTab) choose(sel, value string) {
	tb.t.Helper()
	js := fmt.Sprintf(`(() => { const s = document.querySelector(%q); if (!s) return false; s.value = %q;
		s.dispatchEvent(new Event("input", {bubbles: true})); s.dispatchEvent(new Event("change", {bubbles: true})); return s.value === %q; })()`, sel, value, value)
	if !eval[bool](tb, js) {
		tb.failed("choose "+value+" in "+sel, fmt.Errorf("no such select or value"))
	}
}
