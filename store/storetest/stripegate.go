package storetest

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Stripe's states behind a StripeGate.
const (
	StripeUp     = iota // requests go through to stripe-mock
	StripeDown          // every request is answered 503, as in an outage
	StripeRefuse        // every request is answered 400, a refusal for good
	StripeHang          // every request is read and never answered
)

// StripeGate sits between the shop and a stripe-mock (through a Recorder,
// so every request is kept), and makes Stripe fail as a test asks: down,
// refusing, or accepting requests and never answering. A hung request
// waits until the shop gives up on it (or the test ends).
type StripeGate struct {
	url      string
	state    atomic.Int32
	requests func() []Recorded
	mu       sync.Mutex
	passed   map[string]int // requests that reached stripe-mock, by "METHOD path"
	hung     atomic.Int64
}

// NewStripeGate starts a gate in front of upstream (a stripe-mock), up.
func NewStripeGate(t testing.TB, upstream string) *StripeGate {
	t.Helper()
	base, requests := Recorder(t, upstream)
	g := &StripeGate{requests: requests, passed: map[string]int{}}
	target := strings.TrimPrefix(base, "http://")
	proxy := &http.Transport{}
	t.Cleanup(proxy.CloseIdleConnections)
	stop := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch g.state.Load() {
		case StripeDown:
			// Asked not to retry, so a test does not wait through the
			// client's own retries and their pauses.
			w.Header().Set("Stripe-Should-Retry", "false")
			http.Error(w, `{"error":{"type":"api_error","message":"Stripe is down (test)"}}`, http.StatusServiceUnavailable)
			return
		case StripeRefuse:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"type":"invalid_request_error","code":"charge_already_refunded","message":"refused (test)"}}`))
			return
		case StripeHang:
			g.hung.Add(1)
			select {
			case <-r.Context().Done():
			case <-stop:
			}
			return
		}
		r.URL.Scheme, r.URL.Host, r.RequestURI = "http", target, ""
		resp, err := proxy.RoundTrip(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		if resp.StatusCode < 300 {
			g.mu.Lock()
			g.passed[r.Method+" "+r.URL.Path]++
			g.mu.Unlock()
		}
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		close(stop)
		_ = srv.Close()
	})
	g.url = "http://" + ln.Addr().String()
	return g
}

// URL is the gate's address, the shop's STRIPE_API_BASE.
func (g *StripeGate) URL() string { return g.url }

// Set puts Stripe in state (StripeUp, StripeDown, StripeRefuse, StripeHang).
func (g *StripeGate) Set(state int) { g.state.Store(int32(state)) }

// Passed counts the requests to "METHOD path" that reached stripe-mock
// and were answered 2xx.
func (g *StripeGate) Passed(methodPath string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.passed[methodPath]
}

// Hung counts the requests held without an answer.
func (g *StripeGate) Hung() int64 { return g.hung.Load() }

// Requests are the requests that reached stripe-mock (as Recorder keeps
// them).
func (g *StripeGate) Requests() []Recorded { return g.requests() }
