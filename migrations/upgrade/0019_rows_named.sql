-- Which rows a run's summary named as not screened. A row a run cannot screen (invalid,
-- unresolved, ambiguous) is a customer nobody monitors: the summary names it, even under
-- --quiet, the first night it is in that state, and again on the schedule of standing
-- alerts (`[alerts] repeat`), never every night.
--
-- `run_rows.named`: 1 when the summary of the row's run named it so; 0 otherwise. Rows of
-- runs before this upgrade: 0 (the first run after it names what still needs a person).

ALTER TABLE run_rows ADD COLUMN named INTEGER NOT NULL DEFAULT 0;
