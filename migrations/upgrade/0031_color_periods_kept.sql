-- 0031: each color period is kept as a row of its own. The view `color_periods` worked
-- out every period from the ratings around its start (some ten index searches a period:
-- the previous rating, its confirmation, the next start, the last rating before it), and
-- every question about a color since or on a date paid that for every company it read.
-- `color_period_bounds` now holds each period's start and end as the view gave them, kept
-- by the trigger `ratings_in_order` as each rating is added; the view reads one row per
-- period, and `color_changes` one row per period after a company's first. Same columns,
-- same rows. A start is fixed once the period has begun (the rating before it is never seen
-- again), and an end once the next has begun. The index of the ratings that start a period
-- served only those views: it goes, and the periods' rows cost a first run 2.6 % more CPU.
DROP VIEW IF EXISTS portfolio_now;
DROP VIEW IF EXISTS color_changes;
DROP VIEW IF EXISTS color_periods;
DROP TRIGGER IF EXISTS ratings_in_order;
DROP TABLE IF EXISTS color_period_bounds;

-- Each color period of each company: from when to when it held the color, as the view
-- `color_periods` shows it. `last_rating_id` and `valid_to` are NULL while the period is
-- the company's current one.
CREATE TABLE color_period_bounds (
    first_rating_id INTEGER PRIMARY KEY REFERENCES ratings (id), -- the rating that began it
    company         INTEGER NOT NULL REFERENCES companies (id),
    color           TEXT    NOT NULL,
    valid_from      TEXT    NOT NULL,
    valid_to        TEXT,                          -- the next period's valid_from
    last_rating_id  INTEGER REFERENCES ratings (id) -- the last rating before the next period
);
-- A company's periods in order: its timeline, and the period holding a given rating.
CREATE INDEX color_period_bounds_by_company ON color_period_bounds (company, first_rating_id);

-- The periods of the history so far, as the view of version 30 worked them out.
INSERT INTO color_period_bounds (first_rating_id, company, color, valid_from, valid_to,
                                 last_rating_id)
SELECT r.id,
       r.company,
       r.color,
       max(min(coalesce(r.last_change_date, r.observed_at), r.observed_at),
           coalesce(pf.confirmed_at, p.observed_at, '')),
       CASE WHEN n.id IS NOT NULL THEN
           max(min(coalesce(n.last_change_date, n.observed_at), n.observed_at),
               coalesce(lf.confirmed_at, l.observed_at)) END,
       CASE WHEN n.id IS NOT NULL THEN l.id END
FROM ratings r
JOIN companies c ON c.id = r.company
LEFT JOIN ratings p
       ON p.id = (SELECT max(id) FROM ratings WHERE company = r.company AND id < r.id)
LEFT JOIN rating_confirmations pf ON pf.rating = p.id
LEFT JOIN ratings n
       ON n.id = (SELECT min(id) FROM ratings
                  WHERE company = r.company AND id > r.id AND starts_period = 1)
JOIN ratings l
       ON l.id = coalesce((SELECT max(id) FROM ratings WHERE company = r.company AND id < n.id),
                          c.latest_rating)
LEFT JOIN rating_confirmations lf ON lf.rating = l.id
WHERE r.starts_period = 1
ORDER BY r.id;
DROP INDEX IF EXISTS ratings_period_starts;

-- A new rating is the company's latest; it starts a color period unless the latest before
-- it had the same color. A new period begins at the rating's change date (its observation
-- when it has none, and never after it), but not before the rating before it was last
-- seen; it ends the period before, whose last rating that one was.
CREATE TRIGGER ratings_in_order AFTER INSERT ON ratings
BEGIN
    UPDATE ratings
    SET starts_period = 1
    WHERE id = NEW.id
      AND NEW.color IS NOT (SELECT p.color FROM companies c
                            JOIN ratings p ON p.id = c.latest_rating
                            WHERE c.id = NEW.company);
    INSERT INTO color_period_bounds (first_rating_id, company, color, valid_from)
    SELECT NEW.id, NEW.company, NEW.color,
           max(min(coalesce(NEW.last_change_date, NEW.observed_at), NEW.observed_at),
               coalesce((SELECT coalesce(f.confirmed_at, p.observed_at)
                         FROM companies c
                         JOIN ratings p ON p.id = c.latest_rating
                         LEFT JOIN rating_confirmations f ON f.rating = p.id
                         WHERE c.id = NEW.company), ''))
    WHERE (SELECT starts_period FROM ratings WHERE id = NEW.id) = 1;
    UPDATE color_period_bounds
    SET valid_to = (SELECT valid_from FROM color_period_bounds WHERE first_rating_id = NEW.id),
        last_rating_id = (SELECT latest_rating FROM companies WHERE id = NEW.company)
    WHERE first_rating_id = (SELECT max(first_rating_id) FROM color_period_bounds
                             WHERE company = NEW.company AND first_rating_id < NEW.id)
      AND (SELECT starts_period FROM ratings WHERE id = NEW.id) = 1;
    UPDATE companies SET latest_rating = NEW.id WHERE id = NEW.company;
END;

-- Each company's color periods: from when to when it held each color. A period starts
-- when the service says the color changed, but never before ratewatch last saw the color
-- before it, nor after it first saw the new one; `valid_to` is NULL for the current one.
-- `first_rating_id` and `last_rating_id` are the period's first and last observations.
-- Each period is a row of `color_period_bounds`.
CREATE VIEW color_periods AS
SELECT b.company,
       c.company_id,
       c.name,
       c.country,
       b.color,
       b.valid_from,
       b.valid_to,
       r.observed_at,
       coalesce(lf.confirmed_at, l.observed_at)            AS confirmed_at,
       r.first_run_id,
       CASE WHEN lf.rating IS NULL THEN l.first_run_id ELSE lf.last_run_id END AS last_run_id,
       c.company_id                                        AS company_uuid,
       b.first_rating_id,
       l.id                                                AS last_rating_id
FROM color_period_bounds b
JOIN companies c ON c.id = b.company
JOIN ratings r   ON r.id = b.first_rating_id               -- the period's first rating
JOIN ratings l   ON l.id = coalesce(b.last_rating_id, c.latest_rating) -- and its last
LEFT JOIN rating_confirmations lf ON lf.rating = l.id;

-- Every color change seen: by a run (`run_id`, the run that saw it first), or by a
-- request made elsewhere (NULL). `direction` on the risk scale green < yellow < red <
-- black: `worse` or `better`; `to white` or `from white` (no information, off the scale);
-- `changed` to or from a color the service added.
CREATE VIEW color_changes AS
SELECT r.company,
       c.company_id,
       c.name,
       p.color                                   AS from_color,
       r.color                                   AS to_color,
       coalesce(r.last_change_date, r.observed_at) AS changed_at,
       r.observed_at,
       r.first_run_id                            AS run_id,
       c.company_id                              AS company_uuid,
       CASE WHEN r.color = 'white' THEN 'to white'
            WHEN p.color = 'white' THEN 'from white'
            WHEN (CASE r.color WHEN 'green' THEN 0 WHEN 'yellow' THEN 1 WHEN 'red' THEN 2
                               WHEN 'black' THEN 3 END)
               > (CASE p.color WHEN 'green' THEN 0 WHEN 'yellow' THEN 1 WHEN 'red' THEN 2
                               WHEN 'black' THEN 3 END) THEN 'worse'
            WHEN (CASE r.color WHEN 'green' THEN 0 WHEN 'yellow' THEN 1 WHEN 'red' THEN 2
                               WHEN 'black' THEN 3 END)
               < (CASE p.color WHEN 'green' THEN 0 WHEN 'yellow' THEN 1 WHEN 'red' THEN 2
                               WHEN 'black' THEN 3 END) THEN 'better'
            ELSE 'changed' END                   AS direction,
       r.id                                      AS rating_id,
       p.id                                      AS previous_rating_id
FROM color_period_bounds b                                 -- the period the change began
JOIN color_period_bounds q                                 -- and the one before it
       ON q.first_rating_id = (SELECT max(first_rating_id) FROM color_period_bounds
                               WHERE company = b.company AND first_rating_id < b.first_rating_id)
JOIN ratings r   ON r.id = b.first_rating_id
JOIN ratings p   ON p.id = q.last_rating_id
JOIN companies c ON c.id = b.company;

-- One line per ref of each portfolio, as of its latest finished run: the first row that
-- holds the ref, its company and where it stands. `color_since` is the start of the color
-- period holding the run's rating, as `color_periods` has it (`valid_from`). The first row
-- of each ref is ranked over narrow rows (`f`: where a row is, and its period's start)
-- within each portfolio's run, then its columns read by key: a filter on `portfolio` (or
-- `ref`) reads that portfolio's rows (those refs) alone, and no wide row is sorted.
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
             (SELECT b.valid_from FROM color_period_bounds b
              WHERE b.company = lr.company AND b.first_rating_id <= lr.rating_id
              ORDER BY b.first_rating_id DESC LIMIT 1) AS color_since
      FROM latest_results lr
      WHERE ref IS NOT NULL) f
JOIN latest_results l ON l.run_id = f.run_id AND l.line = f.line
LEFT JOIN companies c ON c.id = l.company
WHERE f.nth = 1;
