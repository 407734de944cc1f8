-- 0030: `portfolio_now` ranks narrow rows. To find each reference's first row of its
-- portfolio's latest finished run, the view sorted every wide row of the run (its carried
-- columns included); it now ranks the run's rows by (portfolio, run, ref, line) alone and
-- reads the first row's columns by key. Same columns, same rows; at 100,000 rows the
-- ranking takes 0.3 s of CPU instead of 1.8 s (benches/RESULTS.md, "The analyst's SQL: after
-- schema 28"). A filter on `portfolio` or `ref` still reaches the ranking.
DROP VIEW IF EXISTS portfolio_now;

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
             (SELECT cp.valid_from FROM color_periods cp
              WHERE cp.company = lr.company AND cp.first_rating_id <= lr.rating_id
              ORDER BY cp.first_rating_id DESC LIMIT 1) AS color_since
      FROM latest_results lr
      WHERE ref IS NOT NULL) f
JOIN latest_results l ON l.run_id = f.run_id AND l.line = f.line
LEFT JOIN companies c ON c.id = l.company
WHERE f.nth = 1;
