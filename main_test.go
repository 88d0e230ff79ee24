package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/store/storetest"
)

// The program as a whole (the built binary, several instances, faults,
// browsers, load) is tested in handlers/apptest; these tests cover run
// itself: its start-up checks and its in-process fallback and shutdown.

func TestMain(m *testing.M) { storetest.Main(m) }

func TestRunFallsBackToMiniredisAndShutsDown(t *testing.T) {
	t.Setenv("PATH", "") // no redis-server to find
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	logs := &lockedWriter{w: &strings.Builder{}}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	env := envOf(map[string]string{"ADDR": "127.0.0.1:0", "DATA_DIR": t.TempDir(), "ADMIN_PASSWORD": "pw-for-tests"})
	go func() { done <- run(ctx, env, logger, ready) }()
	// The deadlines below are bounds so a hang fails the test; start-up
	// under -race on a busy machine is slow, and no duration is asserted.
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("run: %v", err)
	case <-time.After(5 * time.Minute):
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
	case <-time.After(2 * time.Minute):
		t.Fatal("no shutdown")
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

// lockedWriter lets a logger write from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

func TestStartBannerTellsHowToSignIn(t *testing.T) {
	got := startBanner("[::]:8080", "abc123")
	for _, want := range []string{"http://localhost:8080", "password abc123", "ADMIN_PASSWORD", "http://localhost:8080/login"} {
		if !strings.Contains(got, want) {
			t.Errorf("banner %q lacks %q", got, want)
		}
	}
	got = startBanner("127.0.0.1:9000", "")
	if strings.Contains(got, "password ") && !strings.Contains(got, "ADMIN_PASSWORD") {
		t.Errorf("banner %q", got)
	}
	if !strings.Contains(got, "http://127.0.0.1:9000") {
		t.Errorf("banner %q lacks the address", got)
	}
}
