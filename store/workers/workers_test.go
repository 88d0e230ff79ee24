package workers_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/store/workers"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func host(t *testing.T, b platform.Base, name string) *workers.Host {
	b.Instance = name
	return workers.NewHost(b)
}

// TestLeasedRunsOnOneInstanceAtATime: two instances run the same leased
// worker; only the lease holder runs passes, its runs are reported, and
// stopping it hands the lease over at once.
func TestLeasedRunsOnOneInstanceAtATime(t *testing.T) {
	rdb := storetest.Redis(t)
	b := platform.Base{Redis: rdb, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: &platform.Clock{}}
	var running, overlaps, passes atomic.Int64
	ran := map[string]*atomic.Int64{"a": {}, "b": {}}
	spec := func(name string) workers.Leased {
		return workers.Leased{Name: "test-leased", Lease: time.Minute, Every: time.Millisecond,
			Pass: func(ctx context.Context) (workers.Run, bool) {
				if running.Add(1) > 1 {
					overlaps.Add(1)
				}
				defer running.Add(-1)
				passes.Add(1)
				ran[name].Add(1)
				return workers.Run{Result: "did one", Counts: map[string]int64{"passes": 1}}, false
			}}
	}
	ctxA, stopA := context.WithCancel(t.Context())
	ctxB, stopB := context.WithCancel(t.Context())
	defer stopB()
	var wg sync.WaitGroup
	hostA, hostB := host(t, b, "a"), host(t, b, "b")
	wg.Go(func() { hostA.Leased(spec("a")).Run(ctxA) })
	storetest.Eventually(t, func() bool { return ran["a"].Load() > 3 }, "instance a never ran")
	wg.Go(func() { hostB.Leased(spec("b")).Run(ctxB) })
	before := ran["a"].Load()
	storetest.Eventually(t, func() bool { return ran["a"].Load() > before+3 }, "instance a stopped running")
	if n := ran["b"].Load(); n != 0 {
		t.Errorf("instance b ran %d passes while a held the lease", n)
	}
	st, err := hostA.Status(t.Context(), "test-leased")
	if err != nil || st.Instance != "a" || st.Result != "did one" || st.Totals["passes"] == 0 {
		t.Errorf("report %+v %v", st, err)
	}
	stopA()
	storetest.Eventually(t, func() bool { return ran["b"].Load() > 0 }, "instance b never took over")
	if holder, _ := hostB.Holder(t.Context(), "test-leased"); holder != "b" {
		t.Errorf("lease holder %q, want b", holder)
	}
	stopB()
	wg.Wait()
	if overlaps.Load() != 0 {
		t.Errorf("%d passes overlapped", overlaps.Load())
	}
	if n := storetest.Must(rdb.Exists(t.Context(), keys.Lease("test-leased")).Result())(t); n != 0 {
		t.Error("a stopped worker kept its lease")
	}
}

// TestFailedRunReportsItsError: a failed run is reported with its error
// and without a result.
func TestFailedRunReportsItsError(t *testing.T) {
	rdb := storetest.Redis(t)
	h := host(t, platform.Base{Redis: rdb, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: &platform.Clock{}}, "a")
	h.Report(t.Context(), "test-failing", workers.Run{Result: "would be wrong", Err: errors.New("disk on fire")})
	st, err := h.Status(t.Context(), "test-failing")
	if err != nil || st.Error != "disk on fire" || st.Result != "" || st.LastRun.IsZero() {
		t.Errorf("report %+v %v", st, err)
	}
}

func TestPaceReportsErrorsAtOnceAndWorkOnceASecond(t *testing.T) {
	var p workers.Pace
	if _, now := p.Add(0, nil); !now {
		t.Error("the first poll is not reported")
	}
	if _, now := p.Add(5, nil); now {
		t.Error("work is reported twice within a second")
	}
	if done, now := p.Add(0, errors.New("down")); !now || done != 5 {
		t.Errorf("an error is not reported at once with the work before it: %d %v", done, now)
	}
	if _, now := p.Add(0, nil); now {
		t.Error("an idle worker is reported more than every 10 s")
	}
}
