//! What the database forgets: the rows of runs older than `keep_run_details_days`
//! (`run_rows`, `run_named_lines`, `run_reused_ratings`, and `run_companies` but the
//! companies found gone, kept as `run_company_ratings`), deleted a few thousand at a
//! time, so that a reader or a decision beside is never kept waiting long. A run keeps its
//! summary (`runs`, `run_colors`, `run_alerts`, `run_deliveries`), and
//! `runs.details_pruned_at` says since when its rows are gone; the color history
//! (`ratings`, `rating_refreshes`, `rating_confirmations`, `color_period_bounds`),
//! acknowledgements, decisions and the account's requests are never touched. A company
//! found gone keeps its record: it is what says it was announced gone once.
//!
//! Some runs keep their rows whatever their age, because a run or a reader still reads
//! them: each portfolio's latest run (an interrupted one is resumed), its latest finished
//! run (`latest_results`, the pages, `changes`), its latest delivered run (what the next
//! night's alerts and reminders compare with), and a run whose message a channel has not
//! taken yet while it is still sent again.
//!
//! A run's rows are stretches over several runs (`run_row_spans`): the view `run_rows`
//! shows none for a run whose rows are gone, and a stretch is deleted once every run it
//! spans is such a run.
//!
//! The pages freed go to SQLite's free list and the next nights' rows are written into
//! them, so the file stops growing once the window is full. It does not shrink: that takes
//! `VACUUM` (the whole file rewritten, the database locked meanwhile), or `auto_vacuum`,
//! which an existing file cannot switch on without one and which would give back to the
//! disk only what the next night takes again.

use std::time::{Duration, Instant};

use rusqlite::{OptionalExtension, params};

use super::database::Store;
use super::deliveries::RESENT_WITHIN_DAYS;
use super::sql::{StoreError, WAIT, now_text};
use super::turn::Watch;

/// Rows deleted in one transaction: a few milliseconds of work, so a decision or a
/// reader beside waits no longer than that.
const BATCH: i64 = 2_000;

/// How long one night deletes: the run's lock is held meanwhile, so a backlog (the first
/// night after an upgrade, a window shortened) is spread over nights rather than keeping
/// the next screening waiting; what is left is deleted by the next run.
const BUDGET: Duration = Duration::from_secs(60);

/// The runs whose rows may go: started more than `?2` days before run `?1`, none that
/// another run or a reader still needs (see the module), and rows still there (a pruning
/// cut short is taken up again).
const PRUNABLE: &str = "SELECT u.id FROM runs u
     WHERE u.started_at < (SELECT strftime('%Y-%m-%dT%H:%M:%SZ', started_at,
                                          '-' || ?2 || ' days')
                           FROM runs WHERE id = ?1)
       AND u.id NOT IN (SELECT max(id) FROM runs GROUP BY portfolio)
       AND u.id NOT IN (SELECT id FROM latest_finished_runs)
       AND u.id NOT IN (SELECT max(id) FROM runs WHERE delivered_at IS NOT NULL
                        GROUP BY portfolio)
       AND u.id NOT IN (SELECT d.run_id FROM run_deliveries d JOIN runs p ON p.id = d.run_id
                        WHERE d.delivered_at IS NULL
                          AND p.started_at > (SELECT strftime('%Y-%m-%dT%H:%M:%SZ', started_at,
                                                              '-' || ?3 || ' days')
                                              FROM runs WHERE id = ?1))
       AND (u.details_pruned_at IS NULL
            OR EXISTS (SELECT 1 FROM run_named_lines WHERE run_id = u.id)
            OR EXISTS (SELECT 1 FROM run_company_ratings
                       WHERE run_id = u.id AND change IS NOT 'gone')
            OR EXISTS (SELECT 1 FROM run_reused_ratings WHERE run_id = u.id))
     ORDER BY u.id";

/// A run's rows, table by table: (table, the key after `run_id`, which rows go).
const DETAILS: [(&str, &str, &str); 3] = [
    ("run_named_lines", "line", ""),
    ("run_company_ratings", "company", "AND change IS NOT 'gone'"),
    ("run_reused_ratings", "company", ""),
];

/// What a pruning deleted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    /// Runs whose rows were deleted.
    pub runs: u64,
    /// Rows deleted, in all the runs' tables.
    pub rows: u64,
    /// Stopped at the night's budget: the next run deletes the rest.
    pub left: bool,
}

impl Store {
    /// Deletes the rows of the runs that started more than `keep_days` days before run
    /// `run_id` (none when `keep_days` is 0), but those still needed (see the module).
    /// Each run is marked first (`details_pruned_at`), so that a reader never takes a run
    /// half deleted for a whole one; each batch is a transaction of its own, and a
    /// decision that asks for its turn gets it between two. It stops after [`BUDGET`].
    pub fn prune_run_details(&self, run_id: i64, keep_days: u32) -> Result<Pruned, StoreError> {
        let mut pruned = Pruned::default();
        if keep_days == 0 {
            return Ok(pruned);
        }
        let runs: Vec<i64> = self.all(
            "finding the runs whose rows are no longer kept",
            PRUNABLE,
            params![run_id, keep_days, RESENT_WITHIN_DAYS],
            |r| r.get(0),
        )?;
        let started = Instant::now();
        let watch = (!runs.is_empty())
            .then(|| Watch::start(&self.path))
            .flatten();
        for id in runs {
            let at = |e| StoreError::at(format!("deleting the rows of run {id}"))(e);
            self.conn
                .execute(
                    "UPDATE runs SET details_pruned_at = ?2
                     WHERE id = ?1 AND details_pruned_at IS NULL",
                    params![id, now_text()],
                )
                .map_err(at)?;
            for (table, key, which) in DETAILS {
                let delete = format!(
                    "DELETE FROM {table} WHERE run_id = ?1 AND {key} IN
                         (SELECT {key} FROM {table} WHERE run_id = ?1 {which}
                          ORDER BY {key} LIMIT ?2)"
                );
                loop {
                    if started.elapsed() > BUDGET {
                        pruned.left = true;
                        return Ok(pruned);
                    }
                    // A decision beside waits for its turn: it gets it before the next batch.
                    if let Some(watch) = &watch {
                        watch.wait_done(WAIT);
                    }
                    let n = self.conn.execute(&delete, params![id, BATCH]).map_err(at)?;
                    pruned.rows += n as u64;
                    if (n as i64) < BATCH {
                        break;
                    }
                }
            }
            pruned.runs += 1;
        }
        self.prune_spans(&mut pruned, started, watch.as_ref())?;
        Ok(pruned)
    }

    /// Deletes the stretches of rows that only runs whose rows are gone hold, a range of
    /// lines at a time. Those that end at or after the portfolio's latest such run (its
    /// current rows among them) are passed over without a look at their runs.
    fn prune_spans(
        &self,
        pruned: &mut Pruned,
        started: Instant,
        watch: Option<&Watch>,
    ) -> Result<(), StoreError> {
        let at = |e| StoreError::at("deleting the rows of runs no longer kept")(e);
        // By portfolio: its latest run whose rows are gone (no stretch ending at or after
        // it is looked at), and its last line.
        let portfolios: Vec<(String, i64, i64)> = self.all(
            "finding the rows of runs no longer kept",
            "SELECT u.portfolio, max(u.id) + 1,
                    (SELECT max(line) FROM run_row_spans WHERE portfolio = u.portfolio)
             FROM runs u WHERE u.details_pruned_at IS NOT NULL
             GROUP BY u.portfolio",
            [],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get::<_, Option<i64>>(2)?.unwrap_or(0),
                ))
            },
        )?;
        for (portfolio, before, last_line) in portfolios {
            for from in (0..=last_line).step_by(BATCH as usize) {
                if started.elapsed() > BUDGET {
                    pruned.left = true;
                    return Ok(());
                }
                if let Some(watch) = watch {
                    watch.wait_done(WAIT);
                }
                let n = self
                    .conn
                    .prepare_cached(
                        "DELETE FROM run_row_spans AS s
                         WHERE portfolio = ?1 AND line >= ?2 AND line < ?3
                           AND last_run_id < ?4
                           AND NOT EXISTS (SELECT 1 FROM runs k
                                           WHERE k.portfolio = ?1
                                             AND k.id BETWEEN s.first_run_id AND s.last_run_id
                                             AND k.details_pruned_at IS NULL)",
                    )
                    .and_then(|mut s| s.execute(params![portfolio, from, from + BATCH, before]))
                    .map_err(at)?;
                pruned.rows += n as u64;
            }
        }
        Ok(())
    }

    /// Refuses a run whose rows were deleted as too old (`StoreError::DetailsPruned`):
    /// what reads a run's rows again (its reports, a trial of the alert rules) says so,
    /// never answers from rows that are gone.
    pub fn require_details(&self, run_id: i64) -> Result<(), StoreError> {
        match self.details_pruned_at(run_id)? {
            Some(since) => Err(StoreError::DetailsPruned { run: run_id, since }),
            None => Ok(()),
        }
    }

    /// When run `run_id`'s rows were deleted as too old; `None` while they are kept.
    pub fn details_pruned_at(&self, run_id: i64) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT details_pruned_at FROM runs WHERE id = ?1",
                [run_id],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(StoreError::at(format!(
                "reading whether run {run_id}'s rows are kept"
            )))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::Pruned;
    use crate::store::tests::{all, new_store, run};

    #[test]
    fn a_stretch_goes_once_every_run_it_spans_has_lost_its_rows() {
        let (_dir, _path, mut store) = new_store();
        for _ in 0..5 {
            run(&mut store);
        }
        // Line 2 held three ways over the five runs, line 3 one way; the rows of runs 2
        // to 4 are gone, run 1's kept (as a run a reader still needs would be).
        store
            .conn
            .execute_batch(
                "INSERT INTO inputs (id, ref) VALUES (1, 'A');
                 INSERT INTO run_row_spans (portfolio, line, first_run_id, last_run_id,
                                            input_id, status)
                 VALUES ('p', 2, 1, 1, 1, 'failed'), ('p', 2, 2, 3, 1, 'rated'),
                        ('p', 2, 4, 5, 1, 'failed'), ('p', 3, 1, 5, 1, 'rated');
                 UPDATE runs SET details_pruned_at = '2026-01-01T00:00:00Z'
                 WHERE id BETWEEN 2 AND 4;",
            )
            .unwrap();
        let mut pruned = Pruned::default();
        store
            .prune_spans(&mut pruned, Instant::now(), None)
            .unwrap();
        assert_eq!(pruned.rows, 1);
        let left: Vec<String> = all(
            &store.conn,
            "SELECT line || ' ' || first_run_id || '-' || last_run_id FROM run_row_spans
             ORDER BY line, first_run_id",
            [],
            |r| r.get(0),
        );
        assert_eq!(left, ["2 1-1", "2 4-5", "3 1-5"]);
        let shown: Vec<String> = all(
            &store.conn,
            "SELECT run_id || ' ' || line FROM run_rows ORDER BY run_id, line",
            [],
            |r| r.get(0),
        );
        assert_eq!(shown, ["1 2", "1 3", "5 2", "5 3"]);
    }
}
