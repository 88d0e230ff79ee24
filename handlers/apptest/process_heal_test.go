package apptest_test

import (
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"storefront/handlers/apptest"
	"storefront/store/storetest"
)

// TestEmbeddedRedisHeals: the app's own redis-server child is killed
// (kill -9) and later frozen (SIGSTOP); each time the app restarts it from
// its append-only file and serves again, with the cart made before, and
// says so in one log line. /healthz stays OK (the app can heal). On
// SIGTERM /readyz says 503 while the server still answers, then it exits.
func TestEmbeddedRedisHeals(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed: the embedded mode cannot start here")
	}
	storetest.OnePass(t) // its own servers: nothing to learn from a second backend
	t.Parallel()         // and nothing shared with other tests
	app := apptest.Start(t, map[string]string{"REDIS_URL": "", "REDIS_CLUSTER_ADDRS": "", "DATABASE_URL": "",
		"DRAIN_DELAY": "3s", "REQUEST_TIMEOUT": "2s"})
	c := apptest.NewClient(t, app.URL)
	c.MustPost("/cart", url.Values{"item": {"2"}, "qty": {"3"}}, 303)
	hasCart := func() bool {
		res, err := c.Try("GET", "/cart", nil)
		return err == nil && res.Status == 200 && strings.Contains(res.Body, `data-testid="cart-line"`)
	}
	if !hasCart() {
		t.Fatal("no cart before the fault")
	}
	for i, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGSTOP} {
		child := findChild(t, app.Pid())
		if err := syscall.Kill(child, sig); err != nil {
			t.Fatal(err)
		}
		apptest.Eventually(t, "a new redis-server child", func() bool {
			out, _ := exec.Command("pgrep", "-P", strconv.Itoa(app.Pid()), "redis-server").Output()
			f := strings.Fields(string(out))
			return len(f) == 1 && f[0] != strconv.Itoa(child)
		})
		apptest.Eventually(t, "the cart after "+sig.String(), hasCart)
		if res := c.Get("/healthz"); res.Status != 200 {
			t.Errorf("healthz after healing: %d", res.Status)
		}
		// The log is read by another goroutine: wait for the line, then
		// check there is exactly one per fault.
		apptest.Eventually(t, "the restart log line", func() bool { return len(app.Logged("redis-server child restarted")) >= i+1 })
		if n := len(app.Logged("redis-server child exited; restarting it")); n != i+1 {
			t.Errorf("after %s: %d restart lines, want %d", sig, n, i+1)
		}
	}
	if n := len(app.Logged("redis-server did not answer; killing it")); n != 1 {
		t.Errorf("%d watchdog lines for the frozen child, want 1", n)
	}
	// SIGTERM: not ready at once, then a clean exit.
	if err := app.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	apptest.Eventually(t, "readyz 503 while draining", func() bool {
		res, err := c.Try("GET", "/readyz", nil)
		return err == nil && res.Status == 503
	})
	if res := c.Get("/items/1"); res.Status != 200 {
		t.Errorf("a page while draining: %d", res.Status)
	}
	if err := app.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
}
