//! When a run says again, in full, what is still wrong in the export: the rows found only
//! by a later identifier than their first (a SIREN with a typo, found by its SIRET). They
//! are screened, so they wear as standing alerts do: said in full the night they are news
//! and again when `[alerts] repeat` says a standing alert is listed again; in between a
//! line reminds of them, naming them only.

use rusqlite::params;

use super::alert_log::repeat_window;
use super::database::Store;
use super::sql::StoreError;
use crate::alerts::Rules;

impl Store {
    /// Whether run `run_id` says its rows found by a later search (their `lines`) in full:
    /// one of them was not found so by the portfolio's last delivered run (another input,
    /// or another search found it), or no delivered run of the portfolio within the
    /// period of `rules.repeat` gave the full note: one beginning with `note`'s first text
    /// and not with its second (the reminder's).
    pub fn names_fell_back(
        &self,
        run_id: i64,
        lines: &[u64],
        rules: &Rules,
        (full, reminder): (&str, &str),
    ) -> Result<bool, StoreError> {
        let ctx = format!("deciding whether run {run_id} names its rows again");
        let at = |e| StoreError::at(ctx.clone())(e);
        let (_, portfolio, window_start) = repeat_window(&self.conn, run_id, rules).map_err(at)?;
        let mut as_before = self
            .conn
            .prepare_cached(
                "SELECT EXISTS (
                     SELECT 1 FROM run_rows n
                     JOIN run_rows o ON o.line = n.line AND o.input_id = n.input_id
                                    AND o.found_by IS n.found_by
                     WHERE n.run_id = ?1 AND n.line = ?3
                       AND o.run_id = (SELECT max(id) FROM runs
                                       WHERE portfolio = ?2 AND id < ?1
                                         AND delivered_at IS NOT NULL))",
            )
            .map_err(at)?;
        for line in lines {
            let known: bool = as_before
                .query_row(params![run_id, portfolio, *line as i64], |r| r.get(0))
                .map_err(at)?;
            if !known {
                return Ok(true);
            }
        }
        let Some(window_start) = window_start else {
            return Ok(false);
        };
        let said_lately: bool = self
            .conn
            .query_row(
                "SELECT EXISTS (
                     SELECT 1 FROM runs u, json_each(u.notes) n
                     WHERE u.portfolio = ?2 AND u.id < ?1 AND u.delivered_at IS NOT NULL
                       AND u.started_at > ?3 AND substr(n.value, 1, length(?4)) = ?4
                       AND substr(n.value, 1, length(?5)) <> ?5)",
                params![run_id, portfolio, window_start, full, reminder],
                |r| r.get(0),
            )
            .map_err(at)?;
        Ok(!said_lately)
    }
}
