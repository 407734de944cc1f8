-- Less work for each row a run writes and each row its reports read.
--
-- SQLite tests `x IN ('a', 'b', 'c')`, with three values or more, in a CHECK constraint or
-- in the WHERE of a partial index, by building a temporary table of the values, and does
-- so again for every row written. A run writes a row of `run_companies` per company (its
-- CHECK and two partial indexes: three such tables a row), one of `run_rows` per input
-- row, one of `resolutions` per search, one of `run_alerts` per alert. Inserting
-- `run_companies` rows 32 to a statement took 55,600 instructions a row before and 22,500
-- after.
--
-- The same conditions are written as comparisons joined by OR:
-- - The partial indexes are built again with them; they hold the same rows. The views
--   that read through them are created again with the same condition, word for word, as
--   SQLite uses a partial index only for a query that states its condition.
-- - The CHECK constraints are changed in the text of the schema, which SQLite documents
--   for a change that every stored row already meets
--   (https://sqlite.org/lang_altertable.html#otheralter). The DDL after it makes every
--   other connection read the schema again.
--
-- The reports read the results through a new view, `run_results_stored`, at the end.

PRAGMA writable_schema = ON;
UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (change IN (''new'', ''unchanged'', ''evolved'', ''deteriorated'',
                                         ''improved'', ''changed'', ''gone''))',
    'CHECK (change = ''new'' OR change = ''unchanged'' OR change = ''evolved''
                              OR change = ''deteriorated'' OR change = ''improved''
                              OR change = ''changed'' OR change = ''gone'')')
WHERE type = 'table' AND name = 'run_companies';

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (status IN (''rated'', ''unresolved'', ''ambiguous'', ''invalid'', ''failed'',
                                 ''ignored''))',
    'CHECK (status = ''rated'' OR status = ''unresolved'' OR status = ''ambiguous''
                      OR status = ''invalid'' OR status = ''failed'' OR status = ''ignored'')')
WHERE type = 'table' AND name = 'run_rows';

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (outcome IN (''resolved'', ''ambiguous'', ''unresolved''))',
    'CHECK (outcome = ''resolved'' OR outcome = ''ambiguous''
                                         OR outcome = ''unresolved'')')
WHERE type = 'table' AND name = 'resolutions';

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (kind IN (''black'', ''red'', ''deteriorated'', ''white'', ''gone'', ''unknown'',
                               ''changed'', ''improved'', ''still''))',
    'CHECK (kind = ''black'' OR kind = ''red'' OR kind = ''deteriorated'' OR kind = ''white''
                    OR kind = ''gone'' OR kind = ''unknown'' OR kind = ''changed''
                    OR kind = ''improved'' OR kind = ''still'')')
WHERE type = 'table' AND name = 'run_alerts';

PRAGMA writable_schema = OFF;

-- Stops the upgrade, leaving the database as it was, unless each constraint was found
-- and changed.
CREATE TEMP TABLE constraints_changed (
    tables INTEGER CHECK (tables = 4)
);
INSERT INTO constraints_changed
SELECT count(*) FROM sqlite_schema
WHERE type = 'table'
  AND name IN ('run_companies', 'run_rows', 'resolutions', 'run_alerts')
  AND sql NOT LIKE '% IN (%' AND sql LIKE '%CHECK (% = ''% OR%';
DROP TABLE constraints_changed;

DROP INDEX run_companies_color_starts;
CREATE INDEX run_companies_color_starts ON run_companies (company, rating_id, previous_rating_id)
    WHERE (change = 'new' OR change = 'deteriorated' OR change = 'improved' OR change = 'changed');
DROP INDEX run_companies_color_changes;
CREATE INDEX run_companies_color_changes ON run_companies (rating_id)
    WHERE (change = 'deteriorated' OR change = 'improved' OR change = 'changed');
DROP INDEX account_requests_color_starts;
CREATE INDEX account_requests_color_starts
    ON account_requests (company, rating_id, previous_rating_id)
    WHERE (change = 'new' OR change = 'deteriorated' OR change = 'improved' OR change = 'changed');
DROP INDEX account_requests_color_changes;
CREATE INDEX account_requests_color_changes ON account_requests (rating_id)
    WHERE (change = 'deteriorated' OR change = 'improved' OR change = 'changed');

DROP VIEW color_periods;
DROP VIEW company_color_periods;
DROP VIEW color_changes;

CREATE VIEW company_color_periods AS
SELECT s.company,
       CASE WHEN c.company_id IS NOT NULL THEN
         lower(substr(hex(c.company_id), 1, 8) || '-' || substr(hex(c.company_id), 9, 4) || '-' ||
               substr(hex(c.company_id), 13, 4) || '-' || substr(hex(c.company_id), 17, 4) || '-' ||
               substr(hex(c.company_id), 21)) END        AS company_id,
       c.name,
       c.country,
       r.color,
       strftime('%Y-%m-%dT%H:%M:%SZ',
                max(min(coalesce(r.last_change_date, r.observed_at), r.observed_at),
                    coalesce(pf.confirmed_at, p.observed_at, -9223372036854775807)), 'unixepoch') AS valid_from,
       strftime('%Y-%m-%dT%H:%M:%SZ',
                max(min(coalesce(n.last_change_date, n.observed_at), n.observed_at),
                    coalesce(lf.confirmed_at, l.observed_at)), 'unixepoch') AS valid_to,
       strftime('%Y-%m-%dT%H:%M:%SZ', r.observed_at, 'unixepoch')         AS observed_at,
       strftime('%Y-%m-%dT%H:%M:%SZ', coalesce(lf.confirmed_at, l.observed_at), 'unixepoch')
                                                                          AS confirmed_at,
       r.first_run_id,
       CASE WHEN lf.rating IS NULL THEN l.first_run_id ELSE lf.last_run_id END AS last_run_id
FROM (SELECT company, rating_id, previous_rating_id        -- each period's first observation,
      FROM run_companies                                   -- by a run
      WHERE (change = 'new' OR change = 'deteriorated' OR change = 'improved' OR change = 'changed')
      UNION ALL
      SELECT company, rating_id, previous_rating_id        -- or by a request made elsewhere
      FROM account_requests
      WHERE (change = 'new' OR change = 'deteriorated' OR change = 'improved' OR change = 'changed')) s
JOIN companies c ON c.id = s.company
JOIN ratings r   ON r.id = s.rating_id
LEFT JOIN ratings p ON p.id = s.previous_rating_id         -- the previous period's last one
LEFT JOIN rating_confirmations pf ON pf.rating = p.id
LEFT JOIN ratings n                                        -- the next period's first one
       ON n.id = (SELECT min(next) FROM (
                    SELECT (SELECT min(rating_id) FROM run_companies
                            WHERE company = s.company AND rating_id > s.rating_id
                              AND (change = 'new' OR change = 'deteriorated' OR change = 'improved' OR change = 'changed')) AS next
                    UNION ALL
                    SELECT (SELECT min(rating_id) FROM account_requests
                            WHERE company = s.company AND rating_id > s.rating_id
                              AND (change = 'new' OR change = 'deteriorated' OR change = 'improved' OR change = 'changed'))))
JOIN ratings l                                             -- this period's last observation
       ON l.id = coalesce((SELECT max(id) FROM ratings WHERE company = s.company AND id < n.id),
                          (SELECT max(id) FROM ratings WHERE company = s.company))
LEFT JOIN rating_confirmations lf ON lf.rating = l.id;

CREATE VIEW color_periods AS
SELECT company_id, name, country, color, valid_from, valid_to, observed_at, confirmed_at,
       first_run_id, last_run_id
FROM company_color_periods;

CREATE VIEW color_changes AS
SELECT CASE WHEN c.company_id IS NOT NULL THEN
         lower(substr(hex(c.company_id), 1, 8) || '-' || substr(hex(c.company_id), 9, 4) || '-' ||
               substr(hex(c.company_id), 13, 4) || '-' || substr(hex(c.company_id), 17, 4) || '-' ||
               substr(hex(c.company_id), 21)) END        AS company_id,
       c.name,
       p.color                                     AS from_color,
       r.color                                     AS to_color,
       strftime('%Y-%m-%dT%H:%M:%SZ', coalesce(r.last_change_date, r.observed_at), 'unixepoch')
                                                   AS changed_at,
       strftime('%Y-%m-%dT%H:%M:%SZ', r.observed_at, 'unixepoch') AS observed_at,
       s.run_id
FROM (SELECT run_id, company, rating_id, previous_rating_id  -- seen by a run
      FROM run_companies
      WHERE (change = 'deteriorated' OR change = 'improved' OR change = 'changed')
      UNION ALL
      SELECT NULL, company, rating_id, previous_rating_id    -- or by a request made elsewhere
      FROM account_requests
      WHERE (change = 'deteriorated' OR change = 'improved' OR change = 'changed')) s
JOIN ratings r   ON r.id = s.rating_id
JOIN ratings p   ON p.id = s.previous_rating_id
JOIN companies c ON c.id = s.company;

-- The results as stored, which ratewatch's reports read: the company's UUID as 16 bytes
-- and the times as seconds, which they turn into text themselves, faster than SQL does
-- (five hex() and a strftime() a row). `run_results` shows them as it always has.
DROP VIEW run_results;
CREATE VIEW run_results_stored AS
SELECT rr.run_id,
       rr.line,
       i.ref,
       i.country,
       i.service,
       i.external_id,
       i.name,
       rr.status,
       c.company_id           AS company_id,
       c.name                 AS company_name,
       r.color                AS color,
       p.color                AS previous_color,
       rc.change              AS change,
       r.last_change_date     AS last_change_date,
       CASE WHEN ra.kind IS NULL THEN 0 ELSE 1 END AS alert,
       rr.error,
       rr.candidates,
       r.last_refresh_date    AS last_refresh_date,
       i.extra                AS extra,
       ra.kind                AS alert_kind,
       ra.listed              AS alert_listed,
       ra.acked               AS alert_acked
FROM run_rows rr
JOIN inputs i              ON i.id = rr.input_id
LEFT JOIN companies c      ON c.id = rr.company
LEFT JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = rr.company
                          AND (rr.status = 'rated'
                               OR (rr.status = 'unresolved' AND rc.change = 'gone'))
LEFT JOIN ratings r        ON r.id = rc.rating_id
LEFT JOIN ratings p        ON p.id = rc.previous_rating_id
LEFT JOIN run_alerts ra    ON ra.run_id = rr.run_id AND ra.company = rc.company;

CREATE VIEW run_results AS
SELECT run_id, line, ref, country, service, external_id, name, status,
       CASE WHEN company_id IS NOT NULL THEN
         lower(substr(hex(company_id), 1, 8) || '-' || substr(hex(company_id), 9, 4) || '-' ||
               substr(hex(company_id), 13, 4) || '-' || substr(hex(company_id), 17, 4) || '-' ||
               substr(hex(company_id), 21)) END        AS company_id,
       company_name, color, previous_color, change,
       strftime('%Y-%m-%dT%H:%M:%SZ', last_change_date, 'unixepoch')  AS last_change_date,
       alert, error, candidates,
       strftime('%Y-%m-%dT%H:%M:%SZ', last_refresh_date, 'unixepoch') AS last_refresh_date,
       extra, alert_kind, alert_listed, alert_acked
FROM run_results_stored;
