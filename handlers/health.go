package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

type healthStore interface {
	Ping(ctx context.Context) error
}

// Healthz says the process is up; it touches nothing else.
func (h *Handler) Healthz(c echo.Context) error {
	return c.String(http.StatusOK, "ok\n")
}

// Readyz says whether Redis and the database answer.
func (h *Handler) Readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := h.store.Ping(ctx); err != nil {
		c.Response().Header().Set("Retry-After", "5")
		return c.String(http.StatusServiceUnavailable, "not ready\n")
	}
	return c.String(http.StatusOK, "ready\n")
}
