package storetest

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// StripeMock returns the base URL of a stripe-mock for the test's card
// payments (STRIPE_API_BASE): STRIPE_MOCK when set (CI starts one), else
// a stripe-mock of its own on a port the system picks, stopped after the
// test. Without the binary (on PATH or in GOPATH/bin) the test is skipped
// with how to install it.
func StripeMock(t testing.TB) string {
	t.Helper()
	if u := os.Getenv("STRIPE_MOCK"); u != "" {
		return strings.TrimRight(u, "/")
	}
	bin := stripeMockBinary()
	if bin == "" {
		t.Skip("stripe-mock is not installed: go install github.com/stripe/stripe-mock@v0.203.0")
	}
	// Both ports picked by the system: a fixed HTTPS port (12112 by
	// default) makes a second stripe-mock on the machine fail to start.
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:0", "-https-addr", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("stripe-mock: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, a, ok := strings.Cut(sc.Text(), "Listening for HTTP at address: "); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		_, port, err := net.SplitHostPort(a)
		if err != nil {
			t.Fatalf("stripe-mock address %q: %v", a, err)
		}
		base := "http://127.0.0.1:" + port
		Eventually(t, func() bool {
			resp, err := http.Get(base + "/v1/balance")
			if err == nil {
				resp.Body.Close()
			}
			return err == nil
		}, "stripe-mock does not answer")
		return base
	case <-time.After(60 * time.Second):
		t.Fatal("stripe-mock did not say where it listens")
	}
	return ""
}

// stripeMockBinary finds stripe-mock on PATH or where go install puts it.
func stripeMockBinary() string {
	if p, err := exec.LookPath("stripe-mock"); err == nil {
		return p
	}
	var dirs []string
	if gp := os.Getenv("GOPATH"); gp != "" {
		dirs = append(dirs, filepath.Join(strings.Split(gp, string(os.PathListSeparator))[0], "bin"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "stripe-mock")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

// Recorded is one request a Recorder passed on.
type Recorded struct {
	Method, Path string
	Form         url.Values // the form body, as Stripe's API takes it
	Header       http.Header
}

// Recorder passes every request on to upstream (a stripe-mock) and keeps
// it, so that a test can check what the shop asked of Stripe.
func Recorder(t testing.TB, upstream string) (base string, requests func() []Recorded) {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []Recorded
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		form, _ := url.ParseQuery(string(body))
		mu.Lock()
		got = append(got, Recorded{Method: r.Method, Path: r.URL.Path, Form: form, Header: r.Header.Clone()})
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []Recorded {
		mu.Lock()
		defer mu.Unlock()
		return append([]Recorded(nil), got...)
	}
}
