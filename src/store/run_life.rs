//! A run's life in the database: started, its rows settled as it goes, interrupted and
//! resumed, finished with its counts (and its alerts decided), delivered; and its header
//! as the commands read it back.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, params};

use super::alert_log::{self, Verdicts};
use super::database::{Store, open_connection};
use super::sql::{StoreError, extra_columns, now_text, read_time, read_time_or_null};
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
        // The run's rows counted in one pass over them, by status and by color, on a
        // connection of its own while the alerts are decided: neither reads what the other
        // writes, and at a million rows each takes a second of a core.
        let path = self.path.clone();
        let (decided, counted) = std::thread::scope(|scope| {
            let counting = std::thread::Builder::new()
                .name("count".into())
                .spawn_scoped(scope, || {
                    open_connection(&path).and_then(|conn| {
                        count_rows(&conn, run_id, rules).map_err(StoreError::at("counting"))
                    })
                });
            let decided = self
                .decide_alerts(run_id, rules, Verdicts::Recorded)
                .and_then(|_| self.name_unscreened(run_id, rules));
            let counted = match counting {
                Ok(counting) => counting
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    .map_err(|e| e.to_string()),
                Err(e) => Err(format!("no thread for it: {e}")),
            };
            (decided, counted)
        });
        decided?;
        // Counted again here when it could not be beside (no thread, a database the other
        // connection could not open): the error said is then this one's.
        let counted = match counted {
            Ok(counted) => counted,
            Err(e) => {
                tracing::debug!("counted after the alerts: {e}");
                count_rows(&self.conn, run_id, rules)
                    .map_err(StoreError::at(format!("counting the rows of run {run_id}")))?
            }
        };
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
        let by_status = &counted.by_status;
        let n = |status| rows_with(by_status, status) as i64;
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
            .and_then(|_| {
                let mut insert = tx.prepare(
                    "INSERT INTO run_colors (run_id, color, rows, new_rows, amount)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )?;
                counted.colors.iter().try_for_each(|c| {
                    insert
                        .execute(params![run_id, c.color, c.rows, c.new_rows, c.amount])
                        .map(drop)
                })
            })
            .map_err(StoreError::at("counting the run's colors"))?;
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

/// A finished run's rows, counted in one pass ([`count_rows`]).
struct RowCounts {
    /// Every status, present or not.
    by_status: Vec<(RowStatus, u64)>,
    /// The colors of the rated rows, in the order first met.
    colors: Vec<ColorCount>,
}

/// The rated rows of one color, as `run_colors` keeps them.
struct ColorCount {
    color: String,
    rows: u64,
    /// Those whose company came into the color through a change (not a first screening).
    new_rows: u64,
    /// The amount column (`[alerts] amount`, or `min_exposure`'s) summed over them: the
    /// amount at risk of the trend. `None` when no row of the color had a readable
    /// amount, or the rules name no amount column.
    amount: Option<f64>,
}

/// Counts a run's rows by status and its rated rows by color, in one pass over them (by
/// primary key; `+rr.company` keeps them from being read company by company through
/// `run_row_spans_by_company`). Rows, not companies, as report.json's `by_color` counts
/// them, so the trend, the report and `runs` agree. The colors are not a fixed list (the
/// service may say one the spec does not), and grouping in SQL would sort every row
/// first. A row's amount is read from its carried columns only when the rules name an
/// amount column.
fn count_rows(
    conn: &rusqlite::Connection,
    run_id: i64,
    rules: &Rules,
) -> rusqlite::Result<RowCounts> {
    let amounts = rules.amount_column().is_some();
    let mut stmt = conn.prepare(&format!(
        "SELECT rr.status, r.color, rc.change IN ('deteriorated', 'improved', 'changed'),
                {}, rr.extra_unreliable
         FROM run_rows rr
         LEFT JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = +rr.company
                                   AND rr.status = 'rated'
         LEFT JOIN ratings r        ON r.id = rc.rating_id
         WHERE rr.run_id = ?1",
        match amounts {
            true =>
                "iif(r.color IS NULL, NULL,
                         (SELECT i.extra FROM inputs i WHERE i.id = rr.input_id))",
            false => "NULL",
        }
    ))?;
    let mut by_status: Vec<(RowStatus, u64)> = RowStatus::ALL.map(|s| (s, 0)).to_vec();
    let mut colors: Vec<ColorCount> = Vec::new();
    let mut rows = stmt.query([run_id])?;
    while let Some(r) = rows.next()? {
        let text = r.get_ref(0)?.as_str()?;
        let Some(status) = RowStatus::parse(text) else {
            let unknown = format!("unknown row status {text:?}");
            return Err(rusqlite::Error::FromSqlConversionFailure(
                0,
                rusqlite::types::Type::Text,
                unknown.into(),
            ));
        };
        if let Some((_, n)) = by_status.iter_mut().find(|(s, _)| *s == status) {
            *n += 1;
        }
        let Some(color) = r.get_ref(1)?.as_str_or_null()? else {
            continue;
        };
        let at = match colors.iter().position(|c| c.color == color) {
            Some(at) => at,
            None => {
                colors.push(ColorCount {
                    color: color.to_string(),
                    rows: 0,
                    new_rows: 0,
                    amount: None,
                });
                colors.len() - 1
            }
        };
        let counted = &mut colors[at];
        counted.rows += 1;
        counted.new_rows += u64::from(r.get::<_, i64>(2)? != 0);
        if amounts {
            let extra = extra_columns(r.get(3)?);
            if let Some(amount) = rules.amount_of(&extra, r.get::<_, i64>(4)? != 0) {
                *counted.amount.get_or_insert(0.0) += amount;
            }
        }
    }
    Ok(RowCounts { by_status, colors })
}
