-- Catalog imports run as jobs: the upload checks the file and writes a
-- queued row here with the file's rows (rows_json, emptied when the job
-- ends); the imports worker of any instance runs it (state running: checks
-- then applies in one transaction) and leaves it done, with its counts, or
-- failed, with the refused rows (problems, JSON) or why it stopped
-- (message). run_token is the run that holds the job: the apply commits
-- only while it is still the job's. attempts counts the runs started (a
-- run cut short by a stopped instance is started again, up to a limit).
-- new_categories is the admin's "create the categories" box; times are
-- Unix milliseconds.
CREATE TABLE import_jobs (
    id              {{ID}},
    state           TEXT NOT NULL,
    admin           TEXT NOT NULL,
    new_categories  BIGINT NOT NULL DEFAULT 0,
    rows_total      BIGINT NOT NULL,
    rows_json       TEXT NOT NULL,
    run_token       TEXT NOT NULL DEFAULT '',
    attempts        BIGINT NOT NULL DEFAULT 0,
    created_items   BIGINT NOT NULL DEFAULT 0,
    updated_items   BIGINT NOT NULL DEFAULT 0,
    unchanged_items BIGINT NOT NULL DEFAULT 0,
    new_names       TEXT NOT NULL DEFAULT '[]',
    problems        TEXT NOT NULL DEFAULT '[]',
    message         TEXT NOT NULL DEFAULT '',
    created_at      BIGINT NOT NULL,
    started_at      BIGINT NOT NULL DEFAULT 0,
    finished_at     BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX import_jobs_open ON import_jobs (state, id);
