-- Questions analysts ask of ratewatch.db. Run them all with
--     sqlite3 ratewatch.db < samples/queries.sql
-- or paste one into sqlite3, DBeaver or Datasette. They read the views of docs/database.md
-- only. Times are UTC text (2026-11-21T02:00:00Z) compared as text; 'now' is SQLite's
-- current time. 'portfolio' is the portfolio's name (the file's stem unless
-- --portfolio-name gave another): put yours, and your own dates, references and SIRENs.
-- Every query here is run by the tests against a demo database.

-- 1. The latest color of every company, worst first.
SELECT company_id, name, country, color, last_change_date, confirmed_at
FROM latest_ratings
ORDER BY CASE color WHEN 'black' THEN 0 WHEN 'red' THEN 1 WHEN 'yellow' THEN 2
                    WHEN 'green' THEN 3 ELSE 4 END,
         name;

-- 2. What changed this week: color changes seen in the last 7 days, newest first.
SELECT company_id, name, from_color, to_color, changed_at, observed_at, run_id
FROM color_changes
WHERE observed_at >= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-7 days')
ORDER BY observed_at DESC, name;

-- 3. The color of every company on a date, here at the close of 3 January 2026
--    (a bare '2026-01-03' would mean the close of 2 January: it sorts before any time of
--    that day). No row: nothing was known about the company then.
SELECT company_id, name, country, color, valid_from, valid_to
FROM color_periods
WHERE valid_from <= '2026-01-03T23:59:59Z'
  AND (valid_to IS NULL OR valid_to > '2026-01-03T23:59:59Z')
ORDER BY name;

-- 4. Companies red or black for more than 30 days, longest first.
SELECT company_id, name, country, color, valid_from AS since,
       CAST(julianday('now') - julianday(valid_from) AS INTEGER) AS days
FROM color_periods
WHERE valid_to IS NULL
  AND color IN ('red', 'black')
  AND valid_from <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-30 days')
ORDER BY valid_from, name;

-- 5. One company's timeline: each color, since when, when first and last seen, in which
--    runs. Put the name (or its company_id: see docs/database.md); `ratewatch history`
--    shows the same.
SELECT color, valid_from AS since, valid_to AS until, observed_at AS first_seen,
       confirmed_at AS last_confirmed, first_run_id, last_run_id
FROM color_periods
WHERE name LIKE 'Zhao Robotique Loire%'
ORDER BY valid_from;

-- 6. Rows of the portfolio's latest finished run that failed (the next run retries them),
--    and why.
SELECT line, ref, country, service, external_id, name, error
FROM latest_results
WHERE portfolio = 'portfolio'
  AND status = 'failed'
ORDER BY line;

-- 7. Rows of the portfolio's latest finished run that need a person: ambiguous (see
--    candidates), unresolved, invalid.
SELECT line, ref, status, error, candidates
FROM latest_results
WHERE portfolio = 'portfolio'
  AND status IN ('ambiguous', 'unresolved', 'invalid')
ORDER BY status, line;

-- 8. My references whose company is an alert in the portfolio's latest finished run (red
--    or black, or its color changed), with the change.
SELECT ref, company_name, country, previous_color, color, change, alert_kind
FROM latest_results
WHERE portfolio = 'portfolio'
  AND alert = 1
ORDER BY line;

-- 9. Each portfolio's latest finished run, with its counts.
SELECT portfolio, id, started_at, finished_at, status, rows_total, rows_rated, rows_failed,
       alerts
FROM latest_finished_runs
ORDER BY portfolio;

-- 10. My references (customer numbers) as the portfolio's latest finished run saw them:
--     one line per reference, no join. Put your own references.
SELECT portfolio, ref, status, name, color, color_since, days_in_color, run_id
FROM portfolio_now
WHERE portfolio = 'portfolio'
  AND ref IN ('C-1001', 'C-1013', 'C-1024')
ORDER BY ref;

-- 11. A company by its SIREN, and its color now.
SELECT l.company_id, l.name, l.color, l.last_change_date, l.confirmed_at
FROM company_external_ids e
JOIN latest_ratings l ON l.company = e.company
WHERE e.service = 'SIREN'
  AND e.external_id = '734531544';

-- 12. My references whose company's color has moved since the portfolio's latest finished
--     run (another portfolio's run, a run in progress or sync-history saw it since).
SELECT p.ref, p.name, p.color AS color_in_run, l.color AS color_now, l.last_change_date
FROM portfolio_now p
JOIN latest_ratings l ON l.company = p.company
WHERE p.portfolio = 'portfolio'
  AND l.color <> p.color
ORDER BY p.ref;

-- 13. Exposure by color: the amount at stake over the references of the portfolio's latest
--     finished run, each row's amount as ratewatch reads it from the column [alerts] amount
--     names (120 000,00, 1.234,56 and 50,000.00 alike), the same figures as the run's
--     totals at stake; a carried amount that is not a number is counted, not added.
SELECT coalesce(color, '(' || status || ')') AS by_color,
       count(*) AS refs, round(sum(amount), 2) AS exposure,
       sum(amount IS NULL
           AND coalesce(trim(json_extract(extra, '$."' || amount_column || '"')), '') <> '')
           AS unreadable,
       amount_column
FROM portfolio_now
WHERE portfolio = 'portfolio'
GROUP BY by_color, amount_column
ORDER BY exposure DESC, by_color;

-- 14. API calls by month and endpoint.
SELECT month, endpoint, calls
FROM usage_by_month
ORDER BY month DESC, calls DESC;
