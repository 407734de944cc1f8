//! A run's life in the database: started, its rows settled as it goes, interrupted and
//! resumed, finished with its counts (and its alerts decided), delivered; and its header
//! as the commands read it back.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, params};

use super::alert_log::{self, Verdicts};
use super::database::Store;
use super::sql::{StoreError, extra_columns, now_text, read_time, read_time_or_null};
use super::timeline::COUNT_COLORS;
use crate::alerts::Rules;
use crate::model::{RowStatus, RunInfo, RunStatus, rows_with};

/// What a new run records about itself at the start.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub portfolio: String,
    pub input_path: String,
    pub sha256: String,
    pub demo_day: Option<i64>,
    /// Headers of the columns carried through to the reports.
    pub extra_columns: Vec<String>,
    /// The carried column each row's amount is read from (`[alerts] amount`, or
    /// `min_exposure`'s), as the file spells it; the writer stores each row's amount.
    pub amount_column: Option<String>,
}

impl Store {
    /// Records a new run, `running`; its id.
    pub fn start_run(&mut self, run: &NewRun) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO runs (portfolio, input_path, input_sha256, started_at, demo_day,
                                   extra_columns, amount_column)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    run.portfolio,
                    run.input_path,
                    run.sha256,
                    now_text(),
                    run.demo_day,
                    (!run.extra_columns.is_empty())
                        .then(|| serde_json::to_string(&run.extra_columns).unwrap_or_default()),
                    run.amount_column,
                ],
            )
            .map_err(StoreError::at("recording the run"))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// How many `--demo` runs this database has seen: the simulated day advances with them.
    pub fn demo_runs(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM runs WHERE demo_day IS NOT NULL",
                [],
                |r| r.get(0),
            )
            .map_err(StoreError::at("counting demo runs"))
    }

    /// The rows of the latest finished run of a portfolio (run id, rows), to notice an
    /// export that lost most of its rows.
    pub fn last_rows(&self, portfolio: &str) -> Result<Option<(i64, u64)>, StoreError> {
        self.conn
            .query_row(
                "SELECT id, rows_total FROM runs
                 WHERE portfolio = ?1 AND status IN ('complete', 'partial')
                 ORDER BY id DESC LIMIT 1",
                [portfolio],
                |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)),
            )
            .optional()
            .map_err(StoreError::at("reading the previous run"))
    }

    /// Marks runs left `running` as `interrupted`. Called with the run lock held, when no
    /// run can be alive: those are runs whose process died.
    pub fn mark_interrupted(&mut self) -> Result<usize, StoreError> {
        self.conn
            .execute(
                "UPDATE runs SET status = 'interrupted' WHERE status = 'running'",
                [],
            )
            .map_err(StoreError::at("marking interrupted runs"))
    }

    /// The interrupted run to resume for this portfolio, if its latest run was interrupted
    /// on the same input: (run id, simulated day of a demo run).
    pub fn resumable(
        &self,
        portfolio: &str,
        sha256: &str,
    ) -> Result<Option<(i64, Option<i64>)>, StoreError> {
        self.conn
            .query_row(
                "SELECT id, demo_day, status, input_sha256 FROM runs
                 WHERE portfolio = ?1 ORDER BY id DESC LIMIT 1",
                [portfolio],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, Option<i64>>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                    ))
                },
            )
            .optional()
            .map(|latest| {
                latest
                    .filter(|(_, _, status, sha)| {
                        RunStatus::parse(status) == RunStatus::Interrupted && sha == sha256
                    })
                    .map(|(id, day, _, _)| (id, day))
            })
            .map_err(StoreError::at("looking for an interrupted run"))
    }

    /// Takes an interrupted run up again.
    pub fn resume_run(&mut self, run_id: i64) -> Result<(), StoreError> {
        let ctx = "resuming the run";
        // Its summary went out when it stopped: the news it listed then is not news again.
        let delivered = self
            .conn
            .prepare(
                "SELECT a.company FROM run_alerts a JOIN runs u ON u.id = a.run_id
                 WHERE a.run_id = ?1 AND a.listed = 1 AND u.delivered_at IS NOT NULL",
            )
            .and_then(|mut stmt| {
                stmt.query_map([run_id], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(StoreError::at(ctx))?;
        self.delivered_before_resume = (run_id, delivered);
        self.conn
            .execute(
                "UPDATE runs SET status = 'running', finished_at = NULL, delivered_at = NULL
                 WHERE id = ?1",
                [run_id],
            )
            .map(drop)
            .map_err(StoreError::at(ctx))
    }

    /// Lines a run has already settled (every status but `failed`), in order.
    pub fn settled_lines(&self, run_id: i64) -> Result<Vec<u64>, StoreError> {
        let ctx = "reading the rows already screened";
        let mut stmt = self
            .conn
            .prepare(
                "SELECT line FROM run_rows WHERE run_id = ?1 AND status <> 'failed' ORDER BY line",
            )
            .map_err(StoreError::at(ctx))?;
        stmt.query_map([run_id], |r| r.get::<_, i64>(0).map(|l| l as u64))
            .and_then(Iterator::collect)
            .map_err(StoreError::at(ctx))
    }

    /// Records the end of a run with its counts, computed from what was stored. `calls`
    /// are added to those of the processes that worked on the run before (a resumed run),
    /// so the count a quota audit reads is the count that was spent; `notes` replace any
    /// earlier ones.
    pub fn finish_run(
        &mut self,
        run_id: i64,
        status: RunStatus,
        calls: &[(String, u64)],
        notes: &[String],
        rules: &Rules,
    ) -> Result<(), StoreError> {
        self.decide_alerts(run_id, rules, Verdicts::Recorded)?;
        self.name_unscreened(run_id, rules)?;
        let earlier: Option<String> = self
            .conn
            .query_row("SELECT calls FROM runs WHERE id = ?1", [run_id], |r| {
                r.get(0)
            })
            .optional()
            .map_err(StoreError::at("reading the run's calls"))?
            .flatten();
        let mut totals: BTreeMap<String, u64> = earlier
            .and_then(|c| serde_json::from_str(&c).ok())
            .unwrap_or_default();
        for (k, v) in calls {
            *totals.entry(k.clone()).or_insert(0) += v;
        }
        let calls: serde_json::Map<String, serde_json::Value> =
            totals.into_iter().map(|(k, v)| (k, v.into())).collect();
        let notes = (!notes.is_empty())
            .then(|| serde_json::to_string(notes).unwrap_or_else(|_| "[]".into()));
        // The run's rows counted in one pass over them, by status.
        let by_status = self.rows_by_status(run_id)?;
        let n = |status| rows_with(&by_status, status) as i64;
        let total: i64 = by_status.iter().map(|(_, n)| *n as i64).sum();
        let tx = self
            .conn
            .transaction()
            .map_err(StoreError::at("recording the end of the run"))?;
        tx.execute(
                "UPDATE runs SET
                   finished_at     = ?2,
                   status          = ?3,
                   rows_total      = ?6,
                   rows_rated      = ?7,
                   rows_unresolved = ?8,
                   rows_ambiguous  = ?9,
                   rows_invalid    = ?10,
                   rows_failed     = ?11,
                   rows_ignored    = ?12,
                   alerts          = (SELECT count(*) FROM run_alerts WHERE run_id = ?1 AND listed = 1),
                   calls           = ?4,
                   notes           = ?5
                 WHERE id = ?1",
                params![
                    run_id,
                    now_text(),
                    status.as_str(),
                    serde_json::Value::Object(calls).to_string(),
                    notes,
                    total,
                    n(RowStatus::Rated),
                    n(RowStatus::Unresolved),
                    n(RowStatus::Ambiguous),
                    n(RowStatus::Invalid),
                    n(RowStatus::Failed),
                    n(RowStatus::Ignored),
                ],
            )
            .map_err(StoreError::at("recording the end of the run"))?;
        // Counted once here, so the trend and `runs` never read the run's rows again.
        tx.execute("DELETE FROM run_colors WHERE run_id = ?1", [run_id])
            .and_then(|_| tx.execute(COUNT_COLORS, [run_id]))
            .map_err(StoreError::at("counting the run's colors"))?;
        if rules.amount_column().is_some() {
            amounts_by_color(&tx, run_id, rules)
                .map_err(StoreError::at("adding up the run's amounts by color"))?;
        }
        tx.commit()
            .map_err(StoreError::at("counting the run's colors"))?;
        Ok(())
    }

    /// How many companies a run rated with a rating it reused rather than asked for.
    pub fn reused_ratings(&self, run_id: i64) -> Result<u64, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM run_reused_ratings WHERE run_id = ?1",
                [run_id],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(StoreError::at("counting the reused ratings"))
    }

    /// Records that a run's news is delivered: its summary was printed and its reports
    /// are in place. Until then its alerts count as not announced (see `decide_alerts`).
    pub fn mark_delivered(&mut self, run_id: i64) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE runs SET delivered_at = ?2 WHERE id = ?1",
                params![run_id, now_text()],
            )
            .map(drop)
            .map_err(StoreError::at("recording the run as delivered"))
    }

    /// The runs of a portfolio before `run_id` whose news never went out, since its last
    /// delivered run: (run id, started at), oldest first.
    pub fn undelivered_runs(
        &self,
        portfolio: &str,
        run_id: i64,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        alert_log::undelivered_before(&self.conn, portfolio, run_id)
            .map_err(StoreError::at("looking for runs that were not delivered"))
    }

    /// A run's header and counts (columns up to [`RUNS_SCHEMA`]).
    pub fn run_info(&self, run_id: i64) -> Result<RunInfo, StoreError> {
        let ctx = format!("reading run {run_id}");
        let mut info = self
            .conn
            .query_row(
                "SELECT id, started_at, finished_at, portfolio, input_path, input_sha256, status,
                        demo_day, rows_total, rows_rated, rows_unresolved, rows_ambiguous,
                        rows_invalid, rows_failed, alerts, calls, notes, service_time,
                        extra_columns, rows_ignored
                 FROM runs WHERE id = ?1",
                [run_id],
                |r| {
                    // In the order of `RowStatus::ALL`.
                    let counts: Vec<u64> = (9..14)
                        .chain([19])
                        .map(|i| r.get::<_, i64>(i).map(|v| v as u64))
                        .collect::<Result<_, _>>()?;
                    let calls: Option<String> = r.get(15)?;
                    let calls: Vec<(String, u64)> = calls
                        .and_then(|c| {
                            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&c)
                                .ok()
                        })
                        .map(|m| {
                            m.into_iter()
                                .map(|(k, v)| (k, v.as_u64().unwrap_or(0)))
                                .collect()
                        })
                        .unwrap_or_default();
                    Ok(RunInfo {
                        id: r.get(0)?,
                        started_at: read_time(r, 1)?,
                        finished_at: read_time_or_null(r, 2)?,
                        portfolio: r.get(3)?,
                        input_path: r.get(4)?,
                        portfolio_sha256: r.get(5)?,
                        status: RunStatus::parse(&r.get::<_, String>(6)?),
                        demo_day: r.get(7)?,
                        rows: r.get::<_, i64>(8)? as u64,
                        by_status: RowStatus::ALL.into_iter().zip(counts).collect(),
                        by_color: Vec::new(),
                        alerts: r.get::<_, i64>(14)? as u64,
                        calls,
                        notes: r
                            .get::<_, Option<String>>(16)?
                            .and_then(|n| serde_json::from_str(&n).ok())
                            .unwrap_or_default(),
                        service_time: read_time_or_null(r, 17)?,
                        extra_columns: r
                            .get::<_, Option<String>>(18)?
                            .and_then(|n| serde_json::from_str(&n).ok())
                            .unwrap_or_default(),
                    })
                },
            )
            .optional()
            .map_err(StoreError::at(ctx.clone()))?
            .ok_or(StoreError::NoSuchRun(run_id))?;
        // A run records its counts when it finishes; until then they are its rows so far.
        if info.finished_at.is_none() {
            self.count_so_far(&mut info)?;
        }
        info.by_color = self.colors_of(&info)?;
        Ok(info)
    }
}

/// The amount column (`[alerts] amount`, or `min_exposure`'s) summed over the run's rated
/// rows of each color, into `run_colors.amount`: the amount at risk of the trend. One pass
/// over the run's rows, in the caller's transaction; a row without a readable amount adds
/// nothing.
fn amounts_by_color(
    tx: &rusqlite::Transaction<'_>,
    run_id: i64,
    rules: &Rules,
) -> rusqlite::Result<()> {
    let mut sums: BTreeMap<String, f64> = std::collections::BTreeMap::new();
    let mut rows = tx.prepare(
        "SELECT r.color, i.extra, rr.extra_unreliable
         FROM run_rows rr
         JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = +rr.company
         JOIN ratings r        ON r.id = rc.rating_id
         JOIN inputs i         ON i.id = rr.input_id
         WHERE rr.run_id = ?1 AND rr.status = 'rated'",
    )?;
    let mut read = rows.query([run_id])?;
    while let Some(r) = read.next()? {
        let extra = extra_columns(r.get(1)?);
        if let Some(amount) = rules.amount_of(&extra, r.get::<_, i64>(2)? != 0) {
            *sums.entry(r.get(0)?).or_insert(0.0) += amount;
        }
    }
    drop(read);
    let mut update =
        tx.prepare("UPDATE run_colors SET amount = ?3 WHERE run_id = ?1 AND color = ?2")?;
    for (color, amount) in sums {
        update.execute(params![run_id, color, amount])?;
    }
    Ok(())
}
