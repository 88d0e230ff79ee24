// Package ops answers the operations routes, which read no session and
// give everyone the same answer: liveness and readiness for supervisors
// and load balancers, the Prometheus series, and the embedded static
// files. Tests: through the real router in handlers/ (health, metrics,
// static files) and the process suites in handlers/apptest.
package ops

import (
	"context"
	"sync/atomic"

	"storefront/handlers/web"
)

// Pinger checks that Redis and the database answer.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Config is what the operations routes need from the environment.
type Config struct {
	// MetricsToken, when set, lets a scraper read /metrics with
	// "Authorization: Bearer <token>"; without it only the admin can.
	MetricsToken string
	// Health, when set, says whether the app can still heal what it runs
	// (GET /healthz fails when it cannot).
	Health func() error
}

// Handler answers the operations routes.
type Handler struct {
	cfg  Config
	web  *web.Kit
	data Pinger
	// draining is set on shutdown: /readyz answers 503 from then on.
	draining atomic.Bool
}

// New builds the operations handlers.
func New(cfg Config, kit *web.Kit, data Pinger) *Handler {
	return &Handler{cfg: cfg, web: kit, data: data}
}
