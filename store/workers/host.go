package workers

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"storefront/store/platform"
)

// Worker is a background loop that runs until ctx is cancelled.
type Worker interface {
	Name() string
	Run(ctx context.Context)
}

// Host is this instance as its background workers see it: the leases it
// holds and the reports its workers write.
type Host struct {
	rdb      redis.UniversalClient
	log      *slog.Logger
	clock    *platform.Clock
	instance string
	runs     *prometheus.CounterVec
}

// NewHost returns the host of this instance.
func NewHost(b platform.Base) *Host {
	return &Host{
		rdb: b.Redis, log: b.Log, clock: b.Clock, instance: b.Instance,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_worker_runs_total",
			Help: "Background worker runs on this instance by worker and result (ok, error).",
		}, []string{"worker", "result"}),
	}
}

// Instance names this process in leases and reports.
func (h *Host) Instance() string { return h.instance }

// Collector is the storefront_worker_runs_total series.
func (h *Host) Collector() prometheus.Collector { return h.runs }
