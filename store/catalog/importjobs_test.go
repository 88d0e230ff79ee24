package catalog_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/store/workers"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// jobRows are n new items' rows, SKUs prefix-1 to prefix-n.
func jobRows(prefix, category string, n int) []catalog.ImportRow {
	rows := make([]catalog.ImportRow, n)
	for i := range rows {
		rows[i] = catalog.ImportRow{Line: i + 2, SKU: fmt.Sprintf("%s-%d", prefix, i+1), Name: fmt.Sprintf("Job thing %d", i+1),
			Category: category, PriceCents: int64(100 + i), Stock: 3}
	}
	return rows
}

func countPrefix(t *testing.T, st *wiring.Services, prefix string) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM items WHERE sku LIKE $1`, prefix+"-%").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func someCategory(t *testing.T, st *wiring.Services) string {
	t.Helper()
	it, err := st.Catalog.Item(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	return it.Category
}

// awaitJob reads job id until it ends.
func awaitJob(t *testing.T, st *wiring.Services, id int64) catalog.ImportJob {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; {
		j, err := st.Catalog.ImportJob(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Ended() {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d did not end: %+v", id, j)
		}
		time.Sleep(5 * time.Millisecond) // the pause between polls
	}
}

// TestImportJobRunsOnce: three instances' imports worker loops and
// passes race for three jobs; each job is run by exactly one run (one attempt),
// its rows created once, and its counts recorded.
func TestImportJobRunsOnce(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	cat := someCategory(t, st)
	var ids []int64
	for i := range 3 {
		id, err := st.Catalog.QueueImport(ctx, "admin", jobRows(fmt.Sprintf("ONCE%d", i), cat, 300), catalog.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// Three instances on the one Redis and database, each with two
	// worker loops and two passes of its own.
	instances := []*catalog.Service{st.Catalog}
	for range 2 {
		b := platform.NewBase(st.Redis(), st.DB(), storetest.Logger(t))
		instances = append(instances, catalog.New(b, workers.NewHost(b)))
	}
	wctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, inst := range instances {
		for range 2 {
			wg.Go(func() { inst.ImportsWorker().Run(wctx) })
			wg.Go(func() {
				// Instances sharing one SQLite file wait for each other's
				// write lock, and on a loaded machine a pass can give up
				// (busy); another pass then runs the job. What counts is
				// each job's one run, below.
				if _, _, err := inst.RunImports(wctx); err != nil && wctx.Err() == nil {
					t.Log(err)
				}
			})
		}
	}
	for i, id := range ids {
		j := awaitJob(t, st, id)
		if j.State != catalog.ImportDone || j.Attempts != 1 || j.Result.Created != 300 || j.Result.Unchanged != 0 {
			t.Errorf("job %d: %s, %d attempts, %+v (%s)", id, j.State, j.Attempts, j.Result, j.Message)
		}
		if n := countPrefix(t, st, fmt.Sprintf("ONCE%d", i)); n != 300 {
			t.Errorf("job %d: %d items", id, n)
		}
	}
	cancel()
	wg.Wait()
	var left string
	if err := st.DB().QueryRowContext(ctx, `SELECT COALESCE(MAX(rows_json), '') FROM import_jobs`).Scan(&left); err != nil || left != "" {
		t.Errorf("ended jobs keep their rows: %.50q %v", left, err)
	}
}

// TestImportJobStoppedMidway: an instance that stops while writing the
// rows leaves the catalog as it was and the job open; the next run starts
// it again and finishes it. A job that stops on every run fails, with
// nothing changed.
func TestImportJobStoppedMidway(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	cat := someCategory(t, st)
	const n = 600
	id, err := st.Catalog.QueueImport(ctx, "admin", jobRows("STOP", cat, n), catalog.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	restore := catalog.SetImportStep(100, func(applied int) {
		if applied >= 300 {
			stop() // the instance stops halfway through the rows
		}
	})
	t.Cleanup(restore)
	if done, failed, err := st.Catalog.RunImports(runCtx); done+failed != 0 || (err != nil && runCtx.Err() == nil) {
		t.Fatalf("the stopped run ended the job: %d done, %d failed, %v", done, failed, err)
	}
	j, err := st.Catalog.ImportJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != catalog.ImportRunning || j.Attempts != 1 {
		t.Fatalf("after the stop: %s, %d attempts", j.State, j.Attempts)
	}
	if got := countPrefix(t, st, "STOP"); got != 0 {
		t.Fatalf("the stopped run left %d of %d rows written", got, n)
	}
	// The stopped run gave its lease up: the next run starts at once.
	if held, err := st.Redis().Exists(ctx, keys.ImportRun(id)).Result(); err != nil || held != 0 {
		t.Fatalf("the stopped run still holds the job: %d %v", held, err)
	}
	restore()
	if done, _, err := st.Catalog.RunImports(ctx); done != 1 || err != nil {
		t.Fatalf("the next run: %d done, %v", done, err)
	}
	if j := awaitJob(t, st, id); j.State != catalog.ImportDone || j.Attempts != 2 || j.Result.Created != n {
		t.Errorf("resumed job: %s, %d attempts, %+v", j.State, j.Attempts, j.Result)
	}
	if got := countPrefix(t, st, "STOP"); got != n {
		t.Errorf("%d rows after the resumed run, want %d", got, n)
	}

	// A job that stops on every run fails after its last attempt.
	id, err = st.Catalog.QueueImport(ctx, "admin", jobRows("AGAIN", cat, 200), catalog.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		runCtx, stop = context.WithCancel(ctx)
		restore = catalog.SetImportStep(50, func(int) { stop() })
		st.Catalog.RunImports(runCtx) //nolint:errcheck // stopped on purpose
		restore()
	}
	if _, failed, err := st.Catalog.RunImports(ctx); failed != 1 || err != nil {
		t.Fatalf("the fourth run: %d failed, %v", failed, err)
	}
	j, err = st.Catalog.ImportJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != catalog.ImportFailed || !strings.Contains(j.Message, "stopped 3 times") {
		t.Errorf("a job that always stops: %s %q", j.State, j.Message)
	}
	if got := countPrefix(t, st, "AGAIN"); got != 0 {
		t.Errorf("the failed job wrote %d rows", got)
	}
}

// TestImportJobLostLease: a run whose lease is taken while it writes
// (its instance stalled past the lease) stops without committing; the
// run that took the job finishes it once.
func TestImportJobLostLease(t *testing.T) {
	t.Cleanup(catalog.SetImportRunLease(300 * time.Millisecond))
	st := wiringtest.New(t)
	ctx := t.Context()
	id, err := st.Catalog.QueueImport(ctx, "admin", jobRows("LOST", someCategory(t, st), 400), catalog.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	t.Cleanup(catalog.SetImportStep(100, func(int) {
		once.Do(func() {
			// Another run takes the job's lease; this run notices at
			// its next renewal and must not commit.
			if err := st.Redis().Set(context.Background(), keys.ImportRun(id), "another run", time.Minute).Err(); err != nil {
				t.Error(err)
			}
			time.Sleep(time.Second) // a stall of this run, longer than its lease
		})
	}))
	if done, _, err := st.Catalog.RunImports(ctx); done != 0 || err != nil {
		t.Fatalf("the run that lost its lease: %d done, %v", done, err)
	}
	if got := countPrefix(t, st, "LOST"); got != 0 {
		t.Fatalf("the run that lost its lease wrote %d rows", got)
	}
	if err := st.Redis().Del(ctx, keys.ImportRun(id)).Err(); err != nil { // the other run's lease runs out
		t.Fatal(err)
	}
	if done, _, err := st.Catalog.RunImports(ctx); done != 1 || err != nil {
		t.Fatalf("the next run: %d done, %v", done, err)
	}
	if got := countPrefix(t, st, "LOST"); got != 400 {
		t.Errorf("%d rows, want 400", got)
	}
}
