-- 0025: a rating's dates in the future are not believed. A lastRefreshDate or lastChangeDate
-- more than a day after ratewatch first saw the rating (`ratings.observed_at`) is shown by
-- `run_results` as that moment, so the reports (and `latest_results.stale`) age the rating
-- from it rather than call it fresh forever; `portfolio_now` counts `color_since` and
-- `days_in_color` the same way. `ratings` keeps the service's dates as they were. The two
-- views are created again as migrations/schema.sql has them.
DROP VIEW IF EXISTS run_results;
DROP VIEW IF EXISTS portfolio_now;

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
       CASE WHEN r.last_change_date > strftime('%Y-%m-%dT%H:%M:%SZ', r.observed_at, '+1 day')
            THEN r.observed_at ELSE r.last_change_date END   AS last_change_date,
       CASE WHEN r.last_refresh_date > strftime('%Y-%m-%dT%H:%M:%SZ', r.observed_at, '+1 day')
            THEN r.observed_at ELSE r.last_refresh_date END  AS last_refresh_date,
       ra.kind IS NOT NULL                AS alert,
       ra.kind                            AS alert_kind,
       ra.listed                          AS alert_listed,
       ra.acked                           AS alert_acked,
       rr.error,
       rr.candidates,
       rr.found_by,
       i.extra
FROM run_rows rr
JOIN inputs i              ON i.id = rr.input_id
LEFT JOIN companies c      ON c.id = rr.company
LEFT JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = rr.company
                          AND (rr.status = 'rated'
                               OR (rr.status = 'unresolved' AND rc.change = 'gone'))
LEFT JOIN ratings r        ON r.id = rc.rating_id
LEFT JOIN ratings p        ON p.id = rc.previous_rating_id
LEFT JOIN run_alerts ra    ON ra.run_id = rr.run_id AND ra.company = rc.company;

CREATE VIEW portfolio_now AS
SELECT l.portfolio,
       l.ref,
       l.extra,
       l.status,
       l.company,
       l.company_id,
       l.company_name                     AS name,
       c.country,
       (SELECT group_concat(e.service || ' ' || e.external_id, ', ')
        FROM company_external_ids e WHERE e.company = l.company) AS registry_ids,
       l.color,
       CASE WHEN r.last_change_date > strftime('%Y-%m-%dT%H:%M:%SZ', r.observed_at, '+1 day')
            THEN r.observed_at
            ELSE coalesce(r.last_change_date, r.observed_at) END AS color_since,
       CAST(julianday(l.started_at) - julianday(
                CASE WHEN r.last_change_date > strftime('%Y-%m-%dT%H:%M:%SZ', r.observed_at, '+1 day')
                     THEN r.observed_at
                     ELSE coalesce(r.last_change_date, r.observed_at) END)
            AS INTEGER)                   AS days_in_color,
       l.last_refresh_date,
       l.stale,
       l.alert_kind,
       EXISTS (SELECT 1 FROM acks a
               WHERE a.company = l.company AND a.color = l.color
                 AND (a.until IS NULL OR a.until > strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))
                                          AS acknowledged,
       l.error,
       l.run_id,
       l.line
FROM (SELECT *, row_number() OVER (PARTITION BY run_id, ref ORDER BY line) AS nth
      FROM latest_results WHERE ref IS NOT NULL) l
LEFT JOIN companies c      ON c.id = l.company
LEFT JOIN run_companies rc ON rc.run_id = l.run_id AND rc.company = l.company
LEFT JOIN ratings r        ON r.id = rc.rating_id
WHERE l.nth = 1;
