-- A row's status stored as a small number, its word computed.
--
-- Every run adds a row to `run_rows` per input row, naming what became of it in a word:
-- `rated`, `unresolved`, … The word took 6 to 11 bytes a row, every night. It is now
-- stored as a number (`status_code`), and the most frequent ones, `rated` and
-- `unresolved`, are 0 and 1, which SQLite stores in no byte at all. `status` stays, with
-- the same words, computed from the number (a VIRTUAL column: nothing stored), so a query
-- written against it reads as before.
--
-- The numbers, in the order of the list: 0 rated, 1 unresolved, 2 ambiguous, 3 invalid,
-- 4 failed, 5 ignored.
--
-- `run_companies.change` keeps its words: a table with a computed column is never read
-- whole through a partial index in SQLite, and `color_periods` reads where colors started
-- through one (`run_companies_color_starts`) rather than every company of every run.
--
-- The table is rebuilt in place with every row; the views that read it are kept (see 0014
-- for `legacy_alter_table`).

CREATE TABLE run_rows_new (
    run_id      INTEGER NOT NULL REFERENCES runs (id),
    line        INTEGER NOT NULL,                  -- line where the record starts; header is 1
    input_id    INTEGER NOT NULL REFERENCES inputs (id),
    status      TEXT    GENERATED ALWAYS AS (CASE status_code
                                                 WHEN 0 THEN 'rated'
                                                 WHEN 1 THEN 'unresolved'
                                                 WHEN 2 THEN 'ambiguous'
                                                 WHEN 3 THEN 'invalid'
                                                 WHEN 4 THEN 'failed'
                                                 WHEN 5 THEN 'ignored' END) VIRTUAL,
    company     INTEGER REFERENCES companies (id),
    error       TEXT,
    candidates  TEXT,                              -- JSON array for 'ambiguous'
    status_code INTEGER NOT NULL CHECK (status_code >= 0 AND status_code <= 5),
    PRIMARY KEY (run_id, line)
) WITHOUT ROWID;
INSERT INTO run_rows_new (run_id, line, input_id, company, error, candidates, status_code)
SELECT run_id, line, input_id, company, error, candidates,
       CASE status
           WHEN 'rated' THEN 0
           WHEN 'unresolved' THEN 1
           WHEN 'ambiguous' THEN 2
           WHEN 'invalid' THEN 3
           WHEN 'failed' THEN 4
           WHEN 'ignored' THEN 5 END
FROM run_rows ORDER BY run_id, line;
DROP TABLE run_rows;

PRAGMA legacy_alter_table = ON;
ALTER TABLE run_rows_new RENAME TO run_rows;
PRAGMA legacy_alter_table = OFF;
