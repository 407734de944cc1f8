-- Questions analysts ask of ratewatch.db. Run with: sqlite3 ratewatch.db < samples/queries.sql
-- or paste one into sqlite3, DBeaver or Datasette. Times are ISO 8601 UTC text.

-- 1. Companies red or black right now, worst first.
SELECT company_id, name, country, color, last_change_date, confirmed_at
FROM latest_ratings
WHERE color IN ('red', 'black')
ORDER BY CASE color WHEN 'black' THEN 0 ELSE 1 END, name;

-- 2. Color changes seen in the last 7 days.
SELECT name, from_color, to_color, changed_at, observed_at, run_id
FROM color_changes
WHERE observed_at >= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-7 days')
ORDER BY observed_at DESC;

-- 3. One company's timeline: when each rating started and when it was last confirmed.
--    Replace the name (or filter on company_id).
SELECT r.color, r.last_change_date, r.observed_at AS first_seen, r.confirmed_at AS last_confirmed
FROM ratings r
JOIN companies c ON c.id = r.company_id
WHERE c.name LIKE 'Zhao Robotique Loire%'
ORDER BY r.id;

-- 4. My references whose company is red or black in the latest run, with the change.
SELECT ref, company_name, country, previous_color, color, change
FROM run_results
WHERE run_id = (SELECT max(id) FROM runs) AND alert = 1
ORDER BY line;

-- 5. Rows of the latest run that need a person: failed, ambiguous, unresolved, invalid.
SELECT line, ref, status, error, candidates
FROM run_results
WHERE run_id = (SELECT max(id) FROM runs) AND status <> 'rated'
ORDER BY status, line;

-- 6. Recent runs with their counts.
SELECT id, portfolio, started_at, finished_at, status, rows_total, rows_rated, rows_failed, alerts
FROM runs
ORDER BY id DESC
LIMIT 10;
