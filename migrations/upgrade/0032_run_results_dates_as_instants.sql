-- 0032: `run_results` compares a service date with the day after `observed_at` as two
-- instants (`julianday`) instead of formatting that day as text to compare with it. The
-- same rows and values (times are stored as `YYYY-MM-DDTHH:MM:SSZ`, so both orders agree);
-- the text was formatted twice for every row, a sixth of the time a million-row run's
-- reports spent reading its rows (benches/RESULTS.md, "reports side by side").
DROP VIEW IF EXISTS run_results;

-- Every row of every run, as its reports show it. A service date more than a day after
-- ratewatch first saw the rating (`observed_at`) is shown as that moment: it cannot be
-- true, and the reports age the rating from it (`ratings` keeps the service's date).
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
       CASE WHEN julianday(r.last_refresh_date) > julianday(r.observed_at, '+1 day')
            THEN r.observed_at ELSE r.last_refresh_date END  AS last_refresh_date,
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
LEFT JOIN run_alerts ra    ON ra.run_id = rr.run_id AND ra.company = rc.company;
