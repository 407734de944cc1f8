-- 0006: alerts follow the rules of `[alerts]` in ratewatch.toml, and a person can say an
-- alert was seen.
--
-- Which companies of a run are alerts depends on rules that can change between runs (which
-- changes alert, how often a company still red is listed again, a minimum exposure), so a
-- run records its verdict instead of the views recomputing it: `run_alerts` has one row per
-- company that is an alert in the run, with its kind (severity order: black, red,
-- deteriorated, white, gone, unknown, changed, improved, still), the refs of the rows that
-- hold it, and whether the summary listed it (news by the rules) or only counted it (a
-- standing alert between its repeats, or one acknowledged). `report --run N` reads it, so
-- a past run's reports stay as they were written.
--
-- `acks` holds what `ratewatch ack` recorded: one per company, until the company's color
-- changes again (the run that sees the change removes it) or its `until` passes.
--
-- Runs before this one are given the verdict of the rules they ran under: every red or
-- black company, every change, a company gone and an unknown color first seen, all listed.
-- `run_results.alert` reads `run_alerts`; its other columns are as in 0005.

CREATE TABLE run_alerts (
    run_id     INTEGER NOT NULL REFERENCES runs (id),
    company    INTEGER NOT NULL REFERENCES companies (id),
    kind       TEXT    NOT NULL
               CHECK (kind IN ('black', 'red', 'deteriorated', 'white', 'gone', 'unknown',
                               'changed', 'improved', 'still')),
    severity   INTEGER NOT NULL,                   -- 1 for the worst kind, in the order above
    first_line INTEGER NOT NULL,                   -- the first input line holding the company
    refs       TEXT,                               -- its rows' refs, comma-separated
    listed     INTEGER NOT NULL,                   -- 1: in the summary; 0: counted only
    acked      INTEGER NOT NULL DEFAULT 0,         -- 1: an acknowledgement applied
    PRIMARY KEY (run_id, company)
) WITHOUT ROWID;

-- The summary's order: worst first, then in input order.
CREATE INDEX run_alerts_order ON run_alerts (run_id, severity, first_line);

-- When a company was last listed (the repeat rule of standing alerts).
CREATE INDEX run_alerts_listed ON run_alerts (company, run_id) WHERE listed = 1;

CREATE TABLE acks (
    company  INTEGER PRIMARY KEY REFERENCES companies (id),
    ref      TEXT,                                 -- the ref it was given by, if any
    color    TEXT    NOT NULL,                     -- the company's color when acknowledged
    acked_at TEXT    NOT NULL,
    until    TEXT,                                 -- no longer applies from this time on
    note     TEXT
);

INSERT INTO run_alerts (run_id, company, kind, severity, first_line, refs, listed)
SELECT run_id, company, kind,
       CASE kind WHEN 'black' THEN 1 WHEN 'red' THEN 2 WHEN 'deteriorated' THEN 3
                 WHEN 'white' THEN 4 WHEN 'gone' THEN 5 WHEN 'unknown' THEN 6
                 WHEN 'changed' THEN 7 WHEN 'improved' THEN 8 ELSE 9 END,
       first_line, refs, 1
FROM (
    SELECT rr.run_id, rr.company, min(rr.line) AS first_line,
           replace(group_concat(DISTINCT i.ref), ',', ', ') AS refs,
           CASE
             WHEN rc.change = 'gone' THEN 'gone'
             WHEN rc.change = 'improved' THEN 'improved'
             WHEN rc.change IN ('deteriorated', 'changed') AND r.color = 'black' THEN 'black'
             WHEN rc.change IN ('deteriorated', 'changed') AND r.color = 'red' THEN 'red'
             WHEN rc.change = 'deteriorated' THEN 'deteriorated'
             WHEN rc.change = 'changed' AND r.color = 'white' THEN 'white'
             WHEN rc.change IN ('changed', 'new')
                  AND r.color NOT IN ('green', 'yellow', 'red', 'black', 'white') THEN 'unknown'
             WHEN rc.change = 'changed' THEN 'changed'
             WHEN rc.change = 'new' AND r.color = 'black' THEN 'black'
             WHEN rc.change = 'new' AND r.color = 'red' THEN 'red'
             WHEN rc.change IN ('unchanged', 'evolved') AND r.color IN ('red', 'black')
                  THEN 'still'
           END AS kind
    FROM run_rows rr
    JOIN inputs i         ON i.id = rr.input_id
    JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = rr.company
    JOIN ratings r        ON r.id = rc.rating_id
    WHERE (rr.status = 'rated' OR (rr.status = 'unresolved' AND rc.change = 'gone'))
      AND (r.color IN ('red', 'black')
           OR rc.change IN ('deteriorated', 'improved', 'changed', 'gone')
           OR (rc.change = 'new'
               AND r.color NOT IN ('green', 'yellow', 'red', 'black', 'white')))
    GROUP BY rr.run_id, rr.company
)
WHERE kind IS NOT NULL;

DROP VIEW run_results;

-- As in 0005, with `alert` from the run's recorded verdict, and three columns more: the
-- alert's kind, whether the summary listed it, and whether an acknowledgement applied.
CREATE VIEW run_results AS
SELECT rr.run_id,
       rr.line,
       i.ref,
       i.country,
       i.service,
       i.external_id,
       i.name,
       rr.status,
       c.company_id,
       c.name                 AS company_name,
       r.color                AS color,
       p.color                AS previous_color,
       rc.change              AS change,
       r.last_change_date     AS last_change_date,
       CASE WHEN ra.kind IS NULL THEN 0 ELSE 1 END AS alert,
       rr.error,
       rr.candidates,
       r.last_refresh_date    AS last_refresh_date,
       i.extra                AS extra,
       ra.kind                AS alert_kind,
       ra.listed              AS alert_listed,
       ra.acked               AS alert_acked
FROM run_rows rr
JOIN inputs i              ON i.id = rr.input_id
LEFT JOIN companies c      ON c.id = rr.company
LEFT JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = rr.company
                          AND (rr.status = 'rated'
                               OR (rr.status = 'unresolved' AND rc.change = 'gone'))
LEFT JOIN ratings r        ON r.id = rc.rating_id
LEFT JOIN ratings p        ON p.id = rc.previous_rating_id
LEFT JOIN run_alerts ra    ON ra.run_id = rr.run_id AND ra.company = rc.company;
