package apptest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"storefront/handlers/apptest"
	"storefront/store/board"
)

// TestBrowserReplies: at 390 px without JavaScript and at 1280 px with
// it, a reader opens a comment's folded Reply box (a <details>: no script
// needed), posts a reply and finds it under the comment, with the edit
// link its author gets; the article's text shows as paragraphs with its
// link, the page fits the screen, and on the phone the Reply summary is a
// full-size tap target.
func TestBrowserReplies(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, nil)
	ctx := t.Context()
	ann, err := app.Store.Sessions.CreateUser(ctx, "ann", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.Sessions.CreateUser(ctx, "carl", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	a, err := app.Store.Board.PostArticle(ctx, board.NewArticle{Title: "Re-waxing a canvas jacket", PosterID: ann.ID, Poster: ann.Username,
		Body: "Warm the wax first.\n\nThe bar I used: https://example.com/wax-bar-with-a-rather-long-address-that-must-wrap-on-a-phone", Groups: []string{"care"}})
	if err != nil {
		t.Fatal(err)
	}
	page := "/articles/" + itoaE2E(a.ID)
	for _, run := range []struct {
		width int64
		js    bool
	}{{390, false}, {1280, true}} {
		t.Run(fmt.Sprintf("%dpx js=%v", run.width, run.js), func(t *testing.T) {
			c, err := app.Store.Board.AddComment(ctx, a.ID, ann.ID, ann.Username, "Which wax works best?")
			if err != nil {
				t.Fatal(err)
			}
			tab := b.freshTab(t, app)
			if !run.js {
				tab.disableScripts()
			}
			tab.navigate("/login")
			tab.fill("#username", "carl")
			tab.fill("#password", "correct horse battery")
			tab.click(`form[action="/login"] button[type=submit]`)
			tab.waitFor(`[data-testid=user-name]`)
			// The phone's menu folds the header's name away: sign in first.
			if run.width == 390 {
				tab.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
			} else {
				tab.do("viewport", chromedp.EmulateViewport(1280, 900))
			}
			tab.navigate(page)
			if got := tab.count(`[data-testid=article-body] p`); got != 2 {
				t.Errorf("the article's text shows in %d paragraphs, want 2", got)
			}
			if rel := tab.attr(`[data-testid=article-body] a`, "rel"); rel != "nofollow ugc noopener" {
				t.Errorf("the text's link has rel %q", rel)
			}
			box := fmt.Sprintf("#comment-%d", c.ID)
			form := box + ` form[data-testid=comment-reply]`
			if shown(tab, form) {
				t.Fatal("the reply form shows before the Reply box is opened")
			}
			if run.width == 390 {
				if h := eval[float64](tab, `document.querySelector('`+box+` details.reply > summary').getBoundingClientRect().height`); h < 44 {
					t.Errorf("the Reply summary is %.0f px tall on a phone, want 44 or more", h)
				}
			}
			tab.click(box + ` details.reply > summary`)
			tab.waitUntil("the reply form opens", e2eStepTimeout, func() (bool, string, error) {
				return shown(tab, form), "folded", nil
			})
			tab.typeInto(fmt.Sprintf("#reply-%d", c.ID), "The shop's own blend, warmed.")
			tab.click(form + ` button[type=submit]`)
			reply := box + ` ol.replies [data-testid=comment]`
			tab.waitFor(reply)
			if got := tab.text(reply + ` .comment-body`); got != "The shop's own blend, warmed." {
				t.Errorf("the reply reads %q", got)
			}
			if tab.count(reply+` [data-testid=comment-edit-link]`) != 1 {
				t.Error("the reply's author has no edit link")
			}
			if !strings.HasPrefix(tab.path(), page) {
				t.Errorf("after the reply the browser is at %s", tab.path())
			}
			if wide := tooWide(tab); wide != "" {
				t.Errorf("%d px: the article is wider than the screen: %s", run.width, wide)
			}
			tab.screenshot(fmt.Sprintf("replies-%d", run.width))
		})
	}
}
