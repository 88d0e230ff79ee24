package apptest_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"storefront/handlers/apptest"
	"storefront/store/storetest"
)

func processGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// A zombie (state Z) has exited; it only waits to be reaped.
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	apptest.Eventually(t, fmt.Sprintf("redis-server %d exits with the app", pid), func() bool { return processGone(pid) })
}

func TestEmbeddedRedisDiesWithApp(t *testing.T) {
	storetest.OnePass(t) // its own servers: nothing to learn from a second backend
	t.Parallel()         // the app embeds a Redis of its own
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed: the embedded mode cannot start here")
	}
	for _, how := range []string{"SIGKILL", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			p := apptest.Start(t, map[string]string{"DATA_DIR": dir, "REDIS_URL": "", "ADMIN_PASSWORD": "x"})
			res, err := http.Get(p.URL + "/readyz")
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("readyz: %v %v", err, res)
			}
			res.Body.Close()
			if _, err := os.Stat(dir + "/redis/appendonlydir"); err != nil {
				if _, err2 := os.Stat(dir + "/redis/appendonly.aof"); err2 != nil {
					t.Errorf("no append-only file under DATA_DIR: %v", err)
				}
			}
			pid := findChild(t, p.Pid())
			sig := syscall.SIGKILL
			if how == "SIGTERM" {
				sig = syscall.SIGTERM
			}
			_ = p.Signal(sig)
			if err := p.Wait(); how == "SIGTERM" && err != nil {
				t.Errorf("exit after SIGTERM: %v, want 0", err)
			}
			waitGone(t, pid)
		})
	}
}

// findChild returns the pid of the app's redis-server child.
func findChild(t *testing.T, parent int) int {
	t.Helper()
	out, err := exec.Command("pgrep", "-P", strconv.Itoa(parent), "redis-server").Output()
	if err != nil {
		t.Fatalf("no redis-server child of %d: %v", parent, err)
	}
	pid, _ := strconv.Atoi(strings.Fields(string(out))[0])
	return pid
}

// TestDemoPicturesKeptBetweenStarts: the first start of a program draws
// the demo pictures and keeps them in the user's cache directory; the
// next start of the same program, on an empty database, reads them back
// instead of drawing, and seeds the same pictures.
func TestDemoPicturesKeptBetweenStarts(t *testing.T) {
	storetest.OnePass(t) // its own servers: nothing to learn from a second backend
	t.Parallel()         // and its own cache directory
	cache := t.TempDir()
	seeded := func() map[string]any {
		app := apptest.Start(t, map[string]string{"XDG_CACHE_HOME": cache})
		lines := app.Logged("seeded demo pictures")
		if len(lines) != 1 {
			t.Fatalf("%d \"seeded demo pictures\" lines; logs:\n%s", len(lines), app.Logs())
		}
		pic := apptest.NewClient(t, app.URL).MustGet("/items/1", 200)
		if err := app.Stop(); err != nil {
			t.Fatal(err)
		}
		lines[0]["picture"] = firstMedia(pic.Body)
		return lines[0]
	}
	first, second := seeded(), seeded()
	if first["drawn"] != true || second["drawn"] != false {
		t.Errorf("drawn: first start %v, second %v; want true, then false (read from the cache)", first["drawn"], second["drawn"])
	}
	if first["pictures"] != second["pictures"] || first["picture"] == "" || first["picture"] != second["picture"] {
		t.Errorf("first start seeded %v pictures (item 1: %v), the second %v (%v)", first["pictures"], first["picture"], second["pictures"], second["picture"])
	}
}

// firstMedia is the first /media/ address in a page.
func firstMedia(body string) string {
	i := strings.Index(body, "/media/")
	if i < 0 {
		return ""
	}
	end := strings.IndexAny(body[i:], "\" ,")
	if end < 0 {
		return ""
	}
	return body[i : i+end]
}
