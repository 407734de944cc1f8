-- 0001: the first schema.
-- ratewatch keeps what it learned so a nightly run spends no call it could avoid, and the
-- history of every company's color so an analyst can ask when it changed. Times are ISO 8601
-- UTC text, colors lowercase text. The history is append-only: a new `ratings` row when the
-- color or either service date changes; an unchanged re-check only moves `confirmed_at`.

-- One screening of one portfolio file.
CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    portfolio       TEXT    NOT NULL,              -- the portfolio's name (default: file stem)
    input_path      TEXT    NOT NULL,
    input_sha256    TEXT    NOT NULL,
    started_at      TEXT    NOT NULL,
    finished_at     TEXT,
    status          TEXT    NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'complete', 'partial', 'interrupted', 'failed')),
    demo_day        INTEGER,                       -- simulated day of a --demo run, else NULL
    rows_total      INTEGER NOT NULL DEFAULT 0,
    rows_rated      INTEGER NOT NULL DEFAULT 0,
    rows_unresolved INTEGER NOT NULL DEFAULT 0,
    rows_ambiguous  INTEGER NOT NULL DEFAULT 0,
    rows_invalid    INTEGER NOT NULL DEFAULT 0,
    rows_failed     INTEGER NOT NULL DEFAULT 0,
    alerts          INTEGER NOT NULL DEFAULT 0,
    calls           TEXT                           -- JSON: API calls made, by endpoint
);

-- Companies as the service describes them. `id` is a small internal key that the other
-- tables use (compact history); `company_id` is the service's UUID, which the views show.
CREATE TABLE companies (
    id            INTEGER PRIMARY KEY,
    company_id    TEXT NOT NULL UNIQUE,
    name          TEXT,
    country       TEXT,
    street_number TEXT,
    street_name   TEXT,
    postcode      TEXT,
    city          TEXT,
    phone         TEXT,
    legal_form    TEXT,
    first_seen_at TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE TABLE company_external_ids (
    company     INTEGER NOT NULL REFERENCES companies (id),
    service     TEXT    NOT NULL,
    external_id TEXT    NOT NULL,
    PRIMARY KEY (company, service, external_id)
) WITHOUT ROWID;

CREATE INDEX company_external_ids_by_value ON company_external_ids (external_id);

-- The resolution cache: normalized input (id search or name search with its filters) to
-- what the service answered. Errors are never stored here: they must be retried.
CREATE TABLE resolutions (
    input_key   TEXT PRIMARY KEY,
    outcome     TEXT NOT NULL CHECK (outcome IN ('resolved', 'ambiguous', 'unresolved')),
    company     INTEGER REFERENCES companies (id),
    candidates  TEXT,                              -- JSON array for 'ambiguous'
    resolved_at TEXT NOT NULL
);

-- Rating history: one row per distinct observation of a company's rating.
CREATE TABLE ratings (
    id                INTEGER PRIMARY KEY,
    company           INTEGER NOT NULL REFERENCES companies (id),
    color             TEXT    NOT NULL,
    last_change_date  TEXT,                        -- the service's lastChangeDate
    last_refresh_date TEXT,                        -- the service's lastRefreshDate
    observed_at       TEXT    NOT NULL,            -- first time ratewatch saw this rating
    confirmed_at      TEXT    NOT NULL,            -- last time ratewatch saw it unchanged
    first_run_id      INTEGER REFERENCES runs (id),
    last_run_id       INTEGER REFERENCES runs (id)
);

CREATE INDEX ratings_by_company ON ratings (company, id);
CREATE INDEX ratings_by_observed ON ratings (observed_at);

-- What each run observed for each company it rated, and how that compares with the
-- company's latest earlier observation.
CREATE TABLE run_companies (
    run_id             INTEGER NOT NULL REFERENCES runs (id),
    company            INTEGER NOT NULL REFERENCES companies (id),
    rating_id          INTEGER NOT NULL REFERENCES ratings (id),
    previous_rating_id INTEGER REFERENCES ratings (id),
    change             TEXT    NOT NULL
                       CHECK (change IN ('new', 'unchanged', 'evolved', 'deteriorated', 'improved', 'changed')),
    PRIMARY KEY (run_id, company)
) WITHOUT ROWID;

-- Input rows as given, stored once however many runs read them: a nightly re-run of the
-- same portfolio adds no input rows, only its outcomes.
CREATE TABLE inputs (
    id               INTEGER PRIMARY KEY,
    digest           BLOB NOT NULL UNIQUE,         -- hash of every field below
    ref              TEXT,
    country          TEXT,
    service          TEXT,
    external_id      TEXT,
    name             TEXT,
    street_number    TEXT,
    street_name      TEXT,
    city             TEXT,
    postcode         TEXT,
    phone            TEXT,
    given_company_id TEXT
);

-- Each input row's outcome in each run.
CREATE TABLE run_rows (
    run_id     INTEGER NOT NULL REFERENCES runs (id),
    line       INTEGER NOT NULL,                   -- line where the record starts; header is 1
    input_id   INTEGER NOT NULL REFERENCES inputs (id),
    status     TEXT    NOT NULL
               CHECK (status IN ('rated', 'unresolved', 'ambiguous', 'invalid', 'failed')),
    company    INTEGER REFERENCES companies (id),
    error      TEXT,
    candidates TEXT,                               -- JSON array for 'ambiguous'
    PRIMARY KEY (run_id, line)
) WITHOUT ROWID;

-- The service's lookup lists, fetched once per run; the last good copy is kept.
CREATE TABLE lookup_countries (
    code       TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    fetched_at TEXT NOT NULL
);

CREATE TABLE lookup_services (
    country    TEXT NOT NULL,
    code       TEXT NOT NULL,
    label      TEXT NOT NULL,
    fetched_at TEXT NOT NULL,
    PRIMARY KEY (country, code)
) WITHOUT ROWID;

-- Each input row of each run with its company's rating and change: what the reports show.
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
              OR rc.change IN ('deteriorated', 'improved', 'changed')
            THEN 1 ELSE 0 END AS alert,
       rr.error,
       rr.candidates
FROM run_rows rr
JOIN inputs i              ON i.id = rr.input_id
LEFT JOIN companies c      ON c.id = rr.company
LEFT JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = rr.company
                          AND rr.status = 'rated'
LEFT JOIN ratings r        ON r.id = rc.rating_id
LEFT JOIN ratings p        ON p.id = rc.previous_rating_id;

-- One row per company: its latest known rating.
CREATE VIEW latest_ratings AS
SELECT c.company_id,
       c.name,
       c.country,
       r.color,
       r.last_change_date,
       r.confirmed_at
FROM ratings r
JOIN companies c ON c.id = r.company
WHERE r.id = (SELECT max(id) FROM ratings WHERE company = r.company);

-- Every change of color, with the run that saw it.
CREATE VIEW color_changes AS
SELECT company_id,
       name,
       from_color,
       to_color,
       changed_at,
       observed_at,
       run_id
FROM (
    SELECT c.company_id,
           c.name,
           lag(r.color) OVER (PARTITION BY r.company ORDER BY r.id) AS from_color,
           r.color                                                  AS to_color,
           coalesce(r.last_change_date, r.observed_at)              AS changed_at,
           r.observed_at,
           r.first_run_id                                           AS run_id
    FROM ratings r
    JOIN companies c ON c.id = r.company
)
WHERE from_color IS NOT NULL AND from_color <> to_color;
