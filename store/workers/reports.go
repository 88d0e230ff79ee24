package workers

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// Run is the outcome of one run of a background worker, as the worker
// reports it.
type Run struct {
	// Result is a short summary for people, such as "evicted 120 sessions".
	Result string
	// Err is the run's error; nil when it succeeded.
	Err error
	// Counts are the run's numbers (such as evicted). Each is kept as the
	// last run's value and added to a running total.
	Counts map[string]int64
}

// Status is a worker's last report, read back for the admin dashboard.
type Status struct {
	Name     string
	Instance string    // the instance that ran it last
	LastRun  time.Time // zero if it never reported
	Result   string
	Error    string // "" when the last run succeeded
	Last     map[string]int64
	Totals   map[string]int64
}

// Report records a worker's run in Redis (worker:<name>), so that the
// dashboard can show every worker's state whichever instance ran it. It
// costs one round trip; a failure to report is logged, not returned, since
// the worker's own work is done.
func (h *Host) Report(ctx context.Context, name string, run Run) {
	// A run that ended as shutdown began is still recorded: the report
	// does not share the worker's cancellation, only a short deadline.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	key := keys.Worker(name)
	errText := ""
	if run.Err != nil {
		errText, run.Result = run.Err.Error(), "" // a failed run reports its error, not a result
	}
	fields := []any{
		"instance", h.instance,
		"last_run", strconv.FormatInt(h.clock.Now().UnixMilli(), 10),
		"result", run.Result,
		"error", errText,
	}
	pipe := h.rdb.Pipeline()
	for k, v := range run.Counts {
		fields = append(fields, "last:"+k, v)
		pipe.HIncrBy(ctx, key, "total:"+k, v)
	}
	pipe.HSet(ctx, key, fields...)
	if _, err := pipe.Exec(ctx); err != nil && ctx.Err() == nil {
		h.log.Warn("worker report failed", "worker", name, "err", err)
	}
	result := "ok"
	if run.Err != nil {
		result = "error"
	}
	h.runs.WithLabelValues(name, result).Inc()
}

// Status reads a worker's last report. A worker that never reported has
// a zero LastRun.
func (h *Host) Status(ctx context.Context, name string) (Status, error) {
	m, err := h.rdb.HGetAll(ctx, keys.Worker(name)).Result()
	if err != nil && err != redis.Nil {
		return Status{}, fmt.Errorf("worker %s: %w", name, err)
	}
	return StatusOf(name, m), nil
}

// Statuses reads the last report of the named workers, in one round trip.
func (h *Host) Statuses(ctx context.Context, names []string) ([]Status, error) {
	pipe := h.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(names))
	for i, n := range names {
		cmds[i] = pipe.HGetAll(ctx, keys.Worker(n))
	}
	if res, err := pipe.Exec(ctx); platform.RealErr(res, err) != nil {
		return nil, fmt.Errorf("worker statuses: %w", platform.RealErr(res, err))
	}
	out := make([]Status, len(names))
	for i, n := range names {
		out[i] = StatusOf(n, cmds[i].Val())
	}
	return out, nil
}

// StatusOf reads a worker:<name> hash as HGETALL returns it.
func StatusOf(name string, m map[string]string) Status {
	st := Status{Name: name, Instance: m["instance"], Result: m["result"], Error: m["error"],
		LastRun: ParseRunTime(m["last_run"]), Last: map[string]int64{}, Totals: map[string]int64{}}
	for k, v := range m {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			continue
		}
		if c, ok := strings.CutPrefix(k, "last:"); ok {
			st.Last[c] = n
		} else if c, ok := strings.CutPrefix(k, "total:"); ok {
			st.Totals[c] = n
		}
	}
	return st
}

// Sleep waits for d or until ctx is done; it reports whether to go on.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// ParseRunTime reads a worker report's last_run: Unix milliseconds (or
// seconds, from an older report); zero when absent.
func ParseRunTime(v string) time.Time {
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil || n <= 0:
		return time.Time{}
	case n < 1e11:
		return time.Unix(n, 0)
	}
	return time.UnixMilli(n)
}

// Pace is when a polling worker reports, so that the dashboard stays
// current without a report per poll: an error at once, work at most once
// a second, an idle worker every 10 s. The zero Pace reports at once.
type Pace struct {
	last time.Time
	done int64
}

// Add counts n more units of work done and an error, if any, and says
// whether to report now, with the work done since the last report.
func (p *Pace) Add(n int64, err error) (done int64, now bool) {
	p.done += n
	since := time.Since(p.last)
	if err == nil && (p.done == 0 || since < time.Second) && since < 10*time.Second {
		return p.done, false
	}
	done, p.done, p.last = p.done, 0, time.Now()
	return done, true
}

// ReportsRead is a queued read of several workers' reports and of who
// holds their leases.
type ReportsRead struct {
	names   []string
	reports []*redis.MapStringStringCmd
	holders []*redis.StringCmd
}

// AddReports queues, on pipe, the reads of the named workers' last
// reports and lease holders (the dashboard reads them beside its other
// numbers).
func AddReports(ctx context.Context, pipe redis.Pipeliner, names []string) ReportsRead {
	r := ReportsRead{names: names, reports: make([]*redis.MapStringStringCmd, len(names)), holders: make([]*redis.StringCmd, len(names))}
	for i, n := range names {
		r.reports[i], r.holders[i] = pipe.HGetAll(ctx, keys.Worker(n)), pipe.Get(ctx, keys.Lease(n))
	}
	return r
}

// Statuses are the reports once the pipeline ran, in the order of the
// names, with the lease holder of each ("" for none).
func (r ReportsRead) Statuses() (statuses []Status, holders []string) {
	for i, n := range r.names {
		statuses = append(statuses, StatusOf(n, r.reports[i].Val()))
		holders = append(holders, r.holders[i].Val())
	}
	return statuses, holders
}

// AddLastRuns queues, on pipe, the reads of when the named workers last
// reported (ParseRunTime reads each once the pipeline ran).
func AddLastRuns(ctx context.Context, pipe redis.Pipeliner, names []string) []*redis.StringCmd {
	out := make([]*redis.StringCmd, len(names))
	for i, n := range names {
		out[i] = pipe.HGet(ctx, keys.Worker(n), "last_run")
	}
	return out
}
