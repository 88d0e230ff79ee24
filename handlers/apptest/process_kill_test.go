package apptest_test

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"storefront/handlers/apptest"
	"storefront/store/storetest"
)

// TestEmbeddedRedisKeepsCartAcrossKills: a guest adds a line and the
// app's redis-server child is killed with SIGKILL at once, round after
// round (KILL_ROUNDS, default 20). Every answer to /cart while the child
// is down or reloading is a 503, and the first 200 after the restart shows
// the line the guest was told was added (the 303 is a promise): a write
// acknowledged to the shopper has reached the append-only file before the
// answer, and no read answers from a server still loading it.
func TestEmbeddedRedisKeepsCartAcrossKills(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed: the embedded mode cannot start here")
	}
	storetest.OnePass(t) // its own servers: nothing to learn from a second backend
	t.Parallel()         // and nothing shared with other tests
	rounds := 20
	if v := os.Getenv("KILL_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("KILL_ROUNDS: want a whole number >= 1, got %q", v)
		}
		rounds = n
	}
	dataDir := t.TempDir()
	app := apptest.Start(t, map[string]string{"REDIS_URL": "", "REDIS_CLUSTER_ADDRS": "", "DATABASE_URL": "",
		"REQUEST_TIMEOUT": "2s", "DATA_DIR": dataDir})
	next := 0
	for round := range rounds {
		// A new guest each round, as in the report: its session and its
		// line are the writes made just before the kill.
		c := apptest.NewClient(t, app.URL)
		item, until := "", time.Now().Add(apptest.PollDeadline)
		for item == "" {
			if time.Now().After(until) {
				t.Fatalf("round %d: no item could be added within %v", round, apptest.PollDeadline)
			}
			next++
			id := strconv.Itoa(next%50 + 2)
			res := c.Post("/cart", url.Values{"item": {id}, "qty": {"1"}})
			switch {
			case res.Status == 303:
				item = id
			case res.Status == 503: // the last round's restart still settling: nothing was promised
				next--
				time.Sleep(20 * time.Millisecond)
			case res.Status != 422: // 422: sold out in the demo catalog; try the next one
				t.Fatalf("round %d: adding item %s: %d", round, id, res.Status)
			}
		}
		child := findChild(t, app.Pid())
		if err := syscall.Kill(child, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		var first apptest.Response
		deadline := time.Now().Add(apptest.PollDeadline)
		for {
			res, err := c.Try("GET", "/cart", nil)
			if err == nil && res.Status == 200 {
				first = res
				break
			}
			if err == nil && res.Status != 503 {
				t.Fatalf("round %d: /cart answered %d while the child restarted, want 503 or 200", round, res.Status)
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: no 200 from /cart after %v (last: %v %d)", round, apptest.PollDeadline, err, res.Status)
			}
			time.Sleep(5 * time.Millisecond)
		}
		ids := apptest.AttrsOf(first.Body, "cart-line", "data-item-id")
		if len(ids) != 1 || ids[0] != item {
			logged, _ := os.ReadFile(filepath.Join(dataDir, "redis", "redis.log"))
			t.Logf("redis.log:\n%s\napp:\n%s", tail(string(logged)), tail(app.Logs()))
			t.Fatalf("round %d: the first 200 from /cart after SIGKILL shows lines %v, want item %s\n%s", round, ids, item, tail(first.Body))
		}
		apptest.Eventually(t, fmt.Sprintf("round %d: a new redis-server child", round), func() bool {
			out, _ := exec.Command("pgrep", "-P", strconv.Itoa(app.Pid()), "redis-server").Output()
			f := strings.Fields(string(out))
			return len(f) == 1 && f[0] != strconv.Itoa(child)
		})
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
