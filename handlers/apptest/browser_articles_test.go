package apptest_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"storefront/handlers/apptest"
)

// TestArticleVotingE2E drives Chromium against the whole app: vote up,
// switch to down and take the vote back, with JavaScript (the score
// changes in place) and without (each vote is a post/redirect/get).
func TestArticleVotingE2E(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, nil)
	for _, js := range []bool{true, false} {
		t.Run(fmt.Sprintf("js=%v", js), func(t *testing.T) {
			testArticleVotingInBrowser(t, b.freshTab(t, app), js) // a reader of its own
		})
	}
}

// testArticleVotingInBrowser registers a reader, posts an article (which
// carries the poster's up vote), then takes that vote back, votes up,
// switches to down and takes it back, checking the article's hooks and
// shown points after each step.
func testArticleVotingInBrowser(t *testing.T, tb *e2eTab, js bool) {
	name := "e2e_nojs"
	if js {
		name = "e2e_js"
	} else {
		tb.disableScripts()
	}
	tb.navigate("/register")
	tb.typeInto("#username", name)
	tb.typeInto("#password", "correct horse battery")
	tb.typeInto("#email", apptest.Email(name))
	tb.click(`form[action="/register"] button[type="submit"]`)
	tb.waitFor(`[data-testid="user-name"]`)
	tb.navigate("/articles/new")
	tb.typeInto("#title", "Voting in the browser "+name)
	tb.typeInto("#link", "https://example.com/"+name)
	tb.click(`input[name="groups"][value="making"]`)
	tb.click(`form[action="/articles"] button[type="submit"]`)
	tb.waitFor(`li[data-testid="article"]`)

	id := tb.attr(`li[data-testid="article"]`, "data-article-id")
	start := waitArticleState(tb, "up")
	if start.myVote != "up" || start.points != "1" {
		t.Fatalf("new article: %+v, want the poster's up vote", start)
	}
	posted := start.score - 432
	if js {
		eval[string](tb, `window.e2eMarker = "still here"`)
		tb.screenshot("article")
	}
	steps := []struct {
		button, myVote, points string
		delta                  float64
	}{
		{"vote-up", "none", "0", 0},       // the pressed up button takes the vote back
		{"vote-up", "up", "1", 432},       // vote up
		{"vote-down", "down", "-1", -432}, // switch to down
		{"vote-down", "none", "0", 0},     // take it back
	}
	for _, s := range steps {
		tb.click(`li[data-testid="article"] button[data-testid="` + s.button + `"]`)
		got := waitArticleState(tb, s.myVote)
		if got.points != s.points || got.score != posted+s.delta {
			t.Fatalf("after %s: %+v, want my vote %s, %s points, score time%+v", s.button, got, s.myVote, s.points, s.delta)
		}
	}
	// With JavaScript the page never reloaded; without, each vote came back
	// through the redirect to the article's row.
	loc := eval[string](tb, "location.href")
	if js {
		if marker := eval[string](tb, `window.e2eMarker || ""`); marker != "still here" || strings.Contains(loc, "#article-") {
			t.Fatalf("the page reloaded instead of updating in place (%q, %q)", loc, marker)
		}
	} else if !strings.Contains(loc, "#article-") {
		t.Fatalf("without JavaScript the browser is at %q, not back from a vote", loc)
	}
	// The board's newest article is this one, without my vote.
	tb.navigate("/articles?sort=new")
	newest := `li[data-testid="article"]`
	if got, vote := tb.attr(newest, "data-article-id"), tb.attr(newest, "data-my-vote"); got != id || vote != "none" {
		t.Errorf("the newest article is %s with my vote %q, want %s with none", got, vote, id)
	}
	if js {
		tb.screenshot("articles")
	} else {
		tb.screenshot("articles-nojs")
	}
}

// articleState is what the first article row shows.
type articleState struct {
	myVote, points string
	score          float64
}

// readArticleStateJS reads the first article row of a loaded page, as
// JSON, or null while the page is loading or has no article.
const readArticleStateJS = `(() => {
	const row = document.querySelector('li[data-testid="article"]');
	if (document.readyState === "loading" || !row) return null;
	const points = row.querySelector(".points");
	return JSON.stringify({myVote: row.getAttribute("data-my-vote"), score: row.getAttribute("data-score"),
		points: points ? points.textContent.trim() : ""});
})()`

// waitArticleState waits until the article shows myVote and returns what
// it shows: with JavaScript the row updates after the fetch; without,
// after the redirect.
func waitArticleState(tb *e2eTab, myVote string) articleState {
	tb.t.Helper()
	var st articleState
	tb.waitUntil("wait for my vote "+myVote+" on the article", e2eStepTimeout, func() (bool, string, error) {
		raw, err := peek[*string](tb, readArticleStateJS)
		if err != nil || raw == nil {
			return false, "no article yet", err
		}
		var v struct{ MyVote, Score, Points string }
		if err := json.Unmarshal([]byte(*raw), &v); err != nil {
			return false, *raw, err
		}
		score, err := strconv.ParseFloat(v.Score, 64)
		if err != nil {
			return false, *raw, err
		}
		st = articleState{myVote: v.MyVote, points: v.Points, score: score}
		return st.myVote == myVote, *raw, nil
	})
	return st
}
