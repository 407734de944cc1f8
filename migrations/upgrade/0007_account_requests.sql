-- 0007: the account's lookups made elsewhere (the service's web portal, other tools), read
-- back from the service's history of ratings requested with the key (`ratewatch
-- sync-history`), so that a lost database can be rebuilt and an audit sees every lookup.
--
-- Two places, because they answer two questions:
--
-- - `account_requests` is the service's history as it was read: one row per request
--   (company, requestDate), whoever made it. It is what an audit reads, and what makes a
--   second sync add nothing: a request already there is skipped. Its `status` says where
--   the request stands in the rating history: `known` (an observation already holds it:
--   same color and dates, between its `observed_at` and `confirmed_at`; a run's own
--   request is one), `added` (the sync put it into `ratings`), or `earlier` (not put into
--   `ratings`, see below).
-- - `ratings` stays the one rating history that the views read, so `latest_ratings`,
--   `color_changes` and `color_periods` show what was seen elsewhere with the same columns.
--   A request ratewatch had not observed becomes a row there, marked `source = 'account'`
--   (a run's rows are `run`), with no run ids; a sync never changes a run's row. A request
--   with the same color and dates as the company's latest row extends it when that row is
--   the sync's own (its `confirmed_at` moves), and is a row of its own after a run's row.
--
-- The history is in id order: each view takes a company's latest row, and the row before
-- an observation, by `ratings.id`. So a request is put into `ratings` only when it is
-- later than everything the database holds for its company (after the latest row's
-- `confirmed_at`); the sync adds requests oldest first. One older than that (a portal
-- lookup between two nightly runs, read after the second) cannot take its place between
-- rows without renumbering a run's history: it is kept in `account_requests` as
-- `earlier`, for the audit, and the views do not show it.
--
-- What a run records about a company it rated (`run_companies`: the rating, the one before
-- it, the change) the sync records about each request it adds, in `account_requests`
-- (`rating_id`, `previous_rating_id`, `change`), and the views read both: a period or a
-- change can start at a request made elsewhere. Their `run_id` (`color_changes`) and
-- `first_run_id` / `last_run_id` (`color_periods`) are NULL for those. The partial
-- indexes below mirror those of `run_companies` (0002), so the views still reach their
-- rows through indexes that hold only where a color started.

ALTER TABLE ratings ADD COLUMN source TEXT NOT NULL DEFAULT 'run'
    CHECK (source IN ('run', 'account'));

CREATE TABLE account_requests (
    id                 INTEGER PRIMARY KEY,
    company            INTEGER NOT NULL REFERENCES companies (id),
    request_date       TEXT    NOT NULL,           -- the service's requestDate, UTC, to the microsecond
    requested_at       TEXT    NOT NULL,           -- the same to the second, as every time here
    color              TEXT    NOT NULL,
    last_change_date   TEXT,
    last_refresh_date  TEXT,
    synced_at          TEXT    NOT NULL,           -- when sync-history read it
    status             TEXT    NOT NULL CHECK (status IN ('known', 'added', 'earlier')),
    rating_id          INTEGER REFERENCES ratings (id), -- the row holding it; NULL when `earlier`
    previous_rating_id INTEGER REFERENCES ratings (id), -- for `added`: the latest row before it
    change             TEXT                        -- for `added`: as in run_companies
                       CHECK (change IN ('new', 'unchanged', 'evolved', 'deteriorated',
                                         'improved', 'changed')),
    UNIQUE (company, request_date),
    CHECK ((status = 'added') = (change IS NOT NULL)),
    CHECK ((status = 'earlier') = (rating_id IS NULL))
);

CREATE INDEX account_requests_by_time ON account_requests (requested_at);

-- As `run_companies_color_starts` and `run_companies_color_changes` (0002).
CREATE INDEX account_requests_color_starts
    ON account_requests (company, rating_id, previous_rating_id)
    WHERE change IN ('new', 'deteriorated', 'improved', 'changed');

CREATE INDEX account_requests_color_changes ON account_requests (rating_id)
    WHERE change IN ('deteriorated', 'improved', 'changed');

-- The same columns as in 0003; each view is now two branches, one per place a color can
-- start (a run's `run_companies`, a sync's `account_requests`), identical but for that.
-- The next period's start is the nearer of the two places' next starts, and the period's
-- last observation the company's row just before it: what the next start's
-- `previous_rating_id` names (the latest row when it was added), found without it.
DROP VIEW color_periods;
DROP VIEW color_changes;

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
LEFT JOIN ratings n                                        -- the next period's first one
       ON n.id = (SELECT min(next) FROM (
                    SELECT (SELECT min(rating_id) FROM run_companies
                            WHERE company = s.company AND rating_id > s.rating_id
                              AND change IN ('new', 'deteriorated', 'improved', 'changed')) AS next
                    UNION ALL
                    SELECT (SELECT min(rating_id) FROM account_requests
                            WHERE company = s.company AND rating_id > s.rating_id
                              AND change IN ('new', 'deteriorated', 'improved', 'changed'))))
JOIN ratings l                                             -- this period's last observation
       ON l.id = coalesce((SELECT max(id) FROM ratings WHERE company = s.company AND id < n.id),
                          (SELECT max(id) FROM ratings WHERE company = s.company))
WHERE s.change IN ('new', 'deteriorated', 'improved', 'changed')
UNION ALL
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
FROM account_requests s
JOIN companies c ON c.id = s.company
JOIN ratings r   ON r.id = s.rating_id
LEFT JOIN ratings p ON p.id = s.previous_rating_id
LEFT JOIN ratings n
       ON n.id = (SELECT min(next) FROM (
                    SELECT (SELECT min(rating_id) FROM run_companies
                            WHERE company = s.company AND rating_id > s.rating_id
                              AND change IN ('new', 'deteriorated', 'improved', 'changed')) AS next
                    UNION ALL
                    SELECT (SELECT min(rating_id) FROM account_requests
                            WHERE company = s.company AND rating_id > s.rating_id
                              AND change IN ('new', 'deteriorated', 'improved', 'changed'))))
JOIN ratings l
       ON l.id = coalesce((SELECT max(id) FROM ratings WHERE company = s.company AND id < n.id),
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
WHERE s.change IN ('deteriorated', 'improved', 'changed')
UNION ALL
SELECT c.company_id,
       c.name,
       p.color,
       r.color,
       coalesce(r.last_change_date, r.observed_at),
       r.observed_at,
       NULL
FROM account_requests s
JOIN ratings r   ON r.id = s.rating_id
JOIN ratings p   ON p.id = s.previous_rating_id
JOIN companies c ON c.id = s.company
WHERE s.change IN ('deteriorated', 'improved', 'changed');
