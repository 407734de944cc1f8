-- 0029: per-night detail kept for a while, the history forever. A run's rows (`run_rows`,
-- `run_companies` but the companies found gone, `run_reused_ratings`) are deleted once the
-- run is older than `keep_run_details_days` (90 by default); `runs.details_pruned_at` says
-- when, so readers and `ratewatch report --run N` can say the rows are no longer kept.
-- The run's summary (`runs`, `run_colors`, `run_alerts`, `run_deliveries`) and the color
-- history are never deleted.
--
-- `runs` is rebuilt as migrations/schema.sql has it and its rows copied (the new column
-- empty), so this step does right by a database of version 28 and by one the conversion
-- (0022) just made. The views and the other tables' keys name `runs` and find the new one.
PRAGMA legacy_alter_table = ON;

ALTER TABLE runs RENAME TO old_runs;

CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    portfolio       TEXT    NOT NULL,              -- the portfolio's name (default: file stem)
    input_path      TEXT    NOT NULL,
    input_sha256    TEXT    NOT NULL,
    started_at      TEXT    NOT NULL,
    finished_at     TEXT,
    status          TEXT    NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'complete', 'partial', 'interrupted', 'failed')),
    delivered_at    TEXT,                          -- when its summary and reports were out;
                                                   -- NULL while running, or if it never got there
    demo_day        INTEGER,                       -- simulated day of a --demo run, else NULL
    rows_total      INTEGER NOT NULL DEFAULT 0,
    rows_rated      INTEGER NOT NULL DEFAULT 0,
    rows_unresolved INTEGER NOT NULL DEFAULT 0,
    rows_ambiguous  INTEGER NOT NULL DEFAULT 0,
    rows_invalid    INTEGER NOT NULL DEFAULT 0,
    rows_failed     INTEGER NOT NULL DEFAULT 0,
    rows_ignored    INTEGER NOT NULL DEFAULT 0,
    alerts          INTEGER NOT NULL DEFAULT 0,
    calls           TEXT,                          -- JSON object: API calls made, by endpoint
    notes           TEXT,                          -- JSON array of notices the summary gave
    service_time    TEXT,                          -- the service's clock at the run's first answer
    extra_columns   TEXT,                          -- JSON array: the carried columns, in order
    amount_column   TEXT,                          -- the carried column read as each row's amount
                                                   -- (`[alerts] amount`, or min_exposure's); NULL:
                                                   -- none, or a run before version 28
    details_pruned_at TEXT                         -- when its rows were deleted, being older than
                                                   -- keep_run_details_days (its summary stays);
                                                   -- NULL: kept
);

INSERT INTO runs (id, portfolio, input_path, input_sha256, started_at, finished_at, status,
                  delivered_at, demo_day, rows_total, rows_rated, rows_unresolved,
                  rows_ambiguous, rows_invalid, rows_failed, rows_ignored, alerts, calls,
                  notes, service_time, extra_columns, amount_column)
SELECT id, portfolio, input_path, input_sha256, started_at, finished_at, status,
       delivered_at, demo_day, rows_total, rows_rated, rows_unresolved,
       rows_ambiguous, rows_invalid, rows_failed, rows_ignored, alerts, calls,
       notes, service_time, extra_columns, amount_column
FROM old_runs
ORDER BY id;

DROP TABLE old_runs;
CREATE INDEX runs_by_portfolio ON runs (portfolio, id);
