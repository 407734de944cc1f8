-- A company's registry ids in its own row, and a search's outcome read from what it found.
--
-- `company_external_ids` held each registry id of a company in a row of its own, in a
-- B-tree of its own: 60 bytes a company (2.2 ids on average, each repeating the company's
-- key, with the slack a B-tree appended to in order keeps), and one more tree whose last
-- pages each commit wrote again. A company's ids now sit in its row, `external_ids`, a JSON
-- array of `"SERVICE ID"` strings (`["SIREN 552100554","SIRET 55210055400013"]`; a service
-- code holding a space becomes a `["SERVICE", "ID"]` pair), NULL for none: 46 bytes a
-- company. `company_external_ids` is now a view with the table's
-- columns and rows, so `WHERE external_id = …` reads as before.
--
-- `resolutions.outcome` said again what `company` and `candidates` say: a resolved search
-- has its company, an ambiguous one its candidates (`[]` at the least), an unresolved one
-- neither. It is now computed from them (a VIRTUAL column: nothing stored), 9 bytes a
-- search less.
--
-- Measured with the throughput benchmark, a first run of 100,000 rows grew the database
-- by 416 bytes a row before; the figures after open docs/design.md.
--
-- Both tables are rebuilt in place with every row and id. The views that read them are
-- kept as they are: the rebuilt table is renamed with `legacy_alter_table`, which leaves
-- them naming it (the setting is switched off again here, and by ratewatch once the
-- migrations are done, even when one fails).

-- Every outcome must follow from its row, and every registry id belong to a company: a
-- row that would read otherwise or be left behind (never written by ratewatch) stops the
-- upgrade here, the CHECK below naming it, with the database as it was. An ambiguous
-- search stored without candidates gets `[]`.
CREATE TEMP TABLE registry_ids_check (
    outcome_ok INTEGER
        CONSTRAINT every_outcome_follows_from_its_company_and_candidates CHECK (outcome_ok),
    ids_ok     INTEGER
        CONSTRAINT every_registry_id_belongs_to_a_company CHECK (ids_ok)
);
INSERT INTO registry_ids_check (outcome_ok, ids_ok)
SELECT NOT EXISTS (SELECT 1 FROM resolutions
                   WHERE (outcome = 'resolved' AND (company IS NULL OR candidates IS NOT NULL))
                      OR (outcome = 'ambiguous' AND company IS NOT NULL)
                      OR (outcome = 'unresolved'
                          AND (company IS NOT NULL OR candidates IS NOT NULL))),
       NOT EXISTS (SELECT 1 FROM company_external_ids e
                   WHERE NOT EXISTS (SELECT 1 FROM companies c WHERE c.id = e.company));
DROP TABLE registry_ids_check;

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
    external_ids  TEXT,                            -- JSON array of "SERVICE ID"; see above
    first_seen_at INTEGER NOT NULL,                -- seconds since 1970, UTC
    updated_at    INTEGER NOT NULL
);
INSERT INTO companies_new (id, company_id, name, country, street_number, street_name, postcode,
                           city, phone, legal_form, external_ids, first_seen_at, updated_at)
SELECT c.id, c.company_id, c.name, c.country, c.street_number, c.street_name, c.postcode,
       c.city, c.phone, c.legal_form,
       (SELECT json_group_array(CASE WHEN instr(e.service, ' ') > 0
                                     THEN json_array(e.service, e.external_id)
                                     ELSE e.service || ' ' || e.external_id END)
        FROM company_external_ids e WHERE e.company = c.id
        HAVING count(*) > 0),
       c.first_seen_at, c.updated_at
FROM companies c ORDER BY c.id;

CREATE TABLE resolutions_new (
    id          INTEGER PRIMARY KEY,
    input_key   TEXT    NOT NULL,                  -- found through resolution_keys
    outcome     TEXT    GENERATED ALWAYS AS (CASE WHEN company IS NOT NULL THEN 'resolved'
                                                  WHEN candidates IS NOT NULL THEN 'ambiguous'
                                                  ELSE 'unresolved' END) VIRTUAL,
    company     INTEGER REFERENCES companies (id), -- for a resolved search
    candidates  TEXT,                              -- JSON array, for an ambiguous one
    resolved_at INTEGER NOT NULL,                  -- seconds since 1970, UTC
    CHECK (company IS NULL OR candidates IS NULL)
);
INSERT INTO resolutions_new (id, input_key, company, candidates, resolved_at)
SELECT id, input_key, company,
       CASE WHEN outcome = 'ambiguous' THEN coalesce(candidates, '[]') END, resolved_at
FROM resolutions ORDER BY id;
DROP TABLE resolutions;
DROP TABLE company_external_ids;
DROP TABLE companies;

PRAGMA legacy_alter_table = ON;
ALTER TABLE companies_new RENAME TO companies;
ALTER TABLE resolutions_new RENAME TO resolutions;
PRAGMA legacy_alter_table = OFF;

-- The table's columns and rows, as a view. A service code without a space is the text
-- before the first space; the id is the rest, spaces included. Both are TEXT, as the
-- table's columns were, so `WHERE external_id = 552100554` still finds '552100554'.
CREATE VIEW company_external_ids AS
SELECT c.id AS company,
       CAST(CASE WHEN i.type = 'array' THEN json_extract(i.value, '$[0]')
                 ELSE substr(i.value, 1, instr(i.value, ' ') - 1) END AS TEXT) AS service,
       CAST(CASE WHEN i.type = 'array' THEN json_extract(i.value, '$[1]')
                 ELSE substr(i.value, instr(i.value, ' ') + 1) END AS TEXT)    AS external_id
FROM companies c, json_each(c.external_ids) i;
