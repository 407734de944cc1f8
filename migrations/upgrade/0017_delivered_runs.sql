-- A run's news counts as delivered only once its summary has been printed and its
-- reports are in place. A run killed while writing them (or on a full disk) is already
-- recorded complete, with its alerts decided: without this, the next night compared its
-- colors with what that run saw, and the changes it found were never announced.
--
-- `runs.delivered_at`: when the run's summary and reports were out (ISO 8601 UTC); NULL
-- while it runs, and for good when it stopped before that. The next run of the portfolio
-- then announces every change since the last run that was delivered, and the repeat rule
-- of standing alerts counts only delivered runs.
--
-- `run_alerts.previous_color`: the color the alert compares with (`yellow → red`); NULL
-- for a company seen for the first time. Usually the history's previous color, but when
-- an earlier run was never delivered, the color last delivered to the portfolio: the
-- change that run saw first is announced against it.
--
-- Runs that ended before this upgrade are taken as delivered when they ended: whether
-- their reports were written is not known, and announcing a year of news again would be
-- worse than the one night that may have been lost.

ALTER TABLE runs ADD COLUMN delivered_at TEXT;

UPDATE runs SET delivered_at = coalesce(finished_at, started_at) WHERE status <> 'running';

ALTER TABLE run_alerts ADD COLUMN previous_color TEXT;

UPDATE run_alerts
SET previous_color = (SELECT p.color FROM run_companies rc
                      JOIN ratings p ON p.id = rc.previous_rating_id
                      WHERE rc.run_id = run_alerts.run_id AND rc.company = run_alerts.company);
