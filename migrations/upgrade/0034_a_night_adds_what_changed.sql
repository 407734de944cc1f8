-- 0034: a night adds what changed. A run's rows were a row each (`run_rows`), and each
-- company it rated a row saying `unchanged` with its rating twice (`run_companies`):
-- nearly all the same as the night before's, and most of what the database grew by
-- every night (benches/RESULTS.md, "a year of nights").
-- - The rows are now stretches of a portfolio's runs (`run_row_spans`): the next run that
--   makes the same of a row moves the stretch's last run on. `run_rows` becomes a view
--   with the same columns; the rows a summary named are a table of their own
--   (`run_named_lines`), being one run's alone.
-- - The companies are `run_company_ratings`, where an unchanged company's `change` and
--   `previous_rating_id` are NULL; `run_companies` becomes a view with the same columns.
-- `run_results` reads the new tables. Every view answers as before.

-- What runs made of each row of their portfolio's file: one row for a stretch of the
-- portfolio's runs, from `first_run_id` to `last_run_id`, each of which made the same of
-- it (every run of the portfolio between the two). A night that makes the same of a row
-- as the night before moves `last_run_id` on and adds nothing. The view `run_rows` lays
-- the stretches out, one row per run.
CREATE TABLE run_row_spans (
    portfolio         TEXT    NOT NULL,            -- the runs' portfolio (`runs.portfolio`)
    line              INTEGER NOT NULL,            -- where the record starts; the header is 1
    first_run_id      INTEGER NOT NULL REFERENCES runs (id),
    last_run_id       INTEGER NOT NULL REFERENCES runs (id),
    input_id          INTEGER NOT NULL REFERENCES inputs (id),
    status            TEXT    NOT NULL
                      CHECK (status IN ('rated', 'unresolved', 'ambiguous', 'invalid', 'failed',
                                        'ignored')),
    company           INTEGER REFERENCES companies (id),
    found_by          TEXT,                        -- the search that found it: `SIREN 552100554`,
                                                   -- `name`, `company_id` or `review`
    error             TEXT,
    candidates        TEXT,                        -- JSON array, for `ambiguous`
    country_defaulted INTEGER NOT NULL DEFAULT 0,  -- 1: screened with the default country
    extra_unreliable  INTEGER NOT NULL DEFAULT 0,  -- 1: more fields than the header
    amount            REAL,                        -- its amount, read from the runs'
                                                   -- `amount_column` as the alerts read it;
                                                   -- NULL: none, blank or unreadable
    PRIMARY KEY (portfolio, line, first_run_id)
) WITHOUT ROWID;
-- Every run's rows of a company.
CREATE INDEX run_row_spans_by_company ON run_row_spans (company) WHERE company IS NOT NULL;

-- The rows a run's summary named as not screened (`run_rows.named`).
CREATE TABLE run_named_lines (
    run_id INTEGER NOT NULL REFERENCES runs (id),
    line   INTEGER NOT NULL,
    PRIMARY KEY (run_id, line)
) WITHOUT ROWID;

-- The stretches, from the rows: a row starts one unless the portfolio's run before held
-- the same at its line.
INSERT INTO run_row_spans (portfolio, line, first_run_id, last_run_id, input_id, status,
                           company, found_by, error, candidates, country_defaulted,
                           extra_unreliable, amount)
WITH runs_in_order AS (
    SELECT id, portfolio, lag(id) OVER (PARTITION BY portfolio ORDER BY id) AS previous
    FROM runs
),
starts AS (
    SELECT u.portfolio, rr.*,
           NOT EXISTS (SELECT 1 FROM run_rows o
                       WHERE o.run_id = u.previous AND o.line = rr.line
                         AND o.input_id = rr.input_id AND o.status = rr.status
                         AND o.company IS rr.company AND o.found_by IS rr.found_by
                         AND o.error IS rr.error AND o.candidates IS rr.candidates
                         AND o.country_defaulted = rr.country_defaulted
                         AND o.extra_unreliable = rr.extra_unreliable
                         AND o.amount IS rr.amount) AS starts
    FROM run_rows rr
    JOIN runs_in_order u ON u.id = rr.run_id
),
numbered AS (
    SELECT *, sum(starts) OVER (PARTITION BY portfolio, line ORDER BY run_id) AS stretch
    FROM starts
)
SELECT portfolio, line, min(run_id), max(run_id), input_id, status, company, found_by, error,
       candidates, country_defaulted, extra_unreliable, amount
FROM numbered
GROUP BY portfolio, line, stretch;

INSERT INTO run_named_lines (run_id, line)
SELECT run_id, line FROM run_rows WHERE named = 1;

-- Each company a run rated (or found gone): its rating then and, when it changed, the
-- one before and the change. A nightly run's companies are mostly unchanged, the rating
-- before being the rating itself: `change` and `previous_rating_id` are then NULL (the
-- view `run_companies` says `unchanged` and names the rating twice).
CREATE TABLE run_company_ratings (
    run_id             INTEGER NOT NULL REFERENCES runs (id),
    company            INTEGER NOT NULL REFERENCES companies (id),
    rating_id          INTEGER NOT NULL REFERENCES ratings (id),
    previous_rating_id INTEGER REFERENCES ratings (id), -- NULL when new, or `change` is
    change             TEXT                            -- NULL: unchanged
                       CHECK (change IN ('new', 'unchanged', 'evolved', 'deteriorated',
                                         'improved', 'changed', 'gone')),
    PRIMARY KEY (run_id, company)
) WITHOUT ROWID;
-- Each company found gone.
CREATE INDEX run_company_ratings_gone ON run_company_ratings (company, rating_id)
    WHERE change = 'gone';

INSERT INTO run_company_ratings (run_id, company, rating_id, previous_rating_id, change)
SELECT run_id, company, rating_id,
       iif(change = 'unchanged' AND previous_rating_id IS rating_id, NULL, previous_rating_id),
       iif(change = 'unchanged' AND previous_rating_id IS rating_id, NULL, change)
FROM run_companies;

DROP VIEW IF EXISTS run_results;
DROP TABLE run_rows;
DROP TABLE run_companies;

-- What each run made of each row of its file, one row per run and line (the stretches of
-- `run_row_spans`, laid out over their runs). A run whose rows are no longer kept
-- (`runs.details_pruned_at`) has none. `named`: 1 when the summary named it as not
-- screened. (The table of version 33, as it was: read `run_results`.)
CREATE VIEW run_rows AS
SELECT u.id                               AS run_id,
       s.line,
       s.input_id,
       s.status,
       s.company,
       s.found_by,
       s.error,
       s.candidates,
       s.country_defaulted,
       s.extra_unreliable,
       EXISTS (SELECT 1 FROM run_named_lines n WHERE n.run_id = u.id AND n.line = s.line)
                                          AS named,
       s.amount
FROM run_row_spans s
JOIN runs u ON u.portfolio = s.portfolio AND u.id BETWEEN s.first_run_id AND s.last_run_id
           AND u.details_pruned_at IS NULL;

-- Each company a run rated (or found gone): its rating then, the one before, and the
-- change: `new`, `unchanged`, `evolved` (same color, new change date), `deteriorated`,
-- `improved`, `changed`, or `gone`. (The table of version 33, as it was.)
CREATE VIEW run_companies AS
SELECT o.run_id,
       o.company,
       o.rating_id,
       iif(o.change IS NULL, o.rating_id, o.previous_rating_id) AS previous_rating_id,
       coalesce(o.change, 'unchanged')   AS change
FROM run_company_ratings o;

-- Every row of every run, as its reports show it. A service date more than a day after
-- ratewatch first saw it (the rating's `observed_at`; for a later refresh, the end of the
-- run that noted it, or now while it runs) is shown as that moment: it cannot be true, and
-- the reports age the rating from it (`ratings` and `rating_refreshes` keep the service's
-- date). The refresh date is the rating's latest up to the run.
-- `name` and `given_name` are the file's; `company_name` the service's. `amount` is the
-- row's amount as the alerts and the totals at stake read it, from `amount_column`.
CREATE VIEW run_results AS
SELECT u.id                               AS run_id,
       s.line,
       i.ref,
       i.country,
       i.service,
       i.external_id,
       i.name,
       s.status,
       s.company,
       c.company_id,
       c.name                             AS company_name,
       r.color,
       p.color                            AS previous_color,
       iif(rc.rating_id IS NULL, NULL, coalesce(rc.change, 'unchanged')) AS change,
       CASE WHEN julianday(r.last_change_date) > julianday(r.observed_at, '+1 day')
            THEN r.observed_at ELSE r.last_change_date END   AS last_change_date,
       CASE WHEN julianday(iif(h.rating IS NULL, r.last_refresh_date, h.last_refresh_date))
                 > julianday(iif(h.rating IS NULL, r.observed_at,
                         coalesce(hu.finished_at, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))), '+1 day')
            THEN iif(h.rating IS NULL, r.observed_at,
                         coalesce(hu.finished_at, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))
            ELSE iif(h.rating IS NULL, r.last_refresh_date, h.last_refresh_date)
       END                                AS last_refresh_date,
       ra.kind IS NOT NULL                AS alert,
       ra.kind                            AS alert_kind,
       ra.listed                          AS alert_listed,
       ra.acked                           AS alert_acked,
       s.error,
       s.candidates,
       s.found_by,
       i.extra,
       i.name                             AS given_name,
       c.company_id                       AS company_uuid,
       rc.rating_id,
       iif(rc.change IS NULL, rc.rating_id, rc.previous_rating_id) AS previous_rating_id,
       EXISTS (SELECT 1 FROM run_named_lines n WHERE n.run_id = u.id AND n.line = s.line)
                                          AS named,
       s.country_defaulted,
       s.extra_unreliable,
       s.amount,
       u.amount_column
FROM run_row_spans s                                      -- the rows (`run_rows`)
JOIN runs u                ON u.portfolio = s.portfolio
                          AND u.id BETWEEN s.first_run_id AND s.last_run_id
                          AND u.details_pruned_at IS NULL
JOIN inputs i              ON i.id = s.input_id
LEFT JOIN companies c      ON c.id = s.company
LEFT JOIN run_company_ratings rc ON rc.run_id = u.id AND rc.company = s.company
                          AND (s.status = 'rated'
                               OR (s.status = 'unresolved' AND rc.change = 'gone'))
LEFT JOIN ratings r        ON r.id = rc.rating_id
LEFT JOIN ratings p        ON p.id = iif(rc.change IS NULL, rc.rating_id, rc.previous_rating_id)
LEFT JOIN rating_refreshes h ON h.rating = rc.rating_id
      AND h.run_id = (SELECT max(run_id) FROM rating_refreshes
                      WHERE rating = rc.rating_id AND run_id <= u.id)
LEFT JOIN runs hu          ON hu.id = h.run_id
LEFT JOIN run_alerts ra    ON ra.run_id = u.id AND ra.company = rc.company;

