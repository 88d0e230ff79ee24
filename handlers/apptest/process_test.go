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
	t.Parallel() // the app embeds a Redis of its own
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
