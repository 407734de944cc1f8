-- Two facts about how a run read a row, which its reports show and its alerts respect.
--
-- `run_rows.country_defaulted`: 1 when the row's country was empty and the run screened
-- it with its `default_country` (many ERPs leave the country out for their own country's
-- customers); the row's input then holds that country.
--
-- `run_rows.extra_unreliable`: 1 when the record had more fields than the header (an
-- unquoted `120 000,00` in a comma-separated file spills `,00` into a field of its own):
-- the row's carried columns (`inputs.extra`) may hold the wrong values, so the reports
-- mark them and `[alerts] min_exposure` never judges them (such a row is shown).
--
-- Rows of runs before this upgrade were read as they were: 0.

ALTER TABLE run_rows ADD COLUMN country_defaulted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run_rows ADD COLUMN extra_unreliable INTEGER NOT NULL DEFAULT 0;
