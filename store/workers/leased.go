package workers

import (
	"context"
	"time"
)

// Leased is a worker that runs on one instance at a time: the one loop
// that takes (or renews) its lease, runs one pass, reports it, and waits
// for the next, and that gives the lease up when it stops so that another
// instance takes over at once. Its lease is named like the worker.
type Leased struct {
	Name string
	// Lease is how long a taken lease lasts; the holder renews it before
	// every pass, so it must be longer than a pass plus a pause.
	Lease time.Duration
	// Every is the pause between passes (none when a pass says more).
	Every time.Duration
	// Delay waits Every before the first pass too; such a worker with no
	// Every is off.
	Delay bool
	// Pass does one run's work while the lease is held and says what to
	// report; more asks for the next pass at once. On shutdown (ctx done)
	// the run is reported without the cancellation as its error, so that
	// what was done is recorded, unless it did nothing (no result).
	Pass func(ctx context.Context) (run Run, more bool)
	// Stop, if set, runs when the loop ends, before the lease is given up
	// (to wait for work the passes started).
	Stop func()
}

// Leased returns the loop of w on this host.
func (h *Host) Leased(w Leased) Worker { return &leased{Leased: w, host: h} }

type leased struct {
	Leased
	host *Host
}

// Name names the worker in logs, reports and its lease.
func (w *leased) Name() string { return w.Leased.Name }

// Run loops until ctx is cancelled.
func (w *leased) Run(ctx context.Context) {
	h, name := w.host, w.Leased.Name
	defer h.Release(ctx, name)
	if w.Stop != nil {
		defer w.Stop()
	}
	if w.Delay && (w.Every <= 0 || !Sleep(ctx, w.Every)) {
		return
	}
	for {
		wait := w.Every
		held, err := h.Acquire(ctx, name, w.Lease)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				h.log.Warn("worker lease", "worker", name, "err", err)
			}
		case held:
			run, more := w.Pass(ctx)
			if ctx.Err() != nil {
				// Shutting down: record what was done, not the cancellation.
				if run.Result != "" || len(run.Counts) > 0 {
					run.Err = nil
					h.Report(ctx, name, run)
				}
				return
			}
			h.Report(ctx, name, run)
			if run.Err != nil {
				h.log.Warn("worker run failed", "worker", name, "err", run.Err)
			} else if more {
				wait = 0
			}
		}
		if !Sleep(ctx, wait) {
			return
		}
	}
}
