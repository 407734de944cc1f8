-- 0010: cached searches and input rows are found through key tables written in batches.
--
-- `resolutions.input_key` (the table's primary key, an index of its own) and
-- `inputs.digest` (UNIQUE, an index too) took their keys in random order: each new row put
-- its key on a random page of the index, and as a run commits every second, a first run
-- of a large portfolio wrote nearly every page of both indexes again each second, and the
-- checkpoint once more.
-- Measured with the throughput benchmark (100,000 rows, 256 requests at a time): a first run
-- wrote 5,465 bytes per row for 684 bytes of database growth (8.0×) before, 3,149 bytes
-- for 654 (4.8×) after, 42% fewer; a nightly re-run is unchanged (488 and 487 bytes per
-- row: it adds almost no rows). At a million rows, where nearly every page of those
-- indexes was written each second, the share saved grows.
--
-- Both tables are rebuilt without an index on the key, keeping every row and every id
-- (`resolutions` gains `id`, its former rowid): new rows are appended. Their keys go to
-- `resolution_keys` and `input_keys`, (hash, id) with the hash the first 8 bytes of a
-- SHA-256 (of the search key; of the digest, which is one already), in batches of tens of
-- thousands sorted by hash: a page of a key table is written once per batch. A lookup
-- reads the ids under the hash and compares the full key in the row, so a collision never
-- mixes two searches. The writer keeps the keys of the rows it added since its last batch
-- in memory; a run killed meanwhile leaves rows without keys, which are the rows above the
-- highest id a key table holds, and they get their keys when the database next opens
-- (ratewatch also fills the key tables that way right after this migration).
--
-- The views that read `inputs` by id are left as they are: with the legacy rename, the
-- rebuilt table takes the name they read without their text being checked or rewritten.

PRAGMA legacy_alter_table = ON;

CREATE TABLE resolutions_new (
    id          INTEGER PRIMARY KEY,
    input_key   TEXT NOT NULL,                     -- found through resolution_keys
    outcome     TEXT NOT NULL CHECK (outcome IN ('resolved', 'ambiguous', 'unresolved')),
    company     INTEGER REFERENCES companies (id),
    candidates  TEXT,                              -- JSON array for 'ambiguous'
    resolved_at TEXT NOT NULL
);

INSERT INTO resolutions_new (id, input_key, outcome, company, candidates, resolved_at)
SELECT rowid, input_key, outcome, company, candidates, resolved_at
FROM resolutions ORDER BY rowid;

DROP TABLE resolutions;
ALTER TABLE resolutions_new RENAME TO resolutions;

CREATE TABLE resolution_keys (
    hash       INTEGER NOT NULL,                   -- first 8 bytes of SHA-256(input_key)
    resolution INTEGER NOT NULL,                   -- resolutions.id
    PRIMARY KEY (hash, resolution)
) WITHOUT ROWID;

CREATE TABLE inputs_new (
    id               INTEGER PRIMARY KEY,
    digest           BLOB NOT NULL,                -- hash of every field; found through input_keys
    ref              TEXT,
    country          TEXT,
    service          TEXT,
    external_id      TEXT,
    name             TEXT,
    street_number    TEXT,
    street_name      TEXT,
    city             TEXT,
    postcode         TEXT,
    phone            TEXT,
    given_company_id TEXT,
    extra            TEXT
);

INSERT INTO inputs_new (id, digest, ref, country, service, external_id, name, street_number,
                        street_name, city, postcode, phone, given_company_id, extra)
SELECT id, digest, ref, country, service, external_id, name, street_number,
       street_name, city, postcode, phone, given_company_id, extra
FROM inputs ORDER BY id;

DROP TABLE inputs;
ALTER TABLE inputs_new RENAME TO inputs;

CREATE INDEX inputs_by_ref ON inputs (ref);

CREATE TABLE input_keys (
    hash  INTEGER NOT NULL,                        -- first 8 bytes of inputs.digest
    input INTEGER NOT NULL,                        -- inputs.id
    PRIMARY KEY (hash, input)
) WITHOUT ROWID;

PRAGMA legacy_alter_table = OFF;
