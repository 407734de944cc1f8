-- Which search found each row's company. A row may give several identifiers (a SIREN
-- and a SIRET, a registry number and a name); a run tries them in order and goes on to
-- the next when one breaks its registry's rules or finds no company, so the reports say
-- which one found it.
--
-- `run_rows.found_by`: the search that found the company, as the reports show it: the
-- registry and the identifier (`SIRET 55210055400013`), `name`, `company_id` (given in
-- the portfolio) or `review` (accepted by `ratewatch review`); NULL when no company was
-- found, and for the rows of runs before this upgrade.

ALTER TABLE run_rows ADD COLUMN found_by TEXT;
