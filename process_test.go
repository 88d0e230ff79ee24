package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// appProcess is the shop running as a child process.
type appProcess struct {
	cmd   *exec.Cmd
	addr  string
	logs  chan map[string]any
	exitC chan error
	mu    sync.Mutex
	// handled is the status the app logged for each request id.
	handled map[string]int
	// lines are the other log lines, in order.
	lines []map[string]any
}

// startProcess starts the app in a child process with env and waits for it
// to listen.
func startProcess(t *testing.T, env ...string) *appProcess {
	t.Helper()
	// TestMain runs main() instead of the tests when it sees
	// STOREFRONT_HELPER_PROCESS.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STOREFRONT_HELPER_PROCESS=1", "ADDR=127.0.0.1:0")
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &appProcess{cmd: cmd, logs: make(chan map[string]any, 1000), exitC: make(chan error, 1), handled: map[string]int{}}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			// Request lines are kept apart: under load they would fill
			// the channel and crowd out the lines tests wait for.
			if m["msg"] == "request" {
				id, _ := m["id"].(string)
				st, _ := m["status"].(float64)
				p.mu.Lock()
				p.handled[id] = int(st)
				p.mu.Unlock()
				continue
			}
			p.mu.Lock()
			p.lines = append(p.lines, m)
			p.mu.Unlock()
			select {
			case p.logs <- m:
			default:
			}
		}
		close(p.logs)
	}()
	// Wait closes the pipe: it must come after the last line is read.
	go func() { <-read; p.exitC <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	m := p.waitLog(t, "storefront listening")
	p.addr = m["addr"].(string)
	return p
}

// waitLog returns the first log line with msg, failing after 2 minutes
// (start-up under -race on a busy machine is slow; this is no timing test).
func (p *appProcess) waitLog(t *testing.T, msg string) map[string]any {
	t.Helper()
	deadline := time.After(120 * time.Second)
	for {
		select {
		case m, ok := <-p.logs:
			if !ok {
				p.mu.Lock()
				last := p.lines[max(0, len(p.lines)-5):]
				p.mu.Unlock()
				t.Fatalf("app exited before logging %q; its last lines: %v", msg, last)
			}
			if m["msg"] == msg {
				return m
			}
		case <-deadline:
			t.Fatalf("no %q log line", msg)
		}
	}
}

// handledRequests returns the status the app logged for each request id.
func (p *appProcess) handledRequests() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.handled)
}

// logged returns the log lines so far whose msg is msg.
func (p *appProcess) logged(msg string) []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []map[string]any
	for _, m := range p.lines {
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

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
	for i := 0; i < 100; i++ {
		if processGone(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("redis-server %d outlived the app", pid)
}

func TestEmbeddedRedisDiesWithApp(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed: the embedded mode cannot start here")
	}
	for _, how := range []string{"SIGKILL", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			p := startProcess(t, "DATA_DIR="+dir, "REDIS_URL=", "REDIS_CLUSTER_ADDRS=", "DATABASE_URL=", "ADMIN_PASSWORD=x")
			res, err := http.Get("http://" + p.addr + "/readyz")
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("readyz: %v %v", err, res)
			}
			res.Body.Close()
			if _, err := os.Stat(dir + "/redis/appendonlydir"); err != nil {
				if _, err2 := os.Stat(dir + "/redis/appendonly.aof"); err2 != nil {
					t.Errorf("no append-only file under DATA_DIR: %v", err)
				}
			}
			pid := findChild(t, p.cmd.Process.Pid)
			sig := syscall.SIGKILL
			if how == "SIGTERM" {
				sig = syscall.SIGTERM
			}
			_ = p.cmd.Process.Signal(sig)
			select {
			case err := <-p.exitC:
				if how == "SIGTERM" && err != nil {
					t.Errorf("exit after SIGTERM: %v, want 0", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("app did not exit within 10 s")
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

func TestRunFallsBackToMiniredisAndShutsDown(t *testing.T) {
	t.Setenv("PATH", "") // no redis-server to find
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	logs := &strings.Builder{}
	logger := slog.New(slog.NewJSONHandler(&lockedWriter{w: logs}, nil))
	env := envOf(map[string]string{"ADDR": "127.0.0.1:0", "DATA_DIR": t.TempDir(), "ADMIN_PASSWORD": "pw-for-tests"})
	go func() { done <- run(ctx, env, logger, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("run: %v", err)
	case <-time.After(120 * time.Second):
		t.Fatal("not ready")
	}
	res, err := http.Get("http://" + addr + "/items/1")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("item page: %v %v", err, res)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after shutdown", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no clean shutdown within 10 s")
	}
	l := logs.String()
	if !strings.Contains(l, `"mode":"miniredis"`) || !strings.Contains(l, "nothing in Redis survives a restart") {
		t.Errorf("log does not say miniredis is in use:\n%s", l)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	err := run(context.Background(), envOf(map[string]string{"VOTE_SCORE": "many"}), slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err == nil || !strings.Contains(err.Error(), "VOTE_SCORE") {
		t.Fatalf("run: %v", err)
	}
}
