package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"storefront/store"
	"storefront/store/storetest"
)

// TestArticleVotingE2E drives Chromium against the whole app: vote up,
// switch to down and take the vote back, with JavaScript (the score
// changes in place) and without (each vote is a post/redirect/get).
func TestArticleVotingE2E(t *testing.T) {
	browser := startArticlesBrowser(t)
	baseURL := startArticlesApp(t)
	for _, js := range []bool{true, false} {
		t.Run(fmt.Sprintf("js=%v", js), func(t *testing.T) {
			tab, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
			defer cancel()
			tab, cancelTimeout := context.WithTimeout(tab, 90*time.Second)
			defer cancelTimeout()
			testArticleVotingInBrowser(t, tab, baseURL, js)
		})
	}
}

// testArticleVotingInBrowser registers a reader, posts an article (which
// carries the poster's up vote), then takes that vote back, votes up,
// switches to down and takes it back, checking the article's hooks and
// shown points after each step.
func testArticleVotingInBrowser(t *testing.T, tab context.Context, baseURL string, js bool) {
	name := "e2e_nojs"
	if js {
		name = "e2e_js"
	}
	if !js {
		if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
	}
	err := chromedp.Do(tab,
		chromedp.Navigate(baseURL+"/register"),
		chromedp.SendKeys(chromedp.ID("username"), name),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`form[action="/register"] button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="user-name"]`)),
		chromedp.Navigate(baseURL+"/articles/new"),
		chromedp.SendKeys(chromedp.ID("title"), "Voting in the browser "+name),
		chromedp.SendKeys(chromedp.ID("link"), "https://example.com/"+name),
		chromedp.Click(chromedp.CSS(`input[name="groups"][value="redis"]`)),
		chromedp.Click(chromedp.CSS(`form[action="/articles"] button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-testid="article"]`)),
	)
	if err != nil {
		t.Fatalf("register and post: %v", err)
	}
	start := readArticleState(t, tab)
	if start.myVote != "up" || start.points != "1" {
		t.Fatalf("new article: %+v, want the poster's up vote", start)
	}
	posted := start.score - 432
	if js {
		if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`window.e2eMarker = "still here"`)); err != nil {
			t.Fatal(err)
		}
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
		sel := chromedp.CSS(`li[data-testid="article"] button[data-testid="` + s.button + `"]`)
		if err := chromedp.Do(tab, chromedp.Click(sel)); err != nil {
			t.Fatalf("click %s: %v", s.button, err)
		}
		got := waitArticleState(t, tab, s.myVote)
		if got.points != s.points || got.score != posted+s.delta {
			t.Fatalf("after %s: %+v, want my vote %s, %s points, score time%+v", s.button, got, s.myVote, s.points, s.delta)
		}
	}
	// With JavaScript the page never reloaded; without, each vote came back
	// through the redirect to the article's row.
	loc, err := chromedp.Run(tab, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if js {
		marker, err := chromedp.Run(tab, chromedp.Evaluate[string](`window.e2eMarker || ""`))
		if err != nil || marker != "still here" || strings.Contains(loc, "#article-") {
			t.Fatalf("the page reloaded instead of updating in place (%q, %q, %v)", loc, marker, err)
		}
	} else if !strings.Contains(loc, "#article-") {
		t.Fatalf("without JavaScript the browser is at %q, not back from a vote", loc)
	}
}

// articleState is what the article row shows.
type articleState struct {
	myVote, points string
	score          float64
}

func readArticleState(t *testing.T, tab context.Context) articleState {
	t.Helper()
	st, err := tryReadArticleState(tab)
	if err != nil {
		t.Fatalf("read the article: %v", err)
	}
	return st
}

func tryReadArticleState(tab context.Context) (articleState, error) {
	row := chromedp.CSS(`li[data-testid="article"]`)
	myVote, err := chromedp.Run(tab, chromedp.AttributeValue(row, "data-my-vote"))
	if err != nil {
		return articleState{}, err
	}
	score, err := chromedp.Run(tab, chromedp.AttributeValue(row, "data-score"))
	if err != nil {
		return articleState{}, err
	}
	points, err := chromedp.Run(tab, chromedp.TextContent(chromedp.CSS(`li[data-testid="article"] .points`)))
	if err != nil {
		return articleState{}, err
	}
	st := articleState{myVote: myVote.Value, points: strings.TrimSpace(points)}
	st.score, err = strconv.ParseFloat(score.Value, 64)
	return st, err
}

// waitArticleState reads the article until it shows myVote: with
// JavaScript the row updates after the fetch; without, after the redirect
// (reads may fail while the next page loads).
func waitArticleState(t *testing.T, tab context.Context, myVote string) articleState {
	t.Helper()
	var st articleState
	var err error
	for range 100 {
		if st, err = tryReadArticleState(tab); err == nil && st.myVote == myVote {
			return st
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the article never showed my vote %q: %+v (%v)", myVote, st, err)
	return st
}

// startArticlesBrowser starts headless Chromium, or skips the test when
// there is none (unless E2E=1 asks for browser tests).
func startArticlesBrowser(t *testing.T) context.Context {
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("E2E") != "" {
			t.Fatalf("E2E is set but %s is missing", chromium)
		}
		t.Skip("no Chromium; set E2E=1 to require it")
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	if err := chromedp.Do(browser); err != nil {
		cancelAlloc()
		t.Fatalf("start Chromium: %v", err)
	}
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	return browser
}

// startArticlesApp runs the app through run() on a free port, on the
// current test backend's Redis (flushed first) and a fresh SQLite file.
func startArticlesApp(t *testing.T) string {
	storetest.Redis(t)
	env := map[string]string{
		"ADDR":           "127.0.0.1:0",
		"DATA_DIR":       t.TempDir(),
		"ADMIN_PASSWORD": storetest.AdminPassword,
	}
	switch storetest.Backend() {
	case store.ModeSingle:
		env["REDIS_URL"] = os.Getenv("REDIS_URL")
	case store.ModeCluster:
		env["REDIS_CLUSTER_ADDRS"] = os.Getenv("REDIS_CLUSTER_ADDRS")
	}
	var out io.Writer = io.Discard
	if os.Getenv("STORETEST_LOG") != "" {
		out = os.Stderr
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() {
		done <- run(ctx, func(k string) string { return env[k] }, slog.New(slog.NewTextHandler(out, nil)), ready)
	}()
	select {
	case addr := <-ready:
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("app stopped: %v", err)
			}
		})
		return "http://" + addr
	case err := <-done:
		cancel()
		t.Fatalf("app did not start: %v", err)
	case <-time.After(2 * time.Minute):
		cancel()
		t.Fatal("app did not start in time")
	}
	return ""
}
