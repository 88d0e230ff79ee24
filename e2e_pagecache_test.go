package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"storefront/store"
	"storefront/store/storetest"
)

const pcChromiumPath = "/usr/bin/chromium"

// e2eApp starts the whole program with run() on a clean Redis of this
// run's backend and a SQLite file, and returns its URL.
func startPageCacheApp(t *testing.T, env map[string]string) (string, redis.UniversalClient, string) {
	t.Helper()
	rdb := storetest.Redis(t)
	dir := t.TempDir()
	vars := map[string]string{"ADDR": "127.0.0.1:0", "DATA_DIR": dir, "ADMIN_PASSWORD": storetest.AdminPassword, "COOKIE_SECURE": "false"}
	switch storetest.Backend() {
	case store.ModeMiniredis:
		vars["REDIS_URL"] = "redis://" + storetest.Miniredis(t).Addr()
	case store.ModeSingle:
		vars["REDIS_URL"] = os.Getenv("REDIS_URL")
	case store.ModeCluster:
		vars["REDIS_CLUSTER_ADDRS"] = os.Getenv("REDIS_CLUSTER_ADDRS")
	}
	for k, v := range env {
		vars[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- run(ctx, func(k string) string { return vars[k] }, storetest.Logger(t), ready) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	select {
	case addr := <-ready:
		return "http://" + addr, rdb, dir
	case err := <-done:
		t.Fatalf("run: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the app did not start")
	}
	return "", nil, ""
}

// browser starts headless Chromium; it skips without one unless E2E=1.
func pcBrowser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(pcChromiumPath); err != nil {
		if os.Getenv("E2E") == "1" {
			t.Fatalf("E2E=1 but no Chromium at %s", pcChromiumPath)
		}
		t.Skip("no Chromium; set E2E=1 to require it")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(pcChromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser, without a deadline
		t.Fatal(err)
	}
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelT)
	return ctx
}

// TestE2ECachedPageIsPersonalAndLive: a popular item page served from the
// page cache (gzip segments with holes) still shows the signed-in
// shopper's name and cart count, and live.js brings the live stock.
func TestE2ECachedPageIsPersonalAndLive(t *testing.T) {
	ctx := pcBrowser(t)
	base, rdb, dir := startPageCacheApp(t, map[string]string{"PAGE_CACHE_TOP": "100"})
	item := base + "/items/15"
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/register"),
		chromedp.SendKeys(chromedp.ID("username"), "e2e_shopper"),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse battery"),
		chromedp.Submit(chromedp.ID("username")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=user-name]`)),
		chromedp.Navigate(item), // unranked until this first view
		chromedp.Navigate(item), // popular now: rendered and stored
	)
	if err != nil {
		t.Fatal(err)
	}
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	var sid string
	for _, c := range cookies.Cookies {
		if c.Name == "sid" {
			sid = c.Value
		}
	}
	if sid == "" {
		t.Fatal("no session cookie")
	}
	// The cart (another feature) holds two lines, 3 units; the stock drops in the
	// database behind the cached page's back, as during a sale.
	if err := rdb.HSet(ctx, "cart:"+sid, "3", 2, "4", 1).Err(); err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenDB(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `UPDATE items SET stock = 3 WHERE id = 15`); err != nil {
		t.Fatal(err)
	}

	res, err := chromedp.Run(ctx, chromedp.NavigateResponse(item))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Headers["X-Cache"]); got != "HIT" {
		t.Errorf("the item page was %q, want a cache HIT", got)
	}
	if got := fmt.Sprint(res.Headers["Content-Encoding"]); got != "gzip" {
		t.Errorf("Content-Encoding %q, want the stored gzip", got)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid=item-stock][data-live="1"]`))); err != nil {
		t.Fatal(err)
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return strings.TrimSpace(v)
	}
	if name, cart := text(`[data-testid=user-name]`), text(`[data-testid=cart-count]`); name != "e2e_shopper" || cart != "3" {
		t.Errorf("header shows %q with cart %q, want e2e_shopper and 3 (2+1)", name, cart)
	}
	if stock := text(`[data-testid=item-stock]`); stock != "Only 3 left" {
		t.Errorf("live stock %q, want %q", stock, "Only 3 left")
	}
	if footer := text(`.site-footer`); !strings.Contains(footer, "Storefront") {
		t.Error("the gzip page did not decode to its end in the browser")
	}
	if _, err := os.Stat(filepath.Join(dir, "shop.db")); err != nil {
		t.Error(err)
	}
}
