-- 0008: the trend at a glance, and a user's references in SQL without joins.
--
-- `run_colors` keeps, for each finished run, how many of its rated rows had each color:
-- what report.json's `by_color` counts (rows of `run_results` with status `rated`, by
-- `color`). report.html draws the last 30 runs of a portfolio from it, and `ratewatch
-- runs` lists it, without reading a million rows of each run again: a finished run's rows
-- never change, so they are counted once, when the run finishes. Runs finished before
-- this migration are counted here, once (one pass over their results).
--
-- `portfolio_latest` answers "what is the color of my customer C-1001 now?" with one
-- WHERE on `ref`: see the comment above it.

CREATE TABLE run_colors (
    run_id INTEGER NOT NULL REFERENCES runs (id),
    color  TEXT    NOT NULL,
    rows   INTEGER NOT NULL,
    PRIMARY KEY (run_id, color)
) WITHOUT ROWID;

INSERT INTO run_colors (run_id, color, rows)
SELECT run_id, color, count(*)
FROM run_results
WHERE status = 'rated' AND color IS NOT NULL
  AND run_id IN (SELECT id FROM runs WHERE finished_at IS NOT NULL)
GROUP BY run_id, color;

-- A portfolio's runs in order: the trend's last 30 runs up to one, and each portfolio's
-- latest finished run, are index ranges.
CREATE INDEX runs_by_portfolio ON runs (portfolio, id);

-- One row per (portfolio, ref): that reference's outcome in its portfolio's latest
-- finished run (status `complete` or `partial`; a run still going, interrupted or failed
-- may hold only part of the file), as `history` reads what a portfolio holds.
--
-- - A reference that left the portfolio leaves the view with the next finished run; its
--   earlier outcomes stay in `run_results`.
-- - Rows without a reference are not in the view: it is keyed by the user's reference.
--   They are in `run_results` (WHERE run_id = … AND ref IS NULL), keyed by line.
-- - A reference on several lines of one run (a customer listed twice) gives the row on
--   its first line; `run_results` has all of them.
-- - `color` and `last_change_date` are those of a rated row, or of a company found gone
--   (status `unresolved`, its last rating); NULL otherwise.
CREATE VIEW portfolio_latest AS
SELECT portfolio,
       ref,
       line,
       status,
       company_id,
       company_name,
       color,
       last_change_date,
       run_id,
       started_at,
       finished_at
FROM (
    SELECT u.portfolio,
           r.ref,
           r.line,
           r.status,
           r.company_id,
           r.company_name,
           r.color,
           r.last_change_date,
           u.id                  AS run_id,
           u.started_at,
           u.finished_at,
           row_number() OVER (PARTITION BY u.id, r.ref ORDER BY r.line) AS nth
    FROM runs u
    JOIN run_results r ON r.run_id = u.id
    WHERE u.id IN (SELECT max(id) FROM runs
                   WHERE status IN ('complete', 'partial') GROUP BY portfolio)
      AND r.ref IS NOT NULL
)
WHERE nth = 1;
