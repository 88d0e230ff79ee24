package ops

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// Healthz says whether the process is up and can heal what it runs: it
// fails only when Config.Health says the app cannot recover by itself (the
// embedded redis-server cannot be restarted), so that a supervisor
// restarts the app. A Redis or database outage is for /readyz.
func (h *Handler) Healthz(c echo.Context) error {
	if h.cfg.Health != nil {
		if err := h.cfg.Health(); err != nil {
			return c.String(http.StatusServiceUnavailable, "unhealthy: "+err.Error()+"\n")
		}
	}
	return c.String(http.StatusOK, "ok\n")
}

// Drain makes /readyz answer 503 from now on: the app is shutting down,
// and a load balancer should stop sending it new requests before the
// server stops accepting them.
func (h *Handler) Drain() { h.draining.Store(true) }

// Readyz says whether Redis and the database answer, and 503 once the app
// is draining.
func (h *Handler) Readyz(c echo.Context) error {
	if h.draining.Load() {
		c.Response().Header().Set("Retry-After", "5")
		return c.String(http.StatusServiceUnavailable, "draining\n")
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := h.data.Ping(ctx); err != nil {
		c.Response().Header().Set("Retry-After", "5")
		return c.String(http.StatusServiceUnavailable, "not ready\n")
	}
	return c.String(http.StatusOK, "ready\n")
}
