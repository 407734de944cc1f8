-- 0027: acknowledgements and review decisions are kept forever, with who made them and
-- how they ended. `acks` held one row per company, replaced by the next acknowledgement and
-- deleted by the run that saw the company change; `decisions` one row per row's search,
-- replaced by the next decision and deleted by `review revoke`. Now every acknowledgement
-- and every decision is a row of its own, ended by what came later (its `ended_at`,
-- `ended_how`, `ended_by`), never erased; the current one (not ended) is what applies.
-- Who made each is recorded from now on (`acked_by`, `decided_by`); the rows carried over
-- keep NULL there: not recorded. The views `acknowledgements`, `review_decisions` and
-- `audit_trail` read the history; `portfolio_now` reads the current acknowledgements only.
--
-- Both tables are rebuilt as migrations/schema.sql has them and their rows copied, in the
-- order they were made, so this step does right by a database of version 26 and by one the
-- conversion (0022) just made, whose tables already have this form.
DROP VIEW IF EXISTS portfolio_now;
DROP VIEW IF EXISTS audit_trail;
DROP VIEW IF EXISTS acknowledgements;
DROP VIEW IF EXISTS review_decisions;
DROP INDEX IF EXISTS acks_current;
DROP INDEX IF EXISTS acks_by_company;
DROP INDEX IF EXISTS decisions_current;
DROP INDEX IF EXISTS decisions_by_ref;
DROP INDEX IF EXISTS decisions_by_company;
ALTER TABLE acks RENAME TO old_acks;
ALTER TABLE decisions RENAME TO old_decisions;

CREATE TABLE acks (
    id           INTEGER PRIMARY KEY,
    company      INTEGER NOT NULL REFERENCES companies (id),
    ref          TEXT,                             -- the ref it was given by, if any
    color        TEXT    NOT NULL,                 -- the company's color when acknowledged
    acked_at     TEXT    NOT NULL,
    acked_by     TEXT,                             -- who: an operating-system user, a --by
                                                   -- name, a signed-in user of the page, or
                                                   -- 'web page'; NULL: made before version 27
    until        TEXT,
    note         TEXT,
    ended_at     TEXT,                             -- NULL: current
    ended_how    TEXT    CHECK (ended_how IN ('color changed', 'expired', 'replaced',
                                              'withdrawn')),
    ended_by     TEXT,                             -- who replaced or withdrew it
    ended_note   TEXT,                             -- why it was withdrawn
    ended_run_id INTEGER REFERENCES runs (id),     -- the run that saw the color change
    CHECK ((ended_at IS NULL) = (ended_how IS NULL))
);
CREATE UNIQUE INDEX acks_current ON acks (company) WHERE ended_at IS NULL;
CREATE INDEX acks_by_company ON acks (company, acked_at);

CREATE TABLE decisions (
    id         INTEGER PRIMARY KEY,
    ref        TEXT NOT NULL,
    search_key TEXT NOT NULL,                      -- the row's search, as in resolutions
    decision   TEXT NOT NULL CHECK (decision IN ('accept', 'ignore', 'reject')),
    company_id TEXT,                               -- the service's UUID, for `accept`
    decided_at TEXT NOT NULL,
    source     TEXT NOT NULL,                      -- a file path, `command line` or `web page`
    decided_by TEXT,                               -- who, as in acks; NULL: made before
                                                   -- version 27
    note       TEXT,
    ended_at   TEXT,                               -- NULL: current
    ended_how  TEXT CHECK (ended_how IN ('replaced', 'revoked')),
    ended_by   TEXT,                               -- who replaced or revoked it
    ended_note TEXT,                               -- why it was revoked
    CHECK ((decision = 'accept') = (company_id IS NOT NULL)),
    CHECK ((ended_at IS NULL) = (ended_how IS NULL))
);
CREATE UNIQUE INDEX decisions_current ON decisions (ref, search_key) WHERE ended_at IS NULL;
CREATE INDEX decisions_by_ref ON decisions (ref);
CREATE INDEX decisions_by_company ON decisions (company_id) WHERE company_id IS NOT NULL;

INSERT INTO acks (company, ref, color, acked_at, until, note)
SELECT company, ref, color, acked_at, until, note
FROM old_acks
ORDER BY acked_at, company;

INSERT INTO decisions (ref, search_key, decision, company_id, decided_at, source)
SELECT ref, search_key, decision, company_id, decided_at, source
FROM old_decisions
ORDER BY decided_at, ref, search_key;

DROP TABLE old_acks;
DROP TABLE old_decisions;

CREATE VIEW portfolio_now AS
SELECT l.portfolio,
       l.ref,
       l.extra,
       l.status,
       l.company,
       l.company_id,
       l.company_name                     AS name,
       c.country,
       (SELECT group_concat(e.service || ' ' || e.external_id, ', ')
        FROM company_external_ids e WHERE e.company = l.company) AS registry_ids,
       l.color,
       CASE WHEN r.last_change_date > strftime('%Y-%m-%dT%H:%M:%SZ', r.observed_at, '+1 day')
            THEN r.observed_at
            ELSE coalesce(r.last_change_date, r.observed_at) END AS color_since,
       CAST(julianday(l.started_at) - julianday(
                CASE WHEN r.last_change_date > strftime('%Y-%m-%dT%H:%M:%SZ', r.observed_at, '+1 day')
                     THEN r.observed_at
                     ELSE coalesce(r.last_change_date, r.observed_at) END)
            AS INTEGER)                   AS days_in_color,
       l.last_refresh_date,
       l.stale,
       l.alert_kind,
       EXISTS (SELECT 1 FROM acks a
               WHERE a.company = l.company AND a.color = l.color AND a.ended_at IS NULL
                 AND (a.until IS NULL OR a.until > strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))
                                          AS acknowledged,
       l.error,
       l.run_id,
       l.line
FROM (SELECT *, row_number() OVER (PARTITION BY run_id, ref ORDER BY line) AS nth
      FROM latest_results WHERE ref IS NOT NULL) l
LEFT JOIN companies c      ON c.id = l.company
LEFT JOIN run_companies rc ON rc.run_id = l.run_id AND rc.company = l.company
LEFT JOIN ratings r        ON r.id = rc.rating_id
WHERE l.nth = 1;

CREATE VIEW acknowledgements AS
SELECT a.id,
       a.company,
       c.company_id,
       c.name,
       a.ref,
       a.color,
       a.acked_at,
       a.acked_by,
       a.until,
       a.note,
       coalesce(a.ended_at, CASE WHEN a.until <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
                                 THEN a.until END)          AS ended_at,
       coalesce(a.ended_how, CASE WHEN a.until <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
                                  THEN 'expired' END)       AS ended_how,
       a.ended_by,
       a.ended_note,
       a.ended_run_id,
       a.ended_at IS NULL
           AND (a.until IS NULL OR a.until > strftime('%Y-%m-%dT%H:%M:%SZ', 'now')) AS in_force
FROM acks a
JOIN companies c ON c.id = a.company;

-- Every decision of the review, with who made it and how it ended. `in_force`: 1 for the
-- decisions later runs apply; `company` and `name` for an accepted company.
CREATE VIEW review_decisions AS
SELECT d.id,
       d.ref,
       d.search_key,
       d.decision,
       c.id                               AS company,
       d.company_id,
       c.name,
       d.decided_at,
       d.decided_by,
       d.source,
       d.note,
       d.ended_at,
       d.ended_how,
       d.ended_by,
       d.ended_note,
       d.ended_at IS NULL                 AS in_force
FROM decisions d
LEFT JOIN companies c ON c.company_id = d.company_id;

-- What an audit reads (`ratewatch audit`): one row per event, each acknowledgement and each
-- decision when it was made, and again when it ended. `who` made or ended it (NULL: not
-- recorded, or the run that saw the color change: `run_id`); `note` is the note made with
-- it, or why it was withdrawn or revoked; `how` how it ended.
CREATE VIEW audit_trail AS
SELECT acked_at AS at, 'acknowledgement' AS record, id, 'made' AS event, acked_by AS who,
       company, company_id, name, ref, color, until, NULL AS decision, NULL AS source, note,
       NULL AS how, NULL AS run_id
FROM acknowledgements
UNION ALL
SELECT ended_at, 'acknowledgement', id, 'ended', ended_by, company, company_id, name, ref,
       color, until, NULL, NULL, ended_note, ended_how, ended_run_id
FROM acknowledgements
WHERE ended_at IS NOT NULL
UNION ALL
SELECT decided_at, 'decision', id, 'made', decided_by, company, company_id, name, ref, NULL,
       NULL, decision, source, note, NULL, NULL
FROM review_decisions
UNION ALL
SELECT ended_at, 'decision', id, 'ended', ended_by, company, company_id, name, ref, NULL,
       NULL, decision, source, ended_note, ended_how, NULL
FROM review_decisions
WHERE ended_at IS NOT NULL;
