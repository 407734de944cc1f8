-- 0005: a row a person decided on is reported as what was decided.
--
-- `run_rows.status` gains `ignored`: the row's reference was marked `ignore` in
-- `ratewatch review` (a customer the service will never know). It is neither a failure nor
-- "no match": it costs no call, stops coming back as a problem, and is counted apart
-- (`runs.rows_ignored`).
--
-- `decisions.decision` gains `reject`: none of the candidates the service offered for the
-- row's search is the company. The row is reported `unresolved` with that reason, costs no
-- search, and stays in the review until it is given an identifier, accepted or ignored.
--
-- SQLite cannot change a CHECK constraint in place, so both tables are rebuilt; the view
-- that reads `run_rows` is dropped first and created again with the same definition as in
-- 0003. `run_rows` is copied in its key order, so the copy writes each page once.

DROP VIEW run_results;

CREATE TABLE run_rows_new (
    run_id     INTEGER NOT NULL REFERENCES runs (id),
    line       INTEGER NOT NULL,                   -- line where the record starts; header is 1
    input_id   INTEGER NOT NULL REFERENCES inputs (id),
    status     TEXT    NOT NULL
               CHECK (status IN ('rated', 'unresolved', 'ambiguous', 'invalid', 'failed',
                                 'ignored')),
    company    INTEGER REFERENCES companies (id),
    error      TEXT,
    candidates TEXT,                               -- JSON array for 'ambiguous'
    PRIMARY KEY (run_id, line)
) WITHOUT ROWID;

INSERT INTO run_rows_new (run_id, line, input_id, status, company, error, candidates)
SELECT run_id, line, input_id, status, company, error, candidates
FROM run_rows ORDER BY run_id, line;

DROP TABLE run_rows;
ALTER TABLE run_rows_new RENAME TO run_rows;

ALTER TABLE runs ADD COLUMN rows_ignored INTEGER NOT NULL DEFAULT 0;

CREATE TABLE decisions_new (
    ref        TEXT NOT NULL,
    search_key TEXT NOT NULL,
    decision   TEXT NOT NULL CHECK (decision IN ('accept', 'ignore', 'reject')),
    company_id TEXT,                               -- the service's UUID, for `accept`
    decided_at TEXT NOT NULL,
    source     TEXT NOT NULL,                      -- a file path, or `command line`
    PRIMARY KEY (ref, search_key),
    CHECK ((decision = 'accept') = (company_id IS NOT NULL))
) WITHOUT ROWID;

INSERT INTO decisions_new (ref, search_key, decision, company_id, decided_at, source)
SELECT ref, search_key, decision, company_id, decided_at, source FROM decisions;

DROP TABLE decisions;
ALTER TABLE decisions_new RENAME TO decisions;

-- As in 0003.
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
       CASE WHEN r.color IN ('red', 'black')
              OR rc.change IN ('deteriorated', 'improved', 'changed', 'gone')
              OR (rc.change = 'new'
                  AND r.color NOT IN ('green', 'yellow', 'red', 'black', 'white'))
            THEN 1 ELSE 0 END AS alert,
       rr.error,
       rr.candidates,
       r.last_refresh_date    AS last_refresh_date,
       i.extra                AS extra
FROM run_rows rr
JOIN inputs i              ON i.id = rr.input_id
LEFT JOIN companies c      ON c.id = rr.company
LEFT JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = rr.company
                          AND (rr.status = 'rated'
                               OR (rr.status = 'unresolved' AND rc.change = 'gone'))
LEFT JOIN ratings r        ON r.id = rc.rating_id
LEFT JOIN ratings p        ON p.id = rc.previous_rating_id;
