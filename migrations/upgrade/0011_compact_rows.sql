-- 0011: smaller rows, no index in random order, and ratings never rewritten.
--
-- Three things made a screening write many times what it stored:
--
-- - `companies.company_id`, the service's UUID as 36 characters of text, was UNIQUE: an
--   index taking each new company on a random page. A first run that commits every
--   second wrote nearly every page of it again each second once it was large. The UUID
--   is now 16 bytes (`company_id BLOB`), found through `company_keys`, written in sorted
--   batches like `resolution_keys` and `input_keys` (0010).
-- - Times were 20 characters of text (`2026-11-23T02:00:00Z`). Every time of a row that
--   comes once per company or per rating is now an INTEGER, seconds since 1970 (UTC):
--   `companies.first_seen_at` / `updated_at`, `ratings.last_change_date` /
--   `last_refresh_date` / `observed_at`, `resolutions.resolved_at`. ratewatch only ever
--   stored whole seconds in that one format, so nothing is lost.
-- - A nightly run confirmed each unchanged rating by rewriting its row (`confirmed_at`,
--   `last_run_id`), spread over every page of `ratings`. Confirmations now have a small
--   table of their own, `rating_confirmations`, one short row per rating confirmed at
--   least once; a rating never confirmed was last seen when it was observed. `ratings` is
--   written once and never rewritten.
--
-- Measured with the throughput benchmark (256 requests at a time), with the key batches
-- that grow with the key tables: a first run of 100,000 rows wrote 3,145 bytes a row for
-- 654 of growth (4.8×) before, 1,269 for 453 (2.8×) after; of a million rows, 8,995 for
-- 660 (13.6×) before, 1,482 for 460 (3.2×) after; a nightly run, 486 for 62 (7.9×)
-- before, 204 for 74 (2.7×) after.
--
-- `ratings_by_observed` goes: nothing reads `ratings` by time.
--
-- The key tables' hashes shrink from 8 bytes to 4 (a third of each entry): the full key
-- tells apart the few keys that share one. `resolution_keys` and `input_keys` are emptied
-- here and filled again, with the new hashes, when ratewatch opens the database next,
-- right after this migration (the keys of rows above a key table's highest are added).
--
-- The views keep their columns and what they show: UUIDs as lowercase text with hyphens,
-- times as ISO 8601 text, as before. A view filtered on `company_id` now reads the
-- companies in turn rather than through an index.
--
-- Every table is rebuilt in place with every row and id; the views reading them are
-- dropped first and created again after.

-- Every value converted must convert exactly: a time that is not whole seconds in
-- ratewatch's one format, or a UUID that is not one, stops the upgrade here (the CHECK
-- below names it) with the database as it was, rather than turning into NULL.
CREATE TEMP TABLE compact_rows_check (
    ok INTEGER CONSTRAINT every_time_and_uuid_converts_exactly CHECK (ok)
);
INSERT INTO compact_rows_check (ok)
SELECT 0 FROM companies
WHERE unhex(replace(company_id, '-', '')) IS NULL
   OR length(unhex(replace(company_id, '-', ''))) <> 16
   OR strftime('%Y-%m-%dT%H:%M:%SZ', unixepoch(first_seen_at), 'unixepoch') IS NOT first_seen_at
   OR strftime('%Y-%m-%dT%H:%M:%SZ', unixepoch(updated_at), 'unixepoch') IS NOT updated_at;
INSERT INTO compact_rows_check (ok)
SELECT 0 FROM ratings
WHERE strftime('%Y-%m-%dT%H:%M:%SZ', unixepoch(last_change_date), 'unixepoch')
        IS NOT last_change_date
   OR strftime('%Y-%m-%dT%H:%M:%SZ', unixepoch(last_refresh_date), 'unixepoch')
        IS NOT last_refresh_date
   OR strftime('%Y-%m-%dT%H:%M:%SZ', unixepoch(observed_at), 'unixepoch') IS NOT observed_at
   OR strftime('%Y-%m-%dT%H:%M:%SZ', unixepoch(confirmed_at), 'unixepoch') IS NOT confirmed_at;
INSERT INTO compact_rows_check (ok)
SELECT 0 FROM resolutions
WHERE strftime('%Y-%m-%dT%H:%M:%SZ', unixepoch(resolved_at), 'unixepoch') IS NOT resolved_at;
DROP TABLE compact_rows_check;

PRAGMA legacy_alter_table = ON;

DROP VIEW latest_ratings;
DROP VIEW color_periods;
DROP VIEW color_changes;
DROP VIEW run_results;

CREATE TABLE companies_new (
    id            INTEGER PRIMARY KEY,
    company_id    BLOB    NOT NULL,                -- the service's UUID, 16 bytes; see company_keys
    name          TEXT,
    country       TEXT,
    street_number TEXT,
    street_name   TEXT,
    postcode      TEXT,
    city          TEXT,
    phone         TEXT,
    legal_form    TEXT,
    first_seen_at INTEGER NOT NULL,                -- seconds since 1970, UTC
    updated_at    INTEGER NOT NULL
);

INSERT INTO companies_new (id, company_id, name, country, street_number, street_name, postcode,
                           city, phone, legal_form, first_seen_at, updated_at)
SELECT id, unhex(replace(company_id, '-', '')), name, country, street_number, street_name,
       postcode, city, phone, legal_form, unixepoch(first_seen_at), unixepoch(updated_at)
FROM companies ORDER BY id;

DROP TABLE companies;
ALTER TABLE companies_new RENAME TO companies;

CREATE TABLE company_keys (
    hash    INTEGER NOT NULL,                      -- the UUID's four 32-bit words XORed
    company INTEGER NOT NULL,                      -- companies.id
    PRIMARY KEY (hash, company)
) WITHOUT ROWID;

CREATE TABLE ratings_new (
    id                INTEGER PRIMARY KEY,
    company           INTEGER NOT NULL REFERENCES companies (id),
    color             TEXT    NOT NULL,
    last_change_date  INTEGER,                     -- the service's lastChangeDate (seconds)
    last_refresh_date INTEGER,                     -- the service's lastRefreshDate (seconds)
    observed_at       INTEGER NOT NULL,            -- first time ratewatch saw this rating
    first_run_id      INTEGER REFERENCES runs (id),
    source            TEXT    NOT NULL DEFAULT 'run' CHECK (source IN ('run', 'account'))
);

INSERT INTO ratings_new (id, company, color, last_change_date, last_refresh_date, observed_at,
                         first_run_id, source)
SELECT id, company, color, unixepoch(last_change_date), unixepoch(last_refresh_date),
       unixepoch(observed_at), first_run_id, source
FROM ratings ORDER BY id;

-- The last time each rating was seen unchanged, when that is not when it was observed.
CREATE TABLE rating_confirmations (
    rating       INTEGER PRIMARY KEY REFERENCES ratings (id),
    confirmed_at INTEGER NOT NULL,                 -- seconds since 1970, UTC
    last_run_id  INTEGER REFERENCES runs (id)      -- NULL: confirmed by a sync only
);

INSERT INTO rating_confirmations (rating, confirmed_at, last_run_id)
SELECT id, unixepoch(confirmed_at), last_run_id
FROM ratings
WHERE confirmed_at IS NOT observed_at OR last_run_id IS NOT first_run_id
ORDER BY id;

DROP TABLE ratings;
ALTER TABLE ratings_new RENAME TO ratings;
CREATE INDEX ratings_by_company ON ratings (company, id);

CREATE TABLE resolutions_new (
    id          INTEGER PRIMARY KEY,
    input_key   TEXT    NOT NULL,                  -- found through resolution_keys
    outcome     TEXT    NOT NULL CHECK (outcome IN ('resolved', 'ambiguous', 'unresolved')),
    company     INTEGER REFERENCES companies (id),
    candidates  TEXT,                              -- JSON array for 'ambiguous'
    resolved_at INTEGER NOT NULL                   -- seconds since 1970, UTC
);

INSERT INTO resolutions_new (id, input_key, outcome, company, candidates, resolved_at)
SELECT id, input_key, outcome, company, candidates, unixepoch(resolved_at)
FROM resolutions ORDER BY id;

DROP TABLE resolutions;
ALTER TABLE resolutions_new RENAME TO resolutions;

DELETE FROM resolution_keys;
DELETE FROM input_keys;

PRAGMA legacy_alter_table = OFF;

CREATE VIEW latest_ratings AS
SELECT CASE WHEN c.company_id IS NOT NULL THEN
         lower(substr(hex(c.company_id), 1, 8) || '-' || substr(hex(c.company_id), 9, 4) || '-' ||
               substr(hex(c.company_id), 13, 4) || '-' || substr(hex(c.company_id), 17, 4) || '-' ||
               substr(hex(c.company_id), 21)) END        AS company_id,
       c.name,
       c.country,
       r.color,
       strftime('%Y-%m-%dT%H:%M:%SZ', r.last_change_date, 'unixepoch') AS last_change_date,
       strftime('%Y-%m-%dT%H:%M:%SZ', coalesce(f.confirmed_at, r.observed_at), 'unixepoch')
                                                         AS confirmed_at
FROM ratings r
JOIN companies c ON c.id = r.company
LEFT JOIN rating_confirmations f ON f.rating = r.id
WHERE r.id = (SELECT max(id) FROM ratings WHERE company = r.company);

-- As in 0007, on seconds: each time is worked out as a number and shown as text, and a
-- period's first observation is read from runs and requests made elsewhere in one
-- select (0007 repeated the select for each). With the company's internal key first, so
-- that one company's periods are read through the indexes `run_companies_color_starts`
-- and `account_requests_color_starts` (a filter on the UUID text cannot use an index).
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
      WHERE change IN ('new', 'deteriorated', 'improved', 'changed')
      UNION ALL
      SELECT company, rating_id, previous_rating_id        -- or by a request made elsewhere
      FROM account_requests
      WHERE change IN ('new', 'deteriorated', 'improved', 'changed')) s
JOIN companies c ON c.id = s.company
JOIN ratings r   ON r.id = s.rating_id
LEFT JOIN ratings p ON p.id = s.previous_rating_id         -- the previous period's last one
LEFT JOIN rating_confirmations pf ON pf.rating = p.id
LEFT JOIN ratings n                                        -- the next period's first one
       ON n.id = (SELECT min(next) FROM (
                    SELECT (SELECT min(rating_id) FROM run_companies
                            WHERE company = s.company AND rating_id > s.rating_id
                              AND change IN ('new', 'deteriorated', 'improved', 'changed')) AS next
                    UNION ALL
                    SELECT (SELECT min(rating_id) FROM account_requests
                            WHERE company = s.company AND rating_id > s.rating_id
                              AND change IN ('new', 'deteriorated', 'improved', 'changed'))))
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
      WHERE change IN ('deteriorated', 'improved', 'changed')
      UNION ALL
      SELECT NULL, company, rating_id, previous_rating_id    -- or by a request made elsewhere
      FROM account_requests
      WHERE change IN ('deteriorated', 'improved', 'changed')) s
JOIN ratings r   ON r.id = s.rating_id
JOIN ratings p   ON p.id = s.previous_rating_id
JOIN companies c ON c.id = s.company;

CREATE VIEW run_results AS
SELECT rr.run_id,
       rr.line,
       i.ref,
       i.country,
       i.service,
       i.external_id,
       i.name,
       rr.status,
       CASE WHEN c.company_id IS NOT NULL THEN
         lower(substr(hex(c.company_id), 1, 8) || '-' || substr(hex(c.company_id), 9, 4) || '-' ||
               substr(hex(c.company_id), 13, 4) || '-' || substr(hex(c.company_id), 17, 4) || '-' ||
               substr(hex(c.company_id), 21)) END        AS company_id,
       c.name                 AS company_name,
       r.color                AS color,
       p.color                AS previous_color,
       rc.change              AS change,
       strftime('%Y-%m-%dT%H:%M:%SZ', r.last_change_date, 'unixepoch')  AS last_change_date,
       CASE WHEN ra.kind IS NULL THEN 0 ELSE 1 END AS alert,
       rr.error,
       rr.candidates,
       strftime('%Y-%m-%dT%H:%M:%SZ', r.last_refresh_date, 'unixepoch') AS last_refresh_date,
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
