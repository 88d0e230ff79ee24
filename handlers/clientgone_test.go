package handlers_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/handlers"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

// stallHook is a go-redis hook that, while on, holds every command until
// its context ends (as a Redis that stopped answering would), and tells
// entered when one is held. Off, or released, commands run as usual.
type stallHook struct {
	on      atomic.Bool
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newStallHook(t *testing.T) *stallHook {
	h := &stallHook{entered: make(chan struct{}, 1), release: make(chan struct{})}
	t.Cleanup(func() { h.once.Do(func() { close(h.release) }) })
	return h
}

func (h *stallHook) hold(ctx context.Context) error {
	select {
	case h.entered <- struct{}{}:
	default:
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-h.release:
		return nil
	}
}

func (h *stallHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h *stallHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.on.Load() {
			if err := h.hold(ctx); err != nil {
				cmd.SetErr(err)
				return err
			}
		}
		return next(ctx, cmd)
	}
}

func (h *stallHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if h.on.Load() {
			if err := h.hold(ctx); err != nil {
				for _, c := range cmds {
					c.SetErr(err)
				}
				return err
			}
		}
		return next(ctx, cmds)
	}
}

// TestClientGoneIs499: a request whose client goes away while the server
// waits on Redis is logged as 499 (client closed the request) and counted
// as such in the metrics, never as a 500; a request that runs out of its
// own deadline is still a 503.
func TestClientGoneIs499(t *testing.T) {
	st := wiringtest.New(t)
	stall := newStallHook(t)
	st.Redis().AddHook(stall)
	logs := &logBuffer{}
	cfg := testConfig(t)
	cfg.RequestTimeout = time.Minute // only the client ends the first request
	h, err := handlers.New(cfg, st, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Router())
	t.Cleanup(srv.Close)
	a := &app{t: t, store: st, h: h, srv: srv}
	shopper := a.client()
	shopper.Register("gina")

	stall.on.Store(true)
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/cart", nil)
	done := make(chan error, 1)
	go func() {
		res, err := shopper.HTTP().Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	select {
	case <-stall.entered:
	case <-time.After(15 * time.Second):
		t.Fatal("the cart page never reached Redis")
	}
	cancel() // the shopper closes the tab
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the client's request ended with %v", err)
	}
	var line map[string]any
	storetest.Eventually(t, func() bool {
		for _, rec := range logs.lines("request") {
			if rec["route"] == "/cart" {
				line = rec
				return true
			}
		}
		return false
	}, "the cancelled request was never logged")
	stall.on.Store(false)
	if status := line["status"]; status != float64(499) {
		t.Errorf("a request its client cancelled was logged with status %v, want 499", status)
	}
	if line["level"] != "INFO" {
		t.Errorf("a request its client cancelled was logged at %v, want INFO", line["level"])
	}
	if failed := logs.lines("request failed"); len(failed) != 0 {
		t.Errorf("a request its client cancelled was logged as a failure: %v", failed)
	}
	metrics := a.scrape(t)
	if v := metricValue(metrics, `storefront_http_requests_total{method="GET",route="/cart",status="499"}`); v != "1" {
		t.Errorf("499 requests counted %q, want 1", v)
	}
	if v := metricValue(metrics, `storefront_http_requests_total{method="GET",route="/cart",status="500"}`); v != "" {
		t.Errorf("500 requests counted %q, want none", v)
	}

	// The server's own deadline is still a 503.
	cfg.RequestTimeout = 200 * time.Millisecond
	short, err := handlers.New(cfg, st, storetest.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	shortSrv := httptest.NewServer(short.Router())
	t.Cleanup(shortSrv.Close)
	stall.on.Store(true)
	res := shopper.At(shortSrv.URL).Get("/cart")
	stall.on.Store(false)
	if res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("a request past its deadline: %d (Retry-After %q), want 503", res.Status, res.Header.Get("Retry-After"))
	}
}
