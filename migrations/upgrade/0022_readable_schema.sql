-- 0022: the database of versions 1 to 21, converted to the schema of migrations/schema.sql
-- in one transaction. Every row keeps its id; only the way things are kept changes:
-- - times stored as seconds (ratings, confirmations, companies, the search cache) become
--   text like every other time;
-- - `companies.company_id`, a 16-byte blob found through a hash table, becomes the UUID's
--   text under a UNIQUE index; registry ids move from a JSON column to
--   `company_external_ids`; `companies.latest_rating` names each company's newest rating;
-- - the search cache is keyed by its search, and the input rows are found through a UNIQUE
--   index: the key tables (`resolution_keys`, `input_keys`, `company_keys`) go;
-- - row statuses are words again, the search outcome a plain column.
--
-- The old tables are renamed aside, the schema is created as a new database's, each table
-- is copied, and the old ones dropped. ratewatch then compacts the file (VACUUM), after
-- the commit.

-- Part 1: set the old schema aside.
DROP VIEW IF EXISTS portfolio_latest;
DROP VIEW IF EXISTS run_results;
DROP VIEW IF EXISTS run_results_stored;
DROP VIEW IF EXISTS color_periods;
DROP VIEW IF EXISTS company_color_periods;
DROP VIEW IF EXISTS color_changes;
DROP VIEW IF EXISTS latest_ratings;
DROP VIEW IF EXISTS company_external_ids;

ALTER TABLE runs RENAME TO old_runs;
ALTER TABLE lookup_countries RENAME TO old_lookup_countries;
ALTER TABLE lookup_services RENAME TO old_lookup_services;
ALTER TABLE companies RENAME TO old_companies;
ALTER TABLE ratings RENAME TO old_ratings;
ALTER TABLE rating_confirmations RENAME TO old_rating_confirmations;
ALTER TABLE inputs RENAME TO old_inputs;
ALTER TABLE resolutions RENAME TO old_resolutions;
ALTER TABLE run_rows RENAME TO old_run_rows;
ALTER TABLE run_companies RENAME TO old_run_companies;
ALTER TABLE run_reused_ratings RENAME TO old_run_reused_ratings;
ALTER TABLE run_alerts RENAME TO old_run_alerts;
ALTER TABLE run_colors RENAME TO old_run_colors;
ALTER TABLE acks RENAME TO old_acks;
ALTER TABLE decisions RENAME TO old_decisions;
ALTER TABLE account_requests RENAME TO old_account_requests;

DROP INDEX IF EXISTS runs_by_portfolio;
DROP INDEX IF EXISTS ratings_by_company;
DROP INDEX IF EXISTS run_companies_gone;
DROP INDEX IF EXISTS run_companies_color_starts;
DROP INDEX IF EXISTS run_companies_color_changes;
DROP INDEX IF EXISTS run_alerts_order;
DROP INDEX IF EXISTS run_alerts_listed;
DROP INDEX IF EXISTS account_requests_by_time;
DROP INDEX IF EXISTS account_requests_color_starts;
DROP INDEX IF EXISTS account_requests_color_changes;

-- @schema: migrations/schema.sql is created here.

-- Part 2: copy every row, then drop the old tables.
INSERT INTO runs (id, portfolio, input_path, input_sha256, started_at, finished_at, status,
                  delivered_at, demo_day, rows_total, rows_rated, rows_unresolved,
                  rows_ambiguous, rows_invalid, rows_failed, rows_ignored, alerts, calls,
                  notes, service_time, extra_columns)
SELECT id, portfolio, input_path, input_sha256, started_at, finished_at, status,
       delivered_at, demo_day, rows_total, rows_rated, rows_unresolved,
       rows_ambiguous, rows_invalid, rows_failed, rows_ignored, alerts, calls,
       notes, service_time, extra_columns
FROM old_runs;

INSERT INTO lookup_countries SELECT code, name, fetched_at FROM old_lookup_countries;
INSERT INTO lookup_services SELECT country, code, label, fetched_at FROM old_lookup_services;

INSERT INTO companies (id, company_id, name, country, street_number, street_name, postcode,
                       city, phone, legal_form, latest_rating, first_seen_at, updated_at)
SELECT c.id,
       lower(substr(hex(c.company_id), 1, 8) || '-' || substr(hex(c.company_id), 9, 4) || '-' ||
             substr(hex(c.company_id), 13, 4) || '-' || substr(hex(c.company_id), 17, 4) || '-' ||
             substr(hex(c.company_id), 21)),
       c.name, c.country, c.street_number, c.street_name, c.postcode, c.city, c.phone,
       c.legal_form,
       NULL,                                  -- set as each rating is copied, below
       strftime('%Y-%m-%dT%H:%M:%SZ', c.first_seen_at, 'unixepoch'),
       strftime('%Y-%m-%dT%H:%M:%SZ', c.updated_at, 'unixepoch')
FROM old_companies c;

-- Registry ids were kept as ["SIREN", "552100554"] pairs or, earlier, "SIREN 552100554".
INSERT OR IGNORE INTO company_external_ids (company, service, external_id)
SELECT c.id,
       CASE WHEN e.type = 'array' THEN json_extract(e.value, '$[0]')
            ELSE substr(e.value, 1, instr(e.value, ' ') - 1) END,
       CASE WHEN e.type = 'array' THEN json_extract(e.value, '$[1]')
            ELSE substr(e.value, instr(e.value, ' ') + 1) END
FROM old_companies c, json_each(c.external_ids) e
WHERE c.external_ids IS NOT NULL;

-- In id order, so that the trigger `ratings_in_order` names each company's latest rating
-- and the ratings that start a color period, as it does for every new rating.
INSERT INTO ratings (id, company, color, last_change_date, last_refresh_date, observed_at,
                     first_run_id, source)
SELECT id, company, color,
       strftime('%Y-%m-%dT%H:%M:%SZ', last_change_date, 'unixepoch'),
       strftime('%Y-%m-%dT%H:%M:%SZ', last_refresh_date, 'unixepoch'),
       strftime('%Y-%m-%dT%H:%M:%SZ', observed_at, 'unixepoch'),
       first_run_id, source
FROM old_ratings
ORDER BY id;

INSERT INTO rating_confirmations (rating, confirmed_at, last_run_id)
SELECT rating, strftime('%Y-%m-%dT%H:%M:%SZ', confirmed_at, 'unixepoch'), last_run_id
FROM old_rating_confirmations;

INSERT INTO inputs (id, ref, country, service, external_id, name, street_number, street_name,
                    city, postcode, phone, given_company_id, extra)
SELECT id, ref, country, service, external_id, name, street_number, street_name,
       city, postcode, phone, given_company_id, extra
FROM old_inputs;

INSERT INTO resolutions (search_key, outcome, company, candidates, resolved_at)
SELECT input_key, outcome, company, candidates,
       strftime('%Y-%m-%dT%H:%M:%SZ', resolved_at, 'unixepoch')
FROM old_resolutions;

INSERT INTO run_rows (run_id, line, input_id, status, company, found_by, error, candidates,
                      country_defaulted, extra_unreliable, named)
SELECT run_id, line, input_id, status, company, found_by, error, candidates,
       country_defaulted, extra_unreliable, named
FROM old_run_rows;

INSERT INTO run_companies (run_id, company, rating_id, previous_rating_id, change)
SELECT run_id, company, rating_id, previous_rating_id, change FROM old_run_companies;

INSERT INTO run_reused_ratings (run_id, company, seen_at)
SELECT run_id, company, seen_at FROM old_run_reused_ratings;

INSERT INTO run_alerts (run_id, company, kind, severity, first_line, refs, listed, acked,
                        previous_color)
SELECT run_id, company, kind, severity, first_line, refs, listed, acked, previous_color
FROM old_run_alerts;

INSERT INTO run_colors (run_id, color, rows) SELECT run_id, color, rows FROM old_run_colors;

INSERT INTO acks (company, ref, color, acked_at, until, note)
SELECT company, ref, color, acked_at, until, note FROM old_acks;

INSERT INTO decisions (ref, search_key, decision, company_id, decided_at, source)
SELECT ref, search_key, decision, company_id, decided_at, source FROM old_decisions;

INSERT INTO account_requests (id, company, request_date, requested_at, color,
                              last_change_date, last_refresh_date, synced_at, status,
                              rating_id, previous_rating_id, change)
SELECT id, company, request_date, requested_at, color, last_change_date, last_refresh_date,
       synced_at, status, rating_id, previous_rating_id, change
FROM old_account_requests;

DROP TABLE old_runs;
DROP TABLE old_lookup_countries;
DROP TABLE old_lookup_services;
DROP TABLE old_companies;
DROP TABLE old_ratings;
DROP TABLE old_rating_confirmations;
DROP TABLE old_inputs;
DROP TABLE old_resolutions;
DROP TABLE old_run_rows;
DROP TABLE old_run_companies;
DROP TABLE old_run_reused_ratings;
DROP TABLE old_run_alerts;
DROP TABLE old_run_colors;
DROP TABLE old_acks;
DROP TABLE old_decisions;
DROP TABLE old_account_requests;
DROP TABLE resolution_keys;
DROP TABLE input_keys;
DROP TABLE company_keys;
