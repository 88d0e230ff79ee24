package store

import (
	"context"
	"fmt"
	"storefront/store/keys"
	"storefront/store/platform"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// WorkerRun is the outcome of one run of a background worker, as the
// worker reports it.
type WorkerRun struct {
	// Result is a short summary for people, such as "evicted 120 sessions".
	Result string
	// Err is the run's error; nil when it succeeded.
	Err error
	// Counts are the run's numbers (such as evicted). Each is kept as the
	// last run's value and added to a running total.
	Counts map[string]int64
}

// WorkerStatus is a worker's last report, read back for the admin dashboard.
type WorkerStatus struct {
	Name     string
	Instance string    // the instance that ran it last
	LastRun  time.Time // zero if it never reported
	Result   string
	Error    string // "" when the last run succeeded
	Last     map[string]int64
	Totals   map[string]int64
}

// reportWorker records a worker's run in Redis (worker:<name>), so that the
// dashboard can show every worker's state whichever instance ran it. It
// costs one round trip; a failure to report is logged, not returned, since
// the worker's own work is done.
func (s *Store) reportWorker(ctx context.Context, name string, run WorkerRun) {
	// A run that ended as shutdown began is still recorded: the report
	// does not share the worker's cancellation, only a short deadline.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	key := keys.Worker(name)
	errText := ""
	if run.Err != nil {
		errText = run.Err.Error()
	}
	fields := []any{
		"instance", s.instance,
		"last_run", strconv.FormatInt(s.now().UnixMilli(), 10),
		"result", run.Result,
		"error", errText,
	}
	pipe := s.rdb.Pipeline()
	for k, v := range run.Counts {
		fields = append(fields, "last:"+k, v)
		pipe.HIncrBy(ctx, key, "total:"+k, v)
	}
	pipe.HSet(ctx, key, fields...)
	if _, err := pipe.Exec(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("worker report failed", "worker", name, "err", err)
	}
	s.countWorkerRun(name, run.Err)
}

// WorkerStatus reads a worker's last report. A worker that never reported
// has a zero LastRun.
func (s *Store) WorkerStatus(ctx context.Context, name string) (WorkerStatus, error) {
	m, err := s.rdb.HGetAll(ctx, keys.Worker(name)).Result()
	if err != nil && err != redis.Nil {
		return WorkerStatus{}, fmt.Errorf("worker %s: %w", name, err)
	}
	return workerStatusOf(name, m), nil
}

// WorkerStatuses reads the last report of every background worker, in one
// round trip.
func (s *Store) WorkerStatuses(ctx context.Context) ([]WorkerStatus, error) {
	names := s.workerNames()
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(names))
	for i, n := range names {
		cmds[i] = pipe.HGetAll(ctx, keys.Worker(n))
	}
	if res, err := pipe.Exec(ctx); platform.RealErr(res, err) != nil {
		return nil, fmt.Errorf("worker statuses: %w", platform.RealErr(res, err))
	}
	out := make([]WorkerStatus, len(names))
	for i, n := range names {
		out[i] = workerStatusOf(n, cmds[i].Val())
	}
	return out, nil
}

// workerStatusOf reads a worker:<name> hash.
func workerStatusOf(name string, m map[string]string) WorkerStatus {
	st := WorkerStatus{Name: name, Instance: m["instance"], Result: m["result"], Error: m["error"],
		LastRun: parseRunTime(m["last_run"]), Last: map[string]int64{}, Totals: map[string]int64{}}
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

// sleepCtx waits for d or until ctx is done; it reports whether to go on.
func sleepCtx(ctx context.Context, d time.Duration) bool {
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
