-- 0002: what color each company had on a given date, and indexes that keep the analysts'
-- questions fast on millions of history rows.
--
-- What "the color on date D" means. `ratings` holds observations, not periods: a row is
-- what the service answered, first seen at `observed_at`, seen again unchanged up to
-- `confirmed_at`, with the service's `last_change_date` (when the rating last evolved). A
-- row is added whenever the color or either service date moves, so most rows are
-- refreshes of a color that did not change. The view `color_periods` turns them into
-- periods, one row per color a company held:
--
-- - A period is a run of consecutive observations of one company with the same color. It
--   starts at the observation its run classified as `new` (first sighting) or as a color
--   change (`deteriorated`, `improved`, `changed`) in `run_companies.change`; the rows
--   after it with the same color (`evolved`, refreshes) extend it.
-- - `valid_from` is when the color began, as the service dates it: the lastChangeDate of
--   the period's first observation (its `observed_at` when the service gave none). A
--   change happened between the last sighting of the old color and the first sighting
--   of the new one; a lastChangeDate outside that gap is moved to its nearer end. It is
--   never after the first sighting (the service's clock ran ahead) and never before the
--   last sighting of the previous color (ratewatch saw the old color then; what was
--   observed wins over a date the service later put on it).
-- - The first period reaches back to the service's lastChangeDate, before ratewatch
--   ever looked. Before it nothing is known, and no period matches.
-- - `valid_to` is the next period's `valid_from`, NULL for the current period. A
--   company's periods never overlap, so at most one matches an instant :t:
--       WHERE valid_from <= :t AND (valid_to IS NULL OR valid_to > :t)
-- - The current period is confirmed only up to its `confirmed_at`; later than that it is
--   the latest color known, not a color seen (add `AND :t <= confirmed_at` to keep only
--   what was seen).
-- - Times are ISO 8601 UTC text compared as text: "on 1 March" has to be an instant.
--   '2026-03-01T23:59:59Z' asks for the color at the close of that day. A bare
--   '2026-03-01' sorts before every time of that day, so it means the close of
--   28 February.
--
-- Speed. Periods and changes are found through partial indexes on `run_companies` that hold
-- only the observations where a color started, a small fraction of the history. A
-- company's periods are an index range, and "the color of every company on D" is one
-- pass over the periods rather than over every observation. The indexes cost the nightly
-- run next to nothing: an entry only when a color starts. Building them reads
-- `run_companies` once, on the first start after the upgrade.

-- Where each company's color periods start, in order, with the row before each start.
CREATE INDEX run_companies_color_starts ON run_companies (company, rating_id, previous_rating_id)
    WHERE change IN ('new', 'deteriorated', 'improved', 'changed');

-- Every change of color, by the observation that showed it.
CREATE INDEX run_companies_color_changes ON run_companies (rating_id)
    WHERE change IN ('deteriorated', 'improved', 'changed');

-- A user's reference (customer number) to the rows, and so the companies, it names.
CREATE INDEX inputs_by_ref ON inputs (ref);

-- One row per period of one color of one company; see above.
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
LEFT JOIN run_companies ns                                 -- the next period's first one
       ON ns.company = s.company
      AND ns.change IN ('new', 'deteriorated', 'improved', 'changed')
      AND ns.rating_id = (SELECT min(rating_id) FROM run_companies
                          WHERE company = s.company AND rating_id > s.rating_id
                            AND change IN ('new', 'deteriorated', 'improved', 'changed'))
LEFT JOIN ratings n ON n.id = ns.rating_id
JOIN ratings l                                             -- this period's last observation
       ON l.id = coalesce(ns.previous_rating_id,
                          (SELECT max(id) FROM ratings WHERE company = s.company))
WHERE s.change IN ('new', 'deteriorated', 'improved', 'changed');

-- The same rows and columns as in 0001, read from the changes recorded by each run
-- instead of comparing every pair of consecutive observations: a filter on
-- `observed_at`, `run_id` or `company_id` no longer reads the whole history.
DROP VIEW color_changes;
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
WHERE s.change IN ('deteriorated', 'improved', 'changed');
