-- 0003: a company that disappears is news, a color outside the five is an alert the first
-- time it is seen, the reports show when the service last recalculated each rating (and
-- whether that is long ago, on the service's own clock), and a run keeps the notices its
-- summary opened with.
--
-- `run_companies.change` gains `gone`: the service answered "not found" for a company it
-- had rated before (by its id, and again after a new search). The row points at the
-- company's last rating, so the reports keep its last color, and that rating's
-- `confirmed_at` says when it was last seen. A company is reported gone once; the runs
-- after it find the search cached as unresolved.
--
-- SQLite cannot change a CHECK constraint in place, so the table is rebuilt, with the
-- views that read it dropped first and created again (the same definitions as in 0002
-- for `color_periods` and `color_changes`).

DROP VIEW run_results;
DROP VIEW color_periods;
DROP VIEW color_changes;

CREATE TABLE run_companies_new (
    run_id             INTEGER NOT NULL REFERENCES runs (id),
    company            INTEGER NOT NULL REFERENCES companies (id),
    rating_id          INTEGER NOT NULL REFERENCES ratings (id),
    previous_rating_id INTEGER REFERENCES ratings (id),
    change             TEXT    NOT NULL
                       CHECK (change IN ('new', 'unchanged', 'evolved', 'deteriorated',
                                         'improved', 'changed', 'gone')),
    PRIMARY KEY (run_id, company)
) WITHOUT ROWID;

INSERT INTO run_companies_new (run_id, company, rating_id, previous_rating_id, change)
SELECT run_id, company, rating_id, previous_rating_id, change FROM run_companies;

DROP TABLE run_companies;
ALTER TABLE run_companies_new RENAME TO run_companies;

CREATE INDEX run_companies_color_starts ON run_companies (company, rating_id, previous_rating_id)
    WHERE change IN ('new', 'deteriorated', 'improved', 'changed');

CREATE INDEX run_companies_color_changes ON run_companies (rating_id)
    WHERE change IN ('deteriorated', 'improved', 'changed');

-- Whether a company was already reported gone with its last rating (news once).
CREATE INDEX run_companies_gone ON run_companies (company, rating_id) WHERE change = 'gone';

-- Notices about the run as a whole, as a JSON array of sentences: the kept copy of the
-- lookup lists was used, the portfolio shrank, the rate limit stopped the run.
ALTER TABLE runs ADD COLUMN notes TEXT;

-- The service's time (its requestDate) when the run got its first rating. A rating is stale
-- when its lastRefreshDate is long before this: both dates are the service's, so a skewed
-- clock here (or the simulator's calendar) cannot make every rating look old.
ALTER TABLE runs ADD COLUMN service_time TEXT;

-- The columns of a portfolio that ratewatch does not read (an exposure, a sales owner) are
-- carried through to the reports: `inputs.extra` holds a row's, as a JSON object of the
-- filled ones, and `runs.extra_columns` the headers, in the file's order (a JSON array).
ALTER TABLE inputs ADD COLUMN extra TEXT;
ALTER TABLE runs ADD COLUMN extra_columns TEXT;

-- As in 0001, plus: a gone company's row (status `unresolved`) shows its last rating;
-- `gone` and a first sighting of an unknown color are alerts; the rating's
-- `last_refresh_date` is shown. (Not its `confirmed_at`: later runs move it, and a past
-- run's report must read the same whenever it is written again.)
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
-- One row per period of one color of one company; see 0002.
CREATE VIEW color_periods AS
SELECT c.company_id,
       c.name,
       c.country,
       r.color,
       max(min(coalesce(r.last_change_date, r.observed_at), r.observed_at),
           coalesce(p.confirmed_at, ''))                  AS valid_from,
       max(min(coalesce(n.last_change_date, n.observed_at), n.observed_at),
           l.confirmed_at)                                AS valid_to,
       r.observed_at,
       l.confirmed_at,
       r.first_run_id,
       l.last_run_id
FROM run_companies s                                       -- the period's first observation
JOIN companies c ON c.id = s.company
JOIN ratings r   ON r.id = s.rating_id
LEFT JOIN ratings p ON p.id = s.previous_rating_id         -- the previous period's last one
LEFT JOIN run_companies ns                                 -- the next period's first one
       ON ns.company = s.company
      AND ns.change IN ('new', 'deteriorated', 'improved', 'changed')
      AND ns.rating_id = (SELECT min(rating_id) FROM run_companies
                          WHERE company = s.company AND rating_id > s.rating_id
                            AND change IN ('new', 'deteriorated', 'improved', 'changed'))
LEFT JOIN ratings n ON n.id = ns.rating_id
JOIN ratings l                                             -- this period's last observation
       ON l.id = coalesce(ns.previous_rating_id,
                          (SELECT max(id) FROM ratings WHERE company = s.company))
WHERE s.change IN ('new', 'deteriorated', 'improved', 'changed');

CREATE VIEW color_changes AS
SELECT c.company_id,
       c.name,
       p.color                                     AS from_color,
       r.color                                     AS to_color,
       coalesce(r.last_change_date, r.observed_at) AS changed_at,
       r.observed_at,
       s.run_id
FROM run_companies s
JOIN ratings r   ON r.id = s.rating_id
JOIN ratings p   ON p.id = s.previous_rating_id
JOIN companies c ON c.id = s.company
WHERE s.change IN ('deteriorated', 'improved', 'changed');
