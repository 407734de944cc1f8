-- 0004: a person's decision on a row that needs one sticks. A name that matches several
-- companies, or none, comes back every night until someone says which company it is, or
-- that the row is to be left alone; `ratewatch review` records that answer here, and every
-- later run applies it before any call.
--
-- A decision is keyed by what identifies the row: the portfolio's own reference (`ref`)
-- and the search the row makes (`search_key`, the normalized search as in
-- `resolutions.input_key`). When the row's name or identifier changes, so does its search,
-- and the decision no longer applies: it was made for another question. Decisions are not
-- cached answers of the service: `--refresh-resolutions` and `--resolution-max-age` leave
-- them alone.
CREATE TABLE decisions (
    ref        TEXT NOT NULL,
    search_key TEXT NOT NULL,
    decision   TEXT NOT NULL CHECK (decision IN ('accept', 'ignore')),
    company_id TEXT,                               -- the service's UUID, for `accept`
    decided_at TEXT NOT NULL,
    source     TEXT NOT NULL,                      -- a file path, or `command line`
    PRIMARY KEY (ref, search_key),
    CHECK ((decision = 'accept') = (company_id IS NOT NULL))
) WITHOUT ROWID;
