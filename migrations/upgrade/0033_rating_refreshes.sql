-- 0033: a run that finds a rating recalculated by the service, with the same color and
-- change date and only a new `lastRefreshDate`, notes the new date in `rating_refreshes`
-- instead of adding a rating: the service recalculates every company on its own schedule
-- (weekly, say), and a new row of `ratings` with its indexes and confirmation for each
-- recalculation was half of what a year's history held (benches/RESULTS.md, "a year of
-- nights"). `latest_ratings` and `run_results` show the refresh date from it, with the
-- same columns; the ratings of earlier versions stay as they are. (Right after the
-- conversion, the table is there and empty: it is made again.)
DROP TABLE IF EXISTS rating_refreshes;

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

DROP VIEW IF EXISTS latest_ratings;

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

DROP VIEW IF EXISTS run_results;

-- Every row of every run, as its reports show it. A service date more than a day after
-- ratewatch first saw it (the rating's `observed_at`; for a later refresh, the end of the
-- run that noted it, or now while it runs) is shown as that moment: it cannot be true, and
-- the reports age the rating from it (`ratings` and `rating_refreshes` keep the service's
-- date). The refresh date is the rating's latest up to the run.
-- `name` and `given_name` are the file's; `company_name` the service's. `amount` is the
-- row's amount as the alerts and the totals at stake read it, from `amount_column`.
CREATE VIEW run_results AS
SELECT rr.run_id,
       rr.line,
       i.ref,
       i.country,
       i.service,
       i.external_id,
       i.name,
       rr.status,
       rr.company,
       c.company_id,
       c.name                             AS company_name,
       r.color,
       p.color                            AS previous_color,
       rc.change,
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
       rr.error,
       rr.candidates,
       rr.found_by,
       i.extra,
       i.name                             AS given_name,
       c.company_id                       AS company_uuid,
       rc.rating_id,
       rc.previous_rating_id,
       rr.named,
       rr.country_defaulted,
       rr.extra_unreliable,
       rr.amount,
       u.amount_column
FROM run_rows rr
JOIN runs u                ON u.id = rr.run_id
JOIN inputs i              ON i.id = rr.input_id
LEFT JOIN companies c      ON c.id = rr.company
LEFT JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = rr.company
                          AND (rr.status = 'rated'
                               OR (rr.status = 'unresolved' AND rc.change = 'gone'))
LEFT JOIN ratings r        ON r.id = rc.rating_id
LEFT JOIN ratings p        ON p.id = rc.previous_rating_id
LEFT JOIN rating_refreshes h ON h.rating = rc.rating_id
      AND h.run_id = (SELECT max(run_id) FROM rating_refreshes
                      WHERE rating = rc.rating_id AND run_id <= rr.run_id)
LEFT JOIN runs hu          ON hu.id = h.run_id
LEFT JOIN run_alerts ra    ON ra.run_id = rr.run_id AND ra.company = rc.company;
