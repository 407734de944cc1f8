-- Ratings a run used without asking. With `[refresh]` in the config file (or
-- `rating_max_age`), a company whose latest rating is younger than its color's refresh age
-- is not asked again: the run records that rating as its own (`run_companies`, change
-- `unchanged`) and confirms nothing, since no one looked. This table says which companies
-- of a run were reused, and since when the rating had not been seen, so that the run's
-- reports mark them (`reused`, `rating_age_hours`) and say the same when written again.
--
-- Rows of runs before this upgrade: none (a reuse under `rating_max_age` was not told
-- apart).

CREATE TABLE run_reused_ratings (
    run_id  INTEGER NOT NULL REFERENCES runs (id),
    company INTEGER NOT NULL REFERENCES companies (id),
    seen_at TEXT    NOT NULL,                      -- start of the run that last saw the rating
    PRIMARY KEY (run_id, company)
) WITHOUT ROWID;
