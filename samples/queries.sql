-- Questions analysts ask of ratewatch.db. Run them all with
--     sqlite3 ratewatch.db < samples/queries.sql
-- or paste one into sqlite3, DBeaver or Datasette. Times are ISO 8601 UTC text compared as
-- text; 'now' is SQLite's current time. A demo database (`ratewatch screen --demo`) lives
-- in January 2026, so the dates below are demo dates: put your own. Every query here is
-- run by the tests against a demo database.

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
--    runs. Put the name (or filter on company_id); `ratewatch history` shows the same.
SELECT color, valid_from AS since, valid_to AS until, observed_at AS first_seen,
       confirmed_at AS last_confirmed, first_run_id, last_run_id
FROM color_periods
WHERE name LIKE 'Zhao Robotique Loire%'
ORDER BY valid_from;

-- 6. Rows of the latest finished run of a portfolio (put its name: the file's stem unless
--    --portfolio-name gave another) that failed (the next run retries them), and why.
--    Not max(id) of runs: that may be a run in progress, or another portfolio's.
SELECT line, ref, country, service, external_id, name, error
FROM run_results
WHERE run_id = (SELECT max(id) FROM runs
                WHERE portfolio = 'portfolio' AND status IN ('complete', 'partial'))
  AND status = 'failed'
ORDER BY line;

-- 7. Rows of the portfolio's latest finished run that need a person: ambiguous (see candidates), unresolved,
--    invalid.
SELECT line, ref, status, error, candidates
FROM run_results
WHERE run_id = (SELECT max(id) FROM runs
                WHERE portfolio = 'portfolio' AND status IN ('complete', 'partial'))
  AND status IN ('ambiguous', 'unresolved', 'invalid')
ORDER BY status, line;

-- 8. My references whose company is an alert in the portfolio's latest finished run (red or black, or its
--    color changed), with the change.
SELECT ref, company_name, country, previous_color, color, change
FROM run_results
WHERE run_id = (SELECT max(id) FROM runs
                WHERE portfolio = 'portfolio' AND status IN ('complete', 'partial'))
  AND alert = 1
ORDER BY line;

-- 9. Recent runs with their counts.
SELECT id, portfolio, started_at, finished_at, status, rows_total, rows_rated, rows_failed,
       alerts
FROM runs
ORDER BY id DESC
LIMIT 10;

-- 10. My references (customer numbers) as their portfolio's latest finished run saw them:
--     one row per reference, no join. Put your own references.
SELECT portfolio, ref, status, company_name, color, last_change_date, run_id
FROM portfolio_latest
WHERE ref IN ('C-1001', 'C-1013', 'C-1024')
ORDER BY portfolio, ref;
