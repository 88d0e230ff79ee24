package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/audit"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/workers"
)

// An import of a large file takes longer than a request may, so the
// upload only checks the file and queues it (QueueImport); the imports
// worker of whichever instance holds its lease runs it (ImportItems'
// transaction, all rows or none) and records the outcome in the job's
// row, which the admin's page reads (ImportJob).

// States of an import job.
const (
	ImportQueued  = "queued"
	ImportRunning = "running"
	ImportDone    = "done"
	ImportFailed  = "failed"
)

// Phases of a running import job, in its progress hash.
const (
	ImportChecking = "checking"
	ImportApplying = "applying"
)

var (
	// importRunLease is how long a run holds its job without renewing:
	// a stopped instance's job is started again by another this long
	// after. The run renews it every third of it.
	importRunLease = 30 * time.Second
	// importIdle is how long the worker waits for an upload's push
	// before it looks in the table anyway.
	importIdle = 2 * time.Second
)

// importMaxAttempts is how many runs a job gets: one cut short by a
// stopped instance is started again, but a job that stops every run
// (one that takes the instance down) fails instead of looping.
const importMaxAttempts = 3

// errImportLost is a run that no longer holds its job (its lease ran
// out, or another run took the job): it must not commit.
var errImportLost = errors.New("import: the job was taken by another run")

// renewImportRun extends a run's lease only while the run holds it.
var renewImportRun = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// ImportJob is a catalog import as its page shows it.
type ImportJob struct {
	ID    int64
	State string
	Admin string // who uploaded it
	// NewCategories is the admin's "create the categories" box.
	NewCategories bool
	Total         int
	// Phase, Checked and Applied are the progress of a running job (the
	// applied rows are written, committed only at the end).
	Phase            string
	Checked, Applied int
	// Result is a done job's counts (Changed left out).
	Result ImportResult
	// Problems are a failed job's refused rows; Message why a job failed
	// otherwise.
	Problems []RowProblem
	Message  string
	Attempts int
	// CreatedAt, StartedAt and FinishedAt are Unix milliseconds (0: not
	// yet).
	CreatedAt, StartedAt, FinishedAt int64
}

// Ended reports whether the job is done or failed.
func (j ImportJob) Ended() bool { return j.State == ImportDone || j.State == ImportFailed }

// storedRow is an ImportRow in a job's rows_json.
type storedRow struct {
	L  int    `json:"l"`
	S  string `json:"s"`
	N  string `json:"n"`
	C  string `json:"c"`
	D  string `json:"d,omitempty"`
	P  int64  `json:"p"`
	Q  int64  `json:"q"`
	A  bool   `json:"a,omitempty"`
	O  string `json:"o,omitempty"`
	CA int64  `json:"ca,omitempty"`
}

// storedProblem is a RowProblem in a job's problems.
type storedProblem struct {
	Line int    `json:"line"`
	SKU  string `json:"sku"`
	Err  string `json:"err"`
}

// problemCodes name the row errors in stored problems.
var problemCodes = map[error]string{ErrUnknownCategory: "unknown_category", ErrNotAVariant: "not_a_variant", ErrSKUTaken: "sku_taken"}

// QueueImport stores rows (checked for form by the caller) as a queued
// import job of admin's and wakes the imports worker; it returns the
// job's id.
func (s *Service) QueueImport(ctx context.Context, admin string, rows []ImportRow, opt ImportOptions) (int64, error) {
	stored := make([]storedRow, len(rows))
	for i, r := range rows {
		stored[i] = storedRow{L: r.Line, S: r.SKU, N: r.Name, C: r.Category, D: r.Description, P: r.PriceCents, Q: r.Stock,
			A: r.Archived, O: r.Options, CA: r.CompareAtCents}
	}
	data, err := json.Marshal(stored)
	if err != nil {
		return 0, fmt.Errorf("queue import: %w", err)
	}
	newCats := 0
	if opt.NewCategories {
		newCats = 1
	}
	var id int64
	err = platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO import_jobs (state, admin, new_categories, rows_total, rows_json, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, ImportQueued, admin, newCats, len(rows), string(data), s.clock.Now().UnixMilli()).Scan(&id)
		if err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "catalog.import", Target: fmt.Sprintf("import %d", id),
			After: audit.Fields{"rows": len(rows), "new_categories": opt.NewCategories}})
	})
	if err != nil {
		return 0, fmt.Errorf("queue import: %w", err)
	}
	// The worker also looks in the table every few seconds, so a push
	// that fails only delays the job.
	pipe := s.rdb.Pipeline()
	pipe.LPush(ctx, keys.ImportWake, id)
	pipe.LTrim(ctx, keys.ImportWake, 0, 99)
	if _, err := pipe.Exec(ctx); err != nil {
		s.log.Warn("import queued: wake the worker", "job", id, "err", err)
	}
	return id, nil
}

// ImportJob reads a job and, while it runs, its progress. ErrNotFound
// for none.
func (s *Service) ImportJob(ctx context.Context, id int64) (ImportJob, error) {
	var j ImportJob
	var newCats int64
	var names, problems string
	err := s.db.QueryRowContext(ctx, `SELECT id, state, admin, new_categories, rows_total, attempts, created_items, updated_items,
		unchanged_items, new_names, problems, message, created_at, started_at, finished_at FROM import_jobs WHERE id = $1`, id).
		Scan(&j.ID, &j.State, &j.Admin, &newCats, &j.Total, &j.Attempts, &j.Result.Created, &j.Result.Updated, &j.Result.Unchanged,
			&names, &problems, &j.Message, &j.CreatedAt, &j.StartedAt, &j.FinishedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return j, platform.ErrNotFound
	}
	if err != nil {
		return j, fmt.Errorf("import job %d: %w", id, err)
	}
	j.NewCategories = newCats == 1
	if err := json.Unmarshal([]byte(names), &j.Result.NewCategories); err != nil {
		return j, fmt.Errorf("import job %d: new categories: %w", id, err)
	}
	var sp []storedProblem
	if err := json.Unmarshal([]byte(problems), &sp); err != nil {
		return j, fmt.Errorf("import job %d: problems: %w", id, err)
	}
	for _, p := range sp {
		rp := RowProblem{Line: p.Line, SKU: p.SKU}
		for e, code := range problemCodes {
			if code == p.Err {
				rp.Err = e
			}
		}
		j.Problems = append(j.Problems, rp)
	}
	switch j.State {
	case ImportRunning:
		m, err := s.rdb.HGetAll(ctx, keys.ImportProgress(id)).Result()
		if err != nil {
			return j, fmt.Errorf("import job %d: progress: %w", id, err)
		}
		j.Phase = m["phase"]
		j.Checked, _ = strconv.Atoi(m["checked"])
		j.Applied, _ = strconv.Atoi(m["applied"])
	case ImportDone:
		j.Phase, j.Checked, j.Applied = ImportDone, j.Total, j.Total
	}
	return j, nil
}

// ImportsWorker runs queued import jobs: the `imports` lease makes one
// instance at a time wait for them, and each job's own lease
// (keys.ImportRun) makes exactly one run work on it, whichever instance
// and loop found it.
func (s *Service) ImportsWorker() workers.Worker {
	return s.host.Leased(workers.Leased{
		Name: keys.LeaseImports, Lease: 5 * importIdle, Every: time.Second,
		Pass: func(ctx context.Context) (workers.Run, bool) {
			done, failed, err := s.RunImports(ctx)
			if done+failed == 0 && err == nil {
				s.waitForImport(ctx)
			}
			return workers.Run{Result: fmt.Sprintf("%d imports done, %d failed", done, failed),
				Counts: map[string]int64{"done": int64(done), "failed": int64(failed)}, Err: err}, err == nil
		},
	})
}

// waitForImport waits for an upload's push, at most importIdle.
func (s *Service) waitForImport(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, importIdle+time.Second)
	defer cancel()
	_, err := s.rdb.BLPop(ctx, importIdle, keys.ImportWake).Result()
	if err != nil && !errors.Is(err, redis.Nil) && ctx.Err() == nil {
		s.log.Warn("imports: wait", "err", err)
		workers.Sleep(ctx, importIdle)
	}
}

// RunImports runs every open job no other run holds, oldest first, and
// counts those it finished. A job whose run stopped (its instance did)
// is open and free once that run's lease runs out: it starts again.
func (s *Service) RunImports(ctx context.Context) (done, failed int, err error) {
	rs, err := s.db.QueryContext(ctx, `SELECT id FROM import_jobs WHERE state IN ($1, $2) ORDER BY id LIMIT 50`, ImportQueued, ImportRunning)
	if err != nil {
		return 0, 0, fmt.Errorf("imports: %w", err)
	}
	var ids []int64
	for rs.Next() {
		var id int64
		if err := rs.Scan(&id); err != nil {
			rs.Close()
			return 0, 0, fmt.Errorf("imports: %w", err)
		}
		ids = append(ids, id)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return 0, 0, fmt.Errorf("imports: %w", err)
	}
	if len(ids) == 0 || !s.importing.TryLock() {
		return 0, 0, nil // another loop of this instance is running one
	}
	defer s.importing.Unlock()
	for _, id := range ids {
		state, err := s.runImport(ctx, id)
		switch {
		case err != nil:
			return done, failed, err
		case state == ImportDone:
			done++
		case state == ImportFailed:
			failed++
		}
		if ctx.Err() != nil {
			break
		}
	}
	return done, failed, nil
}

// runImport runs job id if no other run holds it, and says how it ended
// ("" when it did not run it or the run was cut short).
func (s *Service) runImport(ctx context.Context, id int64) (string, error) {
	token := platform.RandomHex(16)
	lease := keys.ImportRun(id)
	held, err := s.rdb.SetNX(ctx, lease, token, importRunLease).Result()
	if err != nil || !held {
		return "", platform.WrapErr("import job: lease", err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = platform.ReleaseLock(rctx, s.rdb, lease, token)
	}()
	now := s.clock.Now().UnixMilli()
	var attempts int
	var newCats int64
	var admin, data, lastTrouble string
	err = s.db.QueryRowContext(ctx, `UPDATE import_jobs SET state = $1, run_token = $2, attempts = attempts + 1, started_at = $3
		WHERE id = $4 AND state IN ($5, $1) RETURNING attempts, new_categories, admin, rows_json, message`,
		ImportRunning, token, now, id, ImportQueued).Scan(&attempts, &newCats, &admin, &data, &lastTrouble)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil // it ended while this run looked
	}
	if err != nil {
		return "", fmt.Errorf("import job %d: claim: %w", id, err)
	}
	log := s.log.With("job", id, "admin", admin, "attempt", attempts)
	if attempts > importMaxAttempts {
		if lastTrouble == "" {
			lastTrouble = "the instance running it stopped"
		}
		msg := fmt.Sprintf("The import stopped %d times before it finished (%s). Nothing was changed.", attempts-1, lastTrouble)
		return s.failImport(ctx, id, token, nil, msg, log)
	}
	var stored []storedRow
	if err := json.Unmarshal([]byte(data), &stored); err != nil {
		return s.failImport(ctx, id, token, nil, "The stored file could not be read. Nothing was changed.", log.With("err", err))
	}
	rows := make([]ImportRow, len(stored))
	for i, r := range stored {
		rows[i] = ImportRow{Line: r.L, SKU: r.S, Name: r.N, Category: r.C, Description: r.D, PriceCents: r.P, Stock: r.Q,
			Archived: r.A, Options: r.O, CompareAtCents: r.CA}
	}

	// The run renews its lease while it works and stops if it loses it.
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopRenew := s.renewImportRun(runCtx, cancel, lease, token)
	defer stopRenew()

	progress := keys.ImportProgress(id)
	s.setProgress(runCtx, progress, "phase", ImportChecking, "total", len(rows), "checked", 0, "applied", 0)
	res, err := s.importItems(runCtx, rows, ImportOptions{NewCategories: newCats == 1}, importHooks{
		begin: func(tx *sql.Tx) error {
			// Locks the job's row (PostgreSQL; SQLite's whole database)
			// until the commit, so no other run can take the job from
			// here on, and checks this run still holds it.
			r, err := tx.ExecContext(runCtx, `UPDATE import_jobs SET started_at = started_at WHERE id = $1 AND run_token = $2 AND state = $3`,
				id, token, ImportRunning)
			if err != nil {
				return fmt.Errorf("import job %d: %w", id, err)
			}
			if n, err := r.RowsAffected(); err != nil || n != 1 {
				return errImportLost
			}
			return nil
		},
		checked: func(n int) { s.setProgress(runCtx, progress, "phase", ImportApplying, "checked", n) },
		applied: func(n int) {
			s.setProgress(runCtx, progress, "applied", n)
			if importStep != nil {
				importStep(n)
			}
		},
		commit: func(tx *sql.Tx, res ImportResult) error {
			names, _ := json.Marshal(append([]string{}, res.NewCategories...))
			_, err := tx.ExecContext(runCtx, `UPDATE import_jobs SET state = $1, created_items = $2, updated_items = $3, unchanged_items = $4,
				new_names = $5, rows_json = '', finished_at = $6 WHERE id = $7`,
				ImportDone, res.Created, res.Updated, res.Unchanged, string(names), s.clock.Now().UnixMilli(), id)
			return err
		},
	})
	if ie, ok := errors.AsType[*ImportError](err); ok {
		return s.failImport(ctx, id, token, ie.Rows, "Some rows are wrong.", log)
	}
	if err != nil {
		if runCtx.Err() != nil {
			// Stopped (the instance is shutting down) or taken: the
			// transaction rolled back, so the job is as it was, open for
			// another run.
			log.Warn("import job stopped; it starts again on the next run", "err", context.Cause(runCtx))
			return "", nil
		}
		// The database failed (a dropped connection, a busy timeout):
		// nothing was written, and the next run tries again, up to
		// importMaxAttempts runs in all.
		log.Error("import job: the database failed; the next run tries again", "err", err)
		if _, err := s.db.ExecContext(context.WithoutCancel(ctx), `UPDATE import_jobs SET message = $1 WHERE id = $2 AND run_token = $3`,
			"the database failed while it ran", id, token); err != nil {
			log.Warn("import job: record the failure", "err", err)
		}
		return "", nil
	}
	s.setProgress(ctx, progress, "phase", ImportDone, "applied", len(rows))
	log.Log(ctx, slog.LevelError+4, "admin action", "who", admin, "action", "import items", "target", "catalog", "created", res.Created,
		"updated", res.Updated, "unchanged", res.Unchanged, "new_categories", fmt.Sprint(res.NewCategories))
	if err := s.Changed(ctx, Change{IDs: res.Changed, Search: true}); err != nil {
		log.Warn("import job: announce the change", "err", err)
	}
	return ImportDone, nil
}

// importStep, when set (tests), runs after each progress report of the
// rows written.
var importStep func(applied int)

// failImport records why job id failed, if run token still holds it.
func (s *Service) failImport(ctx context.Context, id int64, token string, rows []RowProblem, msg string, log *slog.Logger) (string, error) {
	sp := make([]storedProblem, 0, len(rows))
	for _, p := range rows {
		sp = append(sp, storedProblem{Line: p.Line, SKU: p.SKU, Err: problemCodes[p.Err]})
	}
	problems, _ := json.Marshal(sp)
	ctx = context.WithoutCancel(ctx)
	_, err := s.db.ExecContext(ctx, `UPDATE import_jobs SET state = $1, problems = $2, message = $3, rows_json = '', finished_at = $4
		WHERE id = $5 AND run_token = $6 AND state = $7`, ImportFailed, string(problems), msg, s.clock.Now().UnixMilli(), id, token, ImportRunning)
	if err != nil {
		return "", fmt.Errorf("import job %d: fail: %w", id, err)
	}
	log.Info("import job failed", "why", msg, "rows", len(rows))
	s.setProgress(ctx, keys.ImportProgress(id), "phase", ImportFailed)
	return ImportFailed, nil
}

// setProgress writes fields of a job's progress hash; a failure only
// leaves the page's numbers behind.
func (s *Service) setProgress(ctx context.Context, key string, fields ...any) {
	pipe := s.rdb.Pipeline()
	pipe.HSet(ctx, key, fields...)
	pipe.Expire(ctx, key, 24*time.Hour)
	if _, err := pipe.Exec(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("import job: progress", "key", key, "err", err)
	}
}

// renewImportRun renews the run's lease every third of it until stopped,
// and cancels the run when the lease is lost (or cannot be renewed in
// time), so that a run that may no longer hold its job does not commit.
func (s *Service) renewImportRun(ctx context.Context, cancel context.CancelCauseFunc, lease, token string) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(importRunLease / 3)
		defer t.Stop()
		lastHeld := time.Now()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			rctx, rcancel := context.WithTimeout(ctx, importRunLease/3)
			n, err := renewImportRun.Run(rctx, s.rdb, []string{lease}, token, importRunLease.Milliseconds()).Int()
			rcancel()
			switch {
			case err == nil && n == 1:
				lastHeld = time.Now()
			case err == nil:
				cancel(errImportLost)
				return
			case time.Since(lastHeld) > importRunLease*2/3:
				cancel(fmt.Errorf("import: lease not renewed: %w", err))
				return
			}
		}
	}()
	return func() { close(done); <-finished }
}
