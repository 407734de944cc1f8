-- ratewatch's database, as a new one is created. Upgrades from earlier versions end at
-- exactly this schema (see docs/database.md, "Upgrades").
--
-- Conventions:
-- - Times are UTC text, `YYYY-MM-DDTHH:MM:SSZ` (the service's request dates keep their
--   microseconds): they sort and compare as text, and `julianday()` reads them.
-- - A company is `companies.id` (an integer, `company` everywhere else) and the service's
--   UUID `companies.company_id` (lowercase text with hyphens). Both are indexed: join on
--   either.
-- - Colors, statuses and changes are lowercase words, checked where the set is closed.
-- - The rating history is append-only: a new `ratings` row when the color or the change
--   date changes, a `rating_refreshes` row when a run sees a new refresh date alone; a
--   rating seen again only moves its `rating_confirmations`.
-- - A night adds what changed: a run that makes the same of a row as the portfolio's run
--   before moves the stretch's `last_run_id` on (`run_row_spans`), and an unchanged
--   company's `change` is NULL (`run_company_ratings`). The views lay them out per run.
--
-- The views at the end are what readers use; the tables are how ratewatch keeps them.

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
CREATE INDEX runs_by_portfolio ON runs (portfolio, id);

-- The service's lists of countries and of identifier services, as last fetched.
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

-- Companies as the service last described them.
CREATE TABLE companies (
    id            INTEGER PRIMARY KEY,
    company_id    TEXT    NOT NULL UNIQUE,         -- the service's UUID
    name          TEXT,
    country       TEXT,
    street_number TEXT,
    street_name   TEXT,
    postcode      TEXT,
    city          TEXT,
    phone         TEXT,
    legal_form    TEXT,
    latest_rating INTEGER REFERENCES ratings (id), -- its newest row of `ratings` (a trigger keeps it)
    first_seen_at TEXT    NOT NULL,
    updated_at    TEXT    NOT NULL
);

-- Each company's registry identifiers (`SIREN 552100554`), as the service gave them.
CREATE TABLE company_external_ids (
    company     INTEGER NOT NULL REFERENCES companies (id),
    service     TEXT    NOT NULL,                  -- the registry: SIREN, KVK, CRO, …
    external_id TEXT    NOT NULL,
    PRIMARY KEY (company, service, external_id)
) WITHOUT ROWID;
CREATE INDEX company_external_ids_by_id ON company_external_ids (external_id, service);

-- Every rating ratewatch saw, oldest first by `id`: a color with its change date. The
-- later refreshes a run saw of it (the same color and change date) are rows of
-- `rating_refreshes`.
CREATE TABLE ratings (
    id                INTEGER PRIMARY KEY,
    company           INTEGER NOT NULL REFERENCES companies (id),
    color             TEXT    NOT NULL,            -- green, yellow, red, black, white (or what the service said)
    last_change_date  TEXT,                        -- the service's lastChangeDate
    last_refresh_date TEXT,                        -- the service's lastRefreshDate
    observed_at       TEXT    NOT NULL,            -- when ratewatch first saw this rating
    first_run_id      INTEGER REFERENCES runs (id), -- the run that saw it first; NULL from a sync
    source            TEXT    NOT NULL DEFAULT 'run' CHECK (source IN ('run', 'account')),
    starts_period     INTEGER NOT NULL DEFAULT 0   -- 1: the company's first rating, or its color
                                                   -- is not the one before: a color period starts
);
CREATE INDEX ratings_by_company ON ratings (company);
-- What a run saw first, and what was seen in a span of time.
CREATE INDEX ratings_by_first_run ON ratings (first_run_id);
CREATE INDEX ratings_by_observed_at ON ratings (observed_at);
-- A new rating is the company's latest; it starts a color period unless the latest before
-- it had the same color. A new period begins at the rating's change date (its observation
-- when it has none, and never after it), but not before the rating before it was last
-- seen; it ends the period before, whose last rating that one was.
CREATE TRIGGER ratings_in_order AFTER INSERT ON ratings
BEGIN
    UPDATE ratings
    SET starts_period = 1
    WHERE id = NEW.id
      AND NEW.color IS NOT (SELECT p.color FROM companies c
                            JOIN ratings p ON p.id = c.latest_rating
                            WHERE c.id = NEW.company);
    INSERT INTO color_period_bounds (first_rating_id, company, color, valid_from)
    SELECT NEW.id, NEW.company, NEW.color,
           max(min(coalesce(NEW.last_change_date, NEW.observed_at), NEW.observed_at),
               coalesce((SELECT coalesce(f.confirmed_at, p.observed_at)
                         FROM companies c
                         JOIN ratings p ON p.id = c.latest_rating
                         LEFT JOIN rating_confirmations f ON f.rating = p.id
                         WHERE c.id = NEW.company), ''))
    WHERE (SELECT starts_period FROM ratings WHERE id = NEW.id) = 1;
    UPDATE color_period_bounds
    SET valid_to = (SELECT valid_from FROM color_period_bounds WHERE first_rating_id = NEW.id),
        last_rating_id = (SELECT latest_rating FROM companies WHERE id = NEW.company)
    WHERE first_rating_id = (SELECT max(first_rating_id) FROM color_period_bounds
                             WHERE company = NEW.company AND first_rating_id < NEW.id)
      AND (SELECT starts_period FROM ratings WHERE id = NEW.id) = 1;
    UPDATE companies SET latest_rating = NEW.id WHERE id = NEW.company;
END;

-- When a rating was last seen unchanged, and by which run (NULL: by a sync only).
CREATE TABLE rating_confirmations (
    rating       INTEGER PRIMARY KEY REFERENCES ratings (id),
    confirmed_at TEXT    NOT NULL,
    last_run_id  INTEGER REFERENCES runs (id)
);

-- Each later refresh of a rating: the service recalculated it (a new `lastRefreshDate`)
-- and kept its color and change date, so the rating's row stays and this notes the date,
-- by the run that first saw it. A run's refresh date is the latest up to that run (the
-- rating's own before any); `latest_ratings` and `run_results` show it.
CREATE TABLE rating_refreshes (
    rating            INTEGER NOT NULL REFERENCES ratings (id),
    run_id            INTEGER NOT NULL REFERENCES runs (id), -- the run that first saw it
    last_refresh_date TEXT,                        -- the service's lastRefreshDate
    PRIMARY KEY (rating, run_id)
) WITHOUT ROWID;

-- Each color period of each company: from when to when it held the color, as the view
-- `color_periods` shows it. `last_rating_id` and `valid_to` are NULL while the period is
-- the company's current one.
CREATE TABLE color_period_bounds (
    first_rating_id INTEGER PRIMARY KEY REFERENCES ratings (id), -- the rating that began it
    company         INTEGER NOT NULL REFERENCES companies (id),
    color           TEXT    NOT NULL,
    valid_from      TEXT    NOT NULL,
    valid_to        TEXT,                          -- the next period's valid_from
    last_rating_id  INTEGER REFERENCES ratings (id) -- the last rating before the next period
);
-- A company's periods in order: its timeline, and the period holding a given rating.
CREATE INDEX color_period_bounds_by_company ON color_period_bounds (company, first_rating_id);

-- The rows of the portfolio files, each distinct row once (a nightly file repeats them).
CREATE TABLE inputs (
    id               INTEGER PRIMARY KEY,
    ref              TEXT,                         -- the user's own reference
    country          TEXT,
    service          TEXT,
    external_id      TEXT,
    name             TEXT,
    street_number    TEXT,
    street_name      TEXT,
    city             TEXT,
    postcode         TEXT,
    phone            TEXT,
    given_company_id TEXT,                         -- a UUID given in the file
    extra            TEXT                          -- JSON object: the carried columns
);
CREATE UNIQUE INDEX inputs_by_fields ON inputs (ref, country, service, external_id, name,
    street_number, street_name, city, postcode, phone, given_company_id, extra);

-- The search cache: each search asked of the service and what it answered. Errors are
-- never stored here: they are asked again.
CREATE TABLE resolutions (
    search_key  TEXT    PRIMARY KEY,               -- the search, normalized (see docs/database.md)
    outcome     TEXT    NOT NULL CHECK (outcome IN ('resolved', 'ambiguous', 'unresolved')),
    company     INTEGER REFERENCES companies (id), -- for `resolved`
    candidates  TEXT,                              -- JSON array, for `ambiguous`
    resolved_at TEXT    NOT NULL,
    CHECK ((outcome = 'resolved') = (company IS NOT NULL)),
    CHECK ((outcome = 'ambiguous') = (candidates IS NOT NULL))
) WITHOUT ROWID;

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

-- The ratings a run used without asking (younger than their color's refresh age).
CREATE TABLE run_reused_ratings (
    run_id  INTEGER NOT NULL REFERENCES runs (id),
    company INTEGER NOT NULL REFERENCES companies (id),
    seen_at TEXT    NOT NULL,                      -- start of the run that last saw the rating
    PRIMARY KEY (run_id, company)
) WITHOUT ROWID;

-- Each run's verdict: the companies that are alerts by the rules it ran under.
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

-- Rated rows of each run, by color: the trend, and what is at stake in each color.
CREATE TABLE run_colors (
    run_id   INTEGER NOT NULL REFERENCES runs (id),
    color    TEXT    NOT NULL,
    rows     INTEGER NOT NULL,
    new_rows INTEGER NOT NULL DEFAULT 0,           -- rows whose company came into it by a change
    amount   REAL,                                 -- the amount column over its rows, if named
    PRIMARY KEY (run_id, color)
) WITHOUT ROWID;

-- What each run handed to each channel, known by its name (`webhook`, `email`, …): pending
-- until the channel took it. A run's message that no channel took is sent again by the next run of its
-- portfolio, so a receiver that was down loses no news; its `delivery_id` goes with it
-- every time, so a receiver that took it once can drop it the next.
CREATE TABLE run_deliveries (
    run_id       INTEGER NOT NULL REFERENCES runs (id),
    channel      TEXT    NOT NULL,                 -- the channel's name: 'webhook', 'email', …
    delivery_id  TEXT    NOT NULL,                 -- the message's name: 32 random hex digits,
                                                   -- the same on every attempt and resend
    delivered_at TEXT,                             -- when the channel took it; NULL: pending
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,                             -- why the last attempt failed
    PRIMARY KEY (run_id, channel)
) WITHOUT ROWID;
CREATE INDEX run_deliveries_pending ON run_deliveries (channel, run_id) WHERE delivered_at IS NULL;

-- `ratewatch ack` and the inbox: every acknowledgement of a company's alert, kept forever.
-- One holds while it is current (`ended_at` NULL) and its `until` is still to come; a later
-- event ends it, never erases it: the run that sees the company at another color
-- ('color changed'), a later acknowledgement of the company ('replaced'), `ratewatch
-- unack` ('withdrawn'), or its `until` passing ('expired', written when another event
-- comes; the view `acknowledgements` says it at once). At most one is current per company.
CREATE TABLE acks (
    id           INTEGER PRIMARY KEY,
    company      INTEGER NOT NULL REFERENCES companies (id),
    ref          TEXT,                             -- the ref it was given by, if any
    color        TEXT    NOT NULL,                 -- the company's color when acknowledged
    acked_at     TEXT    NOT NULL,
    acked_by     TEXT,                             -- who: an operating-system user, a --by
                                                   -- name, a signed-in user of the page, or
                                                   -- 'web page'; NULL: made before version 27
    until        TEXT,
    note         TEXT,
    ended_at     TEXT,                             -- NULL: current
    ended_how    TEXT    CHECK (ended_how IN ('color changed', 'expired', 'replaced',
                                              'withdrawn')),
    ended_by     TEXT,                             -- who replaced or withdrew it
    ended_note   TEXT,                             -- why it was withdrawn
    ended_run_id INTEGER REFERENCES runs (id),     -- the run that saw the color change
    CHECK ((ended_at IS NULL) = (ended_how IS NULL))
);
CREATE UNIQUE INDEX acks_current ON acks (company) WHERE ended_at IS NULL;
CREATE INDEX acks_by_company ON acks (company, acked_at);

-- `ratewatch review` and the review page: every decision about a row, kept forever. The
-- current one of a row's search (`ended_at` NULL, one at most) is applied by every later
-- run; a later decision on the same search ends it ('replaced'), and so does `review
-- revoke` ('revoked').
CREATE TABLE decisions (
    id         INTEGER PRIMARY KEY,
    ref        TEXT NOT NULL,
    search_key TEXT NOT NULL,                      -- the row's search, as in resolutions
    decision   TEXT NOT NULL CHECK (decision IN ('accept', 'ignore', 'reject')),
    company_id TEXT,                               -- the service's UUID, for `accept`
    decided_at TEXT NOT NULL,
    source     TEXT NOT NULL,                      -- a file path, `command line` or `web page`
    decided_by TEXT,                               -- who, as in acks; NULL: made before
                                                   -- version 27
    note       TEXT,
    ended_at   TEXT,                               -- NULL: current
    ended_how  TEXT CHECK (ended_how IN ('replaced', 'revoked')),
    ended_by   TEXT,                               -- who replaced or revoked it
    ended_note TEXT,                               -- why it was revoked
    CHECK ((decision = 'accept') = (company_id IS NOT NULL)),
    CHECK ((ended_at IS NULL) = (ended_how IS NULL))
);
CREATE UNIQUE INDEX decisions_current ON decisions (ref, search_key) WHERE ended_at IS NULL;
CREATE INDEX decisions_by_ref ON decisions (ref);
CREATE INDEX decisions_by_company ON decisions (company_id) WHERE company_id IS NOT NULL;

-- The account's rating requests, read back from the service (`ratewatch sync-history`).
CREATE TABLE account_requests (
    id                 INTEGER PRIMARY KEY,
    company            INTEGER NOT NULL REFERENCES companies (id),
    request_date       TEXT    NOT NULL,           -- the service's requestDate, to the microsecond
    requested_at       TEXT    NOT NULL,           -- the same to the second
    color              TEXT    NOT NULL,
    last_change_date   TEXT,
    last_refresh_date  TEXT,
    synced_at          TEXT    NOT NULL,
    status             TEXT    NOT NULL CHECK (status IN ('known', 'added', 'earlier')),
                                                   -- known: a rating already held it; added: put
                                                   -- into ratings; earlier: older than the history
    rating_id          INTEGER REFERENCES ratings (id),
    previous_rating_id INTEGER REFERENCES ratings (id),
    change             TEXT    CHECK (change IN ('new', 'unchanged', 'evolved', 'deteriorated',
                                                 'improved', 'changed')),
    UNIQUE (company, request_date),
    CHECK ((status = 'added') = (change IS NOT NULL)),
    CHECK ((status = 'earlier') = (rating_id IS NULL))
);
CREATE INDEX account_requests_by_time ON account_requests (requested_at);

-- ---------------------------------------------------------------------------------------
-- Views: the contract for readers. Each names a company by `company` (an integer) and
-- `company_uuid`, the service's UUID (also `company_id`, its older name); a link to `ratings`
-- ends in `rating_id`. Columns added since a view first appeared come at its end.

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

-- Each company's current rating.
CREATE VIEW latest_ratings AS
SELECT c.id                                  AS company,
       c.company_id,
       c.name,
       c.country,
       r.color,
       r.last_change_date,
       iif(h.rating IS NULL, r.last_refresh_date, h.last_refresh_date) AS last_refresh_date,
       coalesce(f.confirmed_at, r.observed_at) AS confirmed_at,
       r.id                                  AS rating_id,
       c.company_id                          AS company_uuid
FROM companies c
JOIN ratings r ON r.id = c.latest_rating
LEFT JOIN rating_confirmations f ON f.rating = r.id
LEFT JOIN rating_refreshes h     ON h.rating = r.id   -- its latest refresh, if any
      AND h.run_id = (SELECT max(run_id) FROM rating_refreshes WHERE rating = r.id);

-- Each registry identifier with its company's current rating: a SIREN or a KVK to a color.
CREATE VIEW registry_ratings AS
SELECT e.service,
       e.external_id,
       l.*
FROM company_external_ids e
JOIN latest_ratings l ON l.company = e.company;

-- Each company's color periods: from when to when it held each color. A period starts
-- when the service says the color changed, but never before ratewatch last saw the color
-- before it, nor after it first saw the new one; `valid_to` is NULL for the current one.
-- `first_rating_id` and `last_rating_id` are the period's first and last observations.
-- Each period is a row of `color_period_bounds`.
CREATE VIEW color_periods AS
SELECT b.company,
       c.company_id,
       c.name,
       c.country,
       b.color,
       b.valid_from,
       b.valid_to,
       r.observed_at,
       coalesce(lf.confirmed_at, l.observed_at)            AS confirmed_at,
       r.first_run_id,
       CASE WHEN lf.rating IS NULL THEN l.first_run_id ELSE lf.last_run_id END AS last_run_id,
       c.company_id                                        AS company_uuid,
       b.first_rating_id,
       l.id                                                AS last_rating_id
FROM color_period_bounds b
JOIN companies c ON c.id = b.company
JOIN ratings r   ON r.id = b.first_rating_id               -- the period's first rating
JOIN ratings l   ON l.id = coalesce(b.last_rating_id, c.latest_rating) -- and its last
LEFT JOIN rating_confirmations lf ON lf.rating = l.id;

-- Every color change seen: by a run (`run_id`, the run that saw it first), or by a
-- request made elsewhere (NULL). `direction` on the risk scale green < yellow < red <
-- black: `worse` or `better`; `to white` or `from white` (no information, off the scale);
-- `changed` to or from a color the service added.
CREATE VIEW color_changes AS
SELECT r.company,
       c.company_id,
       c.name,
       p.color                                   AS from_color,
       r.color                                   AS to_color,
       coalesce(r.last_change_date, r.observed_at) AS changed_at,
       r.observed_at,
       r.first_run_id                            AS run_id,
       c.company_id                              AS company_uuid,
       CASE WHEN r.color = 'white' THEN 'to white'
            WHEN p.color = 'white' THEN 'from white'
            WHEN (CASE r.color WHEN 'green' THEN 0 WHEN 'yellow' THEN 1 WHEN 'red' THEN 2
                               WHEN 'black' THEN 3 END)
               > (CASE p.color WHEN 'green' THEN 0 WHEN 'yellow' THEN 1 WHEN 'red' THEN 2
                               WHEN 'black' THEN 3 END) THEN 'worse'
            WHEN (CASE r.color WHEN 'green' THEN 0 WHEN 'yellow' THEN 1 WHEN 'red' THEN 2
                               WHEN 'black' THEN 3 END)
               < (CASE p.color WHEN 'green' THEN 0 WHEN 'yellow' THEN 1 WHEN 'red' THEN 2
                               WHEN 'black' THEN 3 END) THEN 'better'
            ELSE 'changed' END                   AS direction,
       r.id                                      AS rating_id,
       p.id                                      AS previous_rating_id
FROM color_period_bounds b                                 -- the period the change began
JOIN color_period_bounds q                                 -- and the one before it
       ON q.first_rating_id = (SELECT max(first_rating_id) FROM color_period_bounds
                               WHERE company = b.company AND first_rating_id < b.first_rating_id)
JOIN ratings r   ON r.id = b.first_rating_id
JOIN ratings p   ON p.id = q.last_rating_id
JOIN companies c ON c.id = b.company;

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

-- Each portfolio's latest finished run (complete or partial): never one still running,
-- interrupted or failed.
CREATE VIEW latest_finished_runs AS
SELECT *
FROM runs
WHERE id IN (SELECT max(id) FROM runs WHERE status IN ('complete', 'partial') GROUP BY portfolio);

-- The rows of each portfolio's latest finished run. `stale`: not recalculated by the
-- service in the 30 days before the run (the reports' default `stale_after`).
CREATE VIEW latest_results AS
SELECT u.portfolio,
       u.started_at,
       rs.*,
       CASE WHEN rs.status = 'rated' THEN
           coalesce(rs.last_refresh_date < strftime('%Y-%m-%dT%H:%M:%SZ', u.started_at, '-30 days'), 0)
       END                                AS stale
FROM latest_finished_runs u
JOIN run_results rs ON rs.run_id = u.id;

-- One line per ref of each portfolio, as of its latest finished run: the first row that
-- holds the ref, its company and where it stands. `color_since` is the start of the color
-- period holding the run's rating, as `color_periods` has it (`valid_from`). The first row
-- of each ref is ranked over narrow rows (`f`: where a row is, and its period's start)
-- within each portfolio's run, then its columns read by key: a filter on `portfolio` (or
-- `ref`) reads that portfolio's rows (those refs) alone, and no wide row is sorted.
CREATE VIEW portfolio_now AS
SELECT f.portfolio,
       f.ref,
       l.extra,
       l.status,
       l.company,
       l.company_id,
       l.company_name                     AS name,
       c.country,
       (SELECT group_concat(e.service || ' ' || e.external_id, ', ')
        FROM company_external_ids e WHERE e.company = l.company) AS registry_ids,
       l.color,
       f.color_since,
       CAST(julianday(l.started_at) - julianday(f.color_since) AS INTEGER) AS days_in_color,
       l.last_refresh_date,
       l.stale,
       l.alert_kind,
       EXISTS (SELECT 1 FROM acks a
               WHERE a.company = l.company AND a.color = l.color AND a.ended_at IS NULL
                 AND (a.until IS NULL OR a.until > strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))
                                          AS acknowledged,
       l.error,
       l.run_id,
       l.line,
       l.company_uuid,
       l.company_name,
       l.rating_id,
       l.amount,
       l.amount_column
FROM (SELECT portfolio, run_id, ref, line,
             row_number() OVER (PARTITION BY portfolio, run_id, ref ORDER BY line) AS nth,
             (SELECT b.valid_from FROM color_period_bounds b
              WHERE b.company = lr.company AND b.first_rating_id <= lr.rating_id
              ORDER BY b.first_rating_id DESC LIMIT 1) AS color_since
      FROM latest_results lr
      WHERE ref IS NOT NULL) f
JOIN latest_results l ON l.run_id = f.run_id AND l.line = f.line
LEFT JOIN companies c ON c.id = l.company
WHERE f.nth = 1;

-- The first row of each ref in each portfolio's latest finished run, with the run's times
-- (the view of earlier versions; `portfolio_now` says more).
CREATE VIEW portfolio_latest AS
SELECT portfolio, ref, line, status, company, company_id, company_name, color,
       last_change_date, run_id, started_at, finished_at, extra, company_uuid
FROM (SELECT u.portfolio, rs.ref, rs.line, rs.status, rs.company, rs.company_id,
             rs.company_name, rs.color, rs.last_change_date, u.id AS run_id, u.started_at,
             u.finished_at, rs.extra, rs.company_id AS company_uuid,
             row_number() OVER (PARTITION BY u.portfolio, u.id, rs.ref ORDER BY rs.line) AS nth
      FROM latest_finished_runs u
      JOIN run_results rs ON rs.run_id = u.id
      WHERE rs.ref IS NOT NULL)
WHERE nth = 1;

-- API calls by month and endpoint, from every run's count.
CREATE VIEW usage_by_month AS
SELECT substr(u.started_at, 1, 7) AS month,
       c.key                      AS endpoint,
       sum(c.value)               AS calls
FROM runs u, json_each(u.calls) c
GROUP BY month, endpoint;

-- Every acknowledgement, with who made it and how it ended. One whose `until` has passed
-- is shown ended then ('expired'), even before anything else came. `in_force`: 1 for the
-- one that applies now (a run judges its acknowledgements at its start).
CREATE VIEW acknowledgements AS
SELECT a.id,
       a.company,
       c.company_id,
       c.name,
       a.ref,
       a.color,
       a.acked_at,
       a.acked_by,
       a.until,
       a.note,
       coalesce(a.ended_at, CASE WHEN a.until <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
                                 THEN a.until END)          AS ended_at,
       coalesce(a.ended_how, CASE WHEN a.until <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
                                  THEN 'expired' END)       AS ended_how,
       a.ended_by,
       a.ended_note,
       a.ended_run_id,
       a.ended_at IS NULL
           AND (a.until IS NULL OR a.until > strftime('%Y-%m-%dT%H:%M:%SZ', 'now')) AS in_force,
       c.company_id                       AS company_uuid
FROM acks a
JOIN companies c ON c.id = a.company;

-- Every decision of the review, with who made it and how it ended. `in_force`: 1 for the
-- decisions later runs apply; `company` and `name` for an accepted company.
CREATE VIEW review_decisions AS
SELECT d.id,
       d.ref,
       d.search_key,
       d.decision,
       c.id                               AS company,
       d.company_id,
       c.name,
       d.decided_at,
       d.decided_by,
       d.source,
       d.note,
       d.ended_at,
       d.ended_how,
       d.ended_by,
       d.ended_note,
       d.ended_at IS NULL                 AS in_force,
       d.company_id                       AS company_uuid
FROM decisions d
LEFT JOIN companies c ON c.company_id = d.company_id;

-- What an audit reads (`ratewatch audit`): one row per event, each acknowledgement and each
-- decision when it was made, and again when it ended. `who` made or ended it (NULL: not
-- recorded, or the run that saw the color change: `run_id`); `note` is the note made with
-- it, or why it was withdrawn or revoked; `how` how it ended.
CREATE VIEW audit_trail AS
SELECT acked_at AS at, 'acknowledgement' AS record, id, 'made' AS event, acked_by AS who,
       company, company_id, name, ref, color, until, NULL AS decision, NULL AS source, note,
       NULL AS how, NULL AS run_id, company_uuid
FROM acknowledgements
UNION ALL
SELECT ended_at, 'acknowledgement', id, 'ended', ended_by, company, company_id, name, ref,
       color, until, NULL, NULL, ended_note, ended_how, ended_run_id, company_uuid
FROM acknowledgements
WHERE ended_at IS NOT NULL
UNION ALL
SELECT decided_at, 'decision', id, 'made', decided_by, company, company_id, name, ref, NULL,
       NULL, decision, source, note, NULL, NULL, company_uuid
FROM review_decisions
UNION ALL
SELECT ended_at, 'decision', id, 'ended', ended_by, company, company_id, name, ref, NULL,
       NULL, decision, source, ended_note, ended_how, NULL, company_uuid
FROM review_decisions
WHERE ended_at IS NOT NULL;
