-- 0023: the amount at stake. `run_alerts.amount` holds the amount column summed over an
-- alert company's rows; `run_colors.new_rows` counts the rows that came into a color
-- through a change, and `run_colors.amount` sums the amount column over a color's rows.
-- Both tables are rebuilt as migrations/schema.sql has them (their rows keep their values;
-- the new columns start empty for past runs). `run_deliveries` records what each run
-- handed to the webhook and the email.
PRAGMA legacy_alter_table = ON;

DROP INDEX IF EXISTS run_alerts_order;
DROP INDEX IF EXISTS run_alerts_listed;
ALTER TABLE run_alerts RENAME TO old_run_alerts;
ALTER TABLE run_colors RENAME TO old_run_colors;

CREATE TABLE run_alerts (
    run_id         INTEGER NOT NULL REFERENCES runs (id),
    company        INTEGER NOT NULL REFERENCES companies (id),
    kind           TEXT    NOT NULL
                   CHECK (kind IN ('black', 'red', 'deteriorated', 'white', 'gone', 'unknown',
                                   'changed', 'improved', 'still')),
    severity       INTEGER NOT NULL,               -- 1 for the worst kind, in the order above
    first_line     INTEGER NOT NULL,               -- the first input line holding the company
    refs           TEXT,                           -- its rows' refs, comma-separated
    listed         INTEGER NOT NULL,               -- 1: in the summary; 0: counted only
    acked          INTEGER NOT NULL DEFAULT 0,     -- 1: an acknowledgement applied
    previous_color TEXT,                           -- the color the alert compares with
    amount         REAL,                           -- the amount column over its rows, if named
    PRIMARY KEY (run_id, company)
) WITHOUT ROWID;
CREATE INDEX run_alerts_order ON run_alerts (run_id, severity, first_line);
CREATE INDEX run_alerts_listed ON run_alerts (company, run_id) WHERE listed = 1;

CREATE TABLE run_colors (
    run_id   INTEGER NOT NULL REFERENCES runs (id),
    color    TEXT    NOT NULL,
    rows     INTEGER NOT NULL,
    new_rows INTEGER NOT NULL DEFAULT 0,           -- rows whose company came into it by a change
    amount   REAL,                                 -- the amount column over its rows, if named
    PRIMARY KEY (run_id, color)
) WITHOUT ROWID;

INSERT INTO run_alerts (run_id, company, kind, severity, first_line, refs, listed, acked,
                        previous_color)
SELECT run_id, company, kind, severity, first_line, refs, listed, acked, previous_color
FROM old_run_alerts;
INSERT INTO run_colors (run_id, color, rows) SELECT run_id, color, rows FROM old_run_colors;
-- Each past run's news, counted once over its rows as a run now counts them when it ends.
UPDATE run_colors SET new_rows = (
    SELECT count(*)
    FROM run_rows rr
    JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = rr.company
    JOIN ratings r        ON r.id = rc.rating_id
    WHERE rr.run_id = run_colors.run_id AND rr.status = 'rated'
      AND r.color = run_colors.color
      AND rc.change IN ('deteriorated', 'improved', 'changed'));

DROP TABLE old_run_alerts;
DROP TABLE old_run_colors;

-- What each run handed to each channel (`webhook`, `email`): pending until the channel
-- took it. A run's message that no channel took is sent again by the next run of its
-- portfolio, so a receiver that was down loses no news.
CREATE TABLE IF NOT EXISTS run_deliveries (
    run_id       INTEGER NOT NULL REFERENCES runs (id),
    channel      TEXT    NOT NULL CHECK (channel IN ('webhook', 'email')),
    delivered_at TEXT,                             -- when the channel took it; NULL: pending
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,                             -- why the last attempt failed
    PRIMARY KEY (run_id, channel)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS run_deliveries_pending ON run_deliveries (channel, run_id) WHERE delivered_at IS NULL;

PRAGMA legacy_alter_table = OFF;
