//! SQLite storage: the schema (applied from `migrations/`), runs, the resolution cache,
//! rating history and every row's outcome. All SQL of ratewatch lives under this module.
//!
//! A run records through one [`Recorder`], which owns the writer's connection (`writer`):
//! its records, and its answers to the pipeline's questions (the resolution cache among
//! them), go through that one connection. [`Store`] holds a second one for what happens
//! around a run (starting, resuming, finishing it, the lookup lists, the reports). The
//! reading commands open the database read-only (`Store::open_read_only`, `history`).
//! It takes and returns `model` types only, never the service's wire types.

mod account;
mod alerts;
mod batch;
mod checkpoint;
mod clock;
mod decisions;
mod deliveries;
mod history;
mod lock;
mod migrate;
mod portfolios;
mod recorder;
mod search;
mod turn;
mod writer;

use history::COUNT_COLORS;

use std::path::{Path, PathBuf};
use std::time::Duration;

use jiff::Timestamp;
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use uuid::Uuid;

pub use crate::digest::{AlertDigest, AlertLine};
pub use crate::model::time_text;
use crate::model::{
    Candidate, Change, Color, Country, IdentifierService, InputRow, ResultRow, RowStatus, RunInfo,
    RunStatus,
};

pub use account::AccountSync;
pub use alerts::{Ack, AlertSet, Verdicts};
pub use clock::{CLOCK_TOLERANCE, clock_note, off_clock};
pub use decisions::LatestRun;
pub use deliveries::RESENT_AT_MOST;
pub use history::{
    ColorChange, ColorPeriod, CompanySummary, Disappearance, Holding, RunCalls, TREND_RUNS,
};
pub use lock::{RunLock, lock_path};
pub use migrate::latest_version;
pub use recorder::Recorder;
pub use search::LatestRating;
pub use writer::{Gone, Outcome, Record, RowRecord, Writer};

pub use migrate::SCHEMA_VERSION;

/// A storage failure. The message names what was being done; the command adds the path.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{context}: {source}")]
    Sql {
        context: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error(
        "it is not a ratewatch database (it has tables of another program); pass another --db, the file was left untouched"
    )]
    Foreign,
    #[error(
        "it was written by a newer ratewatch (schema version {found}, this one knows up to {known}); upgrade ratewatch, the file was left untouched"
    )]
    Newer { found: i64, known: i64 },
    #[error("the database writer stopped: {0}")]
    WriterGone(String),
    #[error(
        "it is in use by another run ({holder}); wait for that run to finish, or use another --db"
    )]
    Busy { holder: String },
    #[error("{0}")]
    Lock(String),
    /// Another writer kept the database past this command's wait: a moment later it is
    /// free again (a run gives a decision its turn within a fraction of a second).
    #[error(
        "{context}: {holder} did not let this command in within {} s; try again in a moment",
        waited.as_secs()
    )]
    Locked {
        context: String,
        holder: &'static str,
        waited: Duration,
    },
    #[error(
        "there is no database there; pass --db PATH (or set RATEWATCH_DB) to the file `ratewatch screen` writes"
    )]
    Missing,
    #[error(
        "it is empty, not yet a ratewatch database; `ratewatch screen` with this --db fills it"
    )]
    Empty,
    #[error(
        "it has schema version {found} and this command needs version {needed}; run a writing command with this --db once (`ratewatch screen`, `ack`, `review`, `sync-history`) to upgrade it: reading commands never write"
    )]
    Older { found: i64, needed: i64 },
    #[error("it has no run {0}; `ratewatch runs` lists the runs it has")]
    NoSuchRun(i64),
}

impl StoreError {
    /// The error of doing `context`: a database still locked by another writer after
    /// [`WAIT`] is said as such, not as a database that cannot be used.
    fn at(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> StoreError {
        let context = context.into();
        move |source| match source.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy) => StoreError::Locked {
                context,
                holder: "a screening run, or another program, writing the database",
                waited: WAIT,
            },
            _ => StoreError::Sql { context, source },
        }
    }
}

/// How long a connection waits for another writer (SQLite's busy timeout), and a decision
/// for its turn.
const WAIT: Duration = Duration::from_secs(10);

/// The start of `t`'s calendar month in UTC: where a month's calls begin to count.
pub fn month_start(t: Timestamp) -> Timestamp {
    let day = t.to_zoned(jiff::tz::TimeZone::UTC).date().first_of_month();
    day.to_zoned(jiff::tz::TimeZone::UTC)
        .map_or(t, |z| z.timestamp())
}

pub fn now_text() -> String {
    time_text(Timestamp::now())
}

/// A cached resolution: what the service answered for one normalized input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedResolution {
    pub outcome: Outcome,
    pub company_id: Option<Uuid>,
    pub candidates: Vec<Candidate>,
    pub resolved_at: Timestamp,
    /// Asked for an identifier: whether the company holds it exactly as asked.
    pub holds_exactly: bool,
    /// Asked for an identifier the company does not hold exactly as asked: the registry
    /// identifiers it holds (service code, identifier), for the caller to compare by the
    /// registries' rules. Empty otherwise.
    pub external_ids: Vec<(String, String)>,
}

/// The cached answer to a search, through the UNIQUE index on `search_key`. `asked`, for
/// an identifier search (service code, identifier): whether the company holds it as
/// written, through the primary key of `company_external_ids` in the same statement (a
/// nightly run asks this for every row), and, when it does not, every identifier it holds.
pub(crate) fn read_resolution(
    conn: &Connection,
    key: &str,
    asked: Option<(&str, &str)>,
) -> Result<Option<CachedResolution>, StoreError> {
    let ctx = "reading the resolution cache";
    let (service, id) = asked.unzip();
    let service = service.map(str::to_uppercase);
    let hit = conn
        .prepare_cached(
            "SELECT r.outcome, c.company_id, r.candidates, r.resolved_at, r.company,
                    ?2 IS NOT NULL
                    AND EXISTS (SELECT 1 FROM company_external_ids e
                            WHERE e.company = r.company AND e.service = ?2
                              AND e.external_id = ?3)
             FROM resolutions r LEFT JOIN companies c ON c.id = r.company
             WHERE r.search_key = ?1",
        )
        .and_then(|mut s| {
            s.query_row(params![key, service, id], |r| {
                // What the cache holds is read as written, or the run stops on it: a search
                // taken for another answer than the service gave would report the row wrongly.
                let unreadable = |at: usize, e: Box<dyn std::error::Error + Send + Sync>| {
                    rusqlite::Error::FromSqlConversionFailure(at, rusqlite::types::Type::Text, e)
                };
                let outcome: String = r.get(0)?;
                let candidates: Option<String> = r.get(2)?;
                let hit = CachedResolution {
                    outcome: Outcome::parse(&outcome).ok_or_else(|| {
                        unreadable(0, format!("unknown outcome {outcome:?}").into())
                    })?,
                    company_id: match r.get_ref(1)? {
                        rusqlite::types::ValueRef::Null => None,
                        _ => Some(read_uuid(r, 1)?),
                    },
                    candidates: candidates
                        .map(|c| serde_json::from_str(&c).map_err(|e| unreadable(2, e.into())))
                        .transpose()?
                        .unwrap_or_default(),
                    resolved_at: read_time(r, 3)?,
                    holds_exactly: r.get(5)?,
                    external_ids: Vec::new(),
                };
                Ok((hit, r.get::<_, Option<i64>>(4)?))
            })
            .optional()
        })
        .map_err(StoreError::at(ctx))?;
    let Some((mut hit, company)) = hit else {
        return Ok(None);
    };
    if let (Some(company), Some(_), false) = (company, asked, hit.holds_exactly) {
        hit.external_ids = conn
            .prepare_cached(
                "SELECT service, external_id FROM company_external_ids WHERE company = ?1",
            )
            .and_then(|mut s| {
                s.query_map([company], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(StoreError::at(ctx))?;
    }
    Ok(Some(hit))
}

/// The internal key of the company with this UUID, through the UNIQUE index on
/// `companies.company_id` (the UUID as lowercase text with hyphens).
pub(crate) fn find_company(conn: &Connection, company: Uuid) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT id FROM companies WHERE company_id = ?1")?
        .query_row([company.to_string()], |r| r.get(0))
        .optional()
}

/// The company's latest rating (`?1`: its internal key), its color and when a run last saw
/// it: the start of the run that first observed it, or of the last that confirmed it (this
/// machine's clock, never the service's dates). Nothing when no run saw it (a sync only).
pub(crate) const LATEST_SEEN: &str = "SELECT r.id, r.color, u.started_at FROM ratings r
     LEFT JOIN rating_confirmations f ON f.rating = r.id
     JOIN runs u ON u.id = CASE WHEN f.rating IS NULL THEN r.first_run_id ELSE f.last_run_id END
     WHERE r.id = (SELECT max(id) FROM ratings WHERE company = ?1)";

/// A company's latest rating as a run last saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestSeen {
    /// `ratings.id`.
    pub rating: i64,
    pub color: Color,
    /// The start of the run that last observed or confirmed it.
    pub seen_at: Timestamp,
}

/// Reads a row of [`LATEST_SEEN`].
pub(crate) fn latest_seen(r: &rusqlite::Row<'_>) -> rusqlite::Result<LatestSeen> {
    let seen: String = r.get(2)?;
    Ok(LatestSeen {
        rating: r.get(0)?,
        color: Color::parse(&r.get::<_, String>(1)?),
        seen_at: seen.parse().map_err(|e: jiff::Error| {
            rusqlite::Error::FromSqlConversionFailure(2, rusqlite::types::Type::Text, e.into())
        })?,
    })
}

/// What a new run records about itself at the start.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub portfolio: String,
    pub input_path: String,
    pub sha256: String,
    pub demo_day: Option<i64>,
    /// Headers of the columns carried through to the reports.
    pub extra_columns: Vec<String>,
}

/// The ratewatch database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Counts the answers its writers saw dated off this machine's clock.
    service_clock: clock::ServiceClock,
    /// The companies whose news a resumed run had already delivered before it stopped
    /// (a signal, a spent quota): its verdict lists them no more (see `decide_alerts`).
    /// Kept in memory only: a resumed run that dies again announces them again rather
    /// than never.
    delivered_before_resume: (i64, std::collections::HashSet<i64>),
    /// The turn a decision took to write beside a run ([`Store::decision_conn`]); released
    /// as the store closes, after the log is emptied (see `Drop`).
    turn: Option<turn::Turn>,
    /// How often a writer's checkpoint thread copies the log ([`checkpoint::EVERY`]; a
    /// test shortens it).
    pub(crate) checkpoint_every: Duration,
}

fn open_connection(path: &Path) -> Result<Connection, StoreError> {
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(StoreError::at("opening"))?;
    conn.busy_timeout(WAIT)
        .map_err(StoreError::at("setting the busy timeout"))?;
    // Every transaction takes the write lock when it begins, so it waits (the busy
    // timeout) for another writer (`ack`, `review`, `sync-history`, a run) to finish. A
    // deferred one would read first and then fail, without waiting, when it came to write
    // after another connection had committed ("cannot promote read transaction").
    conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
    // WAL lets readers (sqlite3, the cache) work during a run; NORMAL sync is durable
    // against a crash of ratewatch, which is the failure that matters here. The log
    // outlives the connections (see below): it is cut back to 64 MiB when it starts over.
    conn.execute_batch(
        "PRAGMA foreign_keys = ON;
         PRAGMA synchronous = NORMAL;
         PRAGMA journal_size_limit = 67108864;",
    )
    .map_err(StoreError::at("setting pragmas"))?;
    no_checkpoint_on_close(&conn)?;
    Ok(conn)
}

/// The last connection to close would otherwise copy the log into the database and
/// delete it under an exclusive lock, and a reader opening then (`sqlite3` has no busy
/// timeout) is refused with "database is locked". The log left behind is complete: the
/// next connection reads it, and the checkpoints of the next run copy it.
fn no_checkpoint_on_close(conn: &Connection) -> Result<(), StoreError> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
        .map(|_| ())
        .map_err(StoreError::at("keeping the log on close"))
}

/// A writing store empties the log as it closes (see `checkpoint::on_close`). A decision's
/// turn is released only then: a run beside waits off its screening thread meanwhile,
/// rather than on it, in `BEGIN`, for the copy to end.
impl Drop for Store {
    fn drop(&mut self) {
        checkpoint::on_close(&self.conn);
        drop(self.turn.take());
    }
}

impl Store {
    /// Opens (or creates) the database and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut conn = open_connection(path)?;
        migrate::migrate(&mut conn)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(StoreError::at("switching to WAL"))?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!("the database could not switch to WAL (journal mode {mode})");
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            service_clock: Default::default(),
            delivered_before_resume: Default::default(),
            turn: None,
            checkpoint_every: checkpoint::EVERY,
        })
    }

    /// Opens an existing database for reading only: it is never created, upgraded or
    /// written, and no lock is taken, so this runs beside a screening run without blocking
    /// or slowing it (WAL gives readers a snapshot of what was committed).
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        if !path.is_file() {
            return Err(StoreError::Missing);
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(StoreError::at("opening"))?;
        conn.busy_timeout(WAIT)
            .map_err(StoreError::at("setting the busy timeout"))?;
        no_checkpoint_on_close(&conn)?;
        // Reading commands never upgrade: a database of an earlier schema waits for the
        // next writing one.
        match migrate::check(&conn)? {
            0 => return Err(StoreError::Empty),
            found if found < SCHEMA_VERSION => {
                return Err(StoreError::Older {
                    found,
                    needed: SCHEMA_VERSION,
                });
            }
            _ => {}
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            service_clock: Default::default(),
            delivered_before_resume: Default::default(),
            turn: None,
            checkpoint_every: checkpoint::EVERY,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
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

    /// The internal key of the company with this UUID, if the database knows it.
    /// The connection for a decision's write (an acknowledgement, a review's decision),
    /// once a screening run beside has given way: the turn is taken on the first write and
    /// kept until the store closes (see `turn`).
    fn decision_conn(&mut self) -> Result<&Connection, StoreError> {
        if self.turn.is_none() {
            self.turn = Some(turn::Turn::take(&self.path, WAIT)?);
        }
        Ok(&self.conn)
    }

    pub(crate) fn company_key(&self, company: Uuid) -> rusqlite::Result<Option<i64>> {
        find_company(&self.conn, company)
    }

    /// The cached answer to a search, if any (whatever its age), for a run's preview.
    pub fn cached_resolution(&self, key: &str) -> Result<Option<CachedResolution>, StoreError> {
        read_resolution(&self.conn, key, None)
    }

    /// The cached answer to a search, with whether its company holds the identifier
    /// `asked` (service code, identifier) for an identifier search ([`read_resolution`]).
    pub fn cached_answer(
        &self,
        key: &str,
        asked: Option<(&str, &str)>,
    ) -> Result<Option<CachedResolution>, StoreError> {
        read_resolution(&self.conn, key, asked)
    }

    /// The company's latest rating and when a run last saw it (a run whose refresh ages
    /// allow uses it without a call: see [`crate::stages::refresh`]).
    pub fn latest_seen(&self, company: Uuid) -> Result<Option<LatestSeen>, StoreError> {
        let ctx = "reading the latest rating";
        let Some(key) = self.company_key(company).map_err(StoreError::at(ctx))? else {
            return Ok(None);
        };
        self.conn
            .query_row(LATEST_SEEN, params![key], latest_seen)
            .optional()
            .map_err(StoreError::at(ctx))
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

    /// Keeps the connection's scratch tables (`alerts test`'s verdicts) in memory: for a
    /// run that must still say what it found when the disk is full.
    pub fn scratch_in_memory(&self) -> Result<(), StoreError> {
        self.conn
            .execute_batch("PRAGMA temp_store = MEMORY;")
            .map_err(StoreError::at("keeping scratch tables in memory"))
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
        alerts::undelivered_before(&self.conn, portfolio, run_id)
            .map_err(StoreError::at("looking for runs that were not delivered"))
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

    pub fn start_run(&mut self, run: &NewRun) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO runs (portfolio, input_path, input_sha256, started_at, demo_day,
                                   extra_columns)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    run.portfolio,
                    run.input_path,
                    run.sha256,
                    now_text(),
                    run.demo_day,
                    (!run.extra_columns.is_empty())
                        .then(|| serde_json::to_string(&run.extra_columns).unwrap_or_default())
                ],
            )
            .map_err(StoreError::at("recording the run"))?;
        Ok(self.conn.last_insert_rowid())
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
        rules: &crate::alerts::Rules,
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
        let mut totals: std::collections::BTreeMap<String, u64> = earlier
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
        let n = |status| crate::model::rows_with(&by_status, status) as i64;
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

    /// Keeps the service's lookup lists, replacing the previous copy.
    pub fn save_lookups(
        &mut self,
        countries: &[Country],
        services: &[IdentifierService],
    ) -> Result<(), StoreError> {
        let now = now_text();
        let tx = self
            .conn
            .transaction()
            .map_err(StoreError::at("saving the lookup lists"))?;
        tx.execute_batch("DELETE FROM lookup_countries; DELETE FROM lookup_services;")
            .map_err(StoreError::at("saving the lookup lists"))?;
        {
            let mut c = tx
                .prepare("INSERT OR REPLACE INTO lookup_countries (code, name, fetched_at) VALUES (?1, ?2, ?3)")
                .map_err(StoreError::at("saving countries"))?;
            for country in countries {
                c.execute(params![country.code.to_uppercase(), country.name, now])
                    .map_err(StoreError::at("saving countries"))?;
            }
            let mut s = tx
                .prepare("INSERT OR REPLACE INTO lookup_services (country, code, label, fetched_at) VALUES (?1, ?2, ?3, ?4)")
                .map_err(StoreError::at("saving services"))?;
            for service in services {
                s.execute(params![
                    service.country.to_uppercase(),
                    service.code,
                    service.label,
                    now
                ])
                .map_err(StoreError::at("saving services"))?;
            }
        }
        tx.commit()
            .map_err(StoreError::at("saving the lookup lists"))
    }

    /// Every row of `sql`, each read by `read`.
    fn all<T>(
        &self,
        ctx: &str,
        sql: &str,
        params: impl rusqlite::Params,
        read: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        self.conn
            .prepare(sql)
            .and_then(|mut s| s.query_map(params, read)?.collect())
            .map_err(StoreError::at(ctx))
    }

    /// The last saved lookup lists (empty if never fetched).
    pub fn load_lookups(&self) -> Result<(Vec<Country>, Vec<IdentifierService>), StoreError> {
        let ctx = "reading the saved lookup lists";
        let sql = "SELECT code, name FROM lookup_countries ORDER BY code";
        let countries = self.all(ctx, sql, [], |r| {
            Ok(Country {
                code: r.get(0)?,
                name: r.get(1)?,
            })
        })?;
        let sql = "SELECT country, code, label FROM lookup_services ORDER BY country, code";
        let services = self.all(ctx, sql, [], |r| {
            Ok(IdentifierService {
                country: r.get(0)?,
                code: r.get(1)?,
                label: r.get(2)?,
            })
        })?;
        Ok((countries, services))
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

    /// Calls `f` with each row's result of a run, in input order, without holding them all.
    pub fn for_each_result<E>(
        &self,
        run_id: i64,
        alerts_only: bool,
        f: impl FnMut(ResultRow) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        let order = if alerts_only {
            Rows::AlertsByLine
        } else {
            Rows::All
        };
        self.results(run_id, order, f)
    }

    /// Calls `f` with each row of a run that is not rated (ambiguous, unresolved, invalid,
    /// failed, ignored), in input order: what the review and a portfolio's page list.
    pub fn for_each_unrated<E>(
        &self,
        run_id: i64,
        f: impl FnMut(ResultRow) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        self.results(run_id, Rows::NotRated, f)
    }

    /// Calls `f` with the rows of the run's alerts (companies in `run_alerts`), grouped by
    /// company as the summary orders them: the listed alerts first, worst first, then the
    /// standing ones (not listed, not acknowledged), then the acknowledged ones; a
    /// company's rows together, in input order. Nothing for a database read before its
    /// alert rules.
    pub fn for_each_alert_row<E>(
        &self,
        run_id: i64,
        f: impl FnMut(ResultRow) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        self.results(run_id, Rows::AlertsByCompany, f)
    }

    fn results<E>(
        &self,
        run_id: i64,
        which: Rows,
        mut f: impl FnMut(ResultRow) -> Result<(), E>,
    ) -> Result<Result<(), E>, StoreError> {
        let ctx = format!("reading the results of run {run_id}");
        let columns = "v.line, v.ref, v.country, v.service, v.external_id, v.name, v.status,
                    v.company_id, v.company_name, v.color, v.previous_color, v.change,
                    v.last_change_date, v.alert, v.error, v.candidates, v.last_refresh_date,
                    v.extra, v.alert_kind, v.alert_acked, v.alert_listed,
                    x.country_defaulted, x.extra_unreliable, x.named, v.found_by";
        // Whether the row's rating was reused, and its age at the run's start.
        let reused = "z.seen_at IS NOT NULL,
                 unixepoch((SELECT started_at FROM runs WHERE id = v.run_id))
                     - unixepoch(z.seen_at)";
        let by_reuse = "LEFT JOIN run_reused_ratings z ON z.run_id = x.run_id
                                 AND z.company = x.company AND v.status = 'rated'";
        let by_key =
            format!("LEFT JOIN run_rows x ON x.run_id = v.run_id AND x.line = v.line {by_reuse}");
        let sql = match which {
            Rows::All | Rows::AlertsByLine | Rows::NotRated => format!(
                "SELECT {columns}, {reused}
                 FROM run_results v {by_key} WHERE v.run_id = ?1 {} ORDER BY v.line",
                match which {
                    Rows::AlertsByLine => "AND v.alert = 1",
                    Rows::NotRated => "AND v.status <> 'rated'",
                    _ => "",
                }
            ),
            // Listed first (worst first and largest amount first, as the summary), then
            // standing, then acked; a company's rows together from its first line. One pass
            // over the run's rows by their keys, as for every row, then a sort of the
            // alerts' rows only.
            Rows::AlertsByCompany => {
                let severity: String = crate::alerts::AlertKind::ALL
                    .iter()
                    .map(|k| format!(" WHEN '{}' THEN {}", k.as_str(), k.severity()))
                    .collect();
                format!(
                    "SELECT {columns}, {reused}
                     FROM (SELECT *, min(line) OVER (PARTITION BY company) AS first_line
                           FROM run_results WHERE run_id = ?1 AND alert_kind IS NOT NULL) v
                     {by_key}
                     ORDER BY v.alert_listed DESC, v.alert_acked,
                              CASE v.alert_kind{severity} END,
                              (SELECT a.amount FROM run_alerts a
                               WHERE a.run_id = v.run_id AND a.company = v.company) DESC NULLS LAST,
                              v.first_line, v.line"
                )
            }
        };
        let announced = self.announced_otherwise(run_id)?;
        let mut stmt = self
            .conn
            .prepare(&sql)
            .map_err(StoreError::at(ctx.clone()))?;
        let mut rows = stmt.query([run_id]).map_err(StoreError::at(ctx.clone()))?;
        while let Some(r) = rows.next().map_err(StoreError::at(ctx.clone()))? {
            let mut row = result_row(r).map_err(StoreError::at(ctx.clone()))?;
            // An alert judged against what was last delivered, not the history's previous
            // observation (see `store::alerts`): the row says the change it announces.
            if let (Some(company), Some(color)) = (row.company_id, &row.color)
                && let Some(before) = announced.get(&company)
            {
                row.change = Some(Change::classify(
                    before.as_ref().map(|c| (c, None::<i64>)),
                    color,
                    None,
                ));
                row.previous_color = before.clone();
            }
            if let Err(e) = f(row) {
                return Ok(Err(e));
            }
        }
        Ok(Ok(()))
    }

    /// The companies of a run whose alert compares with another color than the history's
    /// previous one (a change an undelivered run saw first), with that color: few, read
    /// at once.
    fn announced_otherwise(
        &self,
        run_id: i64,
    ) -> Result<std::collections::HashMap<Uuid, Option<Color>>, StoreError> {
        let ctx = format!("reading the alerts of run {run_id}");
        let mut stmt = self
            .conn
            .prepare(
                "SELECT c.company_id, a.previous_color FROM run_alerts a
                 JOIN companies c      ON c.id = a.company
                 JOIN run_companies rc ON rc.run_id = a.run_id AND rc.company = a.company
                 LEFT JOIN ratings p   ON p.id = rc.previous_rating_id
                 WHERE a.run_id = ?1 AND a.kind <> 'still' AND a.kind <> 'gone'
                   AND a.previous_color IS NOT p.color",
            )
            .map_err(StoreError::at(ctx.clone()))?;
        stmt.query_map([run_id], |r| {
            let color: Option<String> = r.get(1)?;
            Ok((read_uuid(r, 0)?, color.map(|c| Color::parse(&c))))
        })
        .and_then(Iterator::collect)
        .map_err(StoreError::at(ctx))
    }

    /// The writer for a run's results, on a connection of its own.
    pub fn writer(&self, run_id: i64) -> Result<Writer, StoreError> {
        let conn = open_connection(&self.path)?;
        // The writer's working set (recent companies, their latest ratings, the cache
        // index) stays in memory; 16 MiB holds it for portfolios of a million rows.
        conn.execute_batch("PRAGMA cache_size = -16384;")
            .map_err(StoreError::at("sizing the page cache"))?;
        // Every statement the writer runs stays prepared (a statement pushed out of the
        // cache is compiled again on its next use).
        conn.set_prepared_statement_cache_capacity(128);
        let checkpointer = checkpoint::Checkpointer::start(&self.path, self.checkpoint_every);
        if checkpointer.is_some() {
            // The log starts over every few seconds; the file is cut back when it does
            // (`open_connection`) rather than staying as long as the longest stretch.
            conn.execute_batch("PRAGMA wal_autocheckpoint = 0;")
                .map_err(StoreError::at("handing checkpoints to their thread"))?;
        }
        let turns = turn::Watch::start(&self.path);
        Writer::start(
            conn,
            run_id,
            checkpointer,
            turns,
            self.service_clock.clone(),
        )
    }
}

/// A row's carried columns from `inputs.extra` (a JSON object), as (header, value) pairs.
fn extra_columns(json: Option<String>) -> Vec<(String, String)> {
    json.and_then(|e| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&e).ok())
        .map(|m| {
            m.into_iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// The amount column (`[alerts] amount`, or `min_exposure`'s) summed over the run's rated
/// rows of each color, into `run_colors.amount`: the amount at risk of the trend. One pass
/// over the run's rows, in the caller's transaction; a row without a readable amount adds
/// nothing.
fn amounts_by_color(
    tx: &rusqlite::Transaction<'_>,
    run_id: i64,
    rules: &crate::alerts::Rules,
) -> rusqlite::Result<()> {
    let mut sums: std::collections::BTreeMap<String, f64> = std::collections::BTreeMap::new();
    let mut rows = tx.prepare(
        "SELECT r.color, i.extra, rr.extra_unreliable
         FROM run_rows rr
         JOIN run_companies rc ON rc.run_id = rr.run_id AND rc.company = rr.company
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

/// Which rows of a run [`Store::results`] reads, in which order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rows {
    All,
    AlertsByLine,
    AlertsByCompany,
    /// The rows not rated: what needs a person, or failed.
    NotRated,
}

/// A company's UUID, as every table and view holds it (text).
pub(crate) fn read_uuid(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Uuid> {
    let text: String = r.get(at)?;
    Uuid::parse_str(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(at, rusqlite::types::Type::Text, e.into())
    })
}

/// A time as [`time_text`] stored it; other text is an error, never a guess.
pub(crate) fn read_time(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Timestamp> {
    let text: String = r.get(at)?;
    parse_time(at, &text)
}

/// A time as [`time_text`] stored it, or NULL.
pub(crate) fn read_time_or_null(
    r: &rusqlite::Row<'_>,
    at: usize,
) -> rusqlite::Result<Option<Timestamp>> {
    let text: Option<String> = r.get(at)?;
    text.map(|t| parse_time(at, &t)).transpose()
}

fn parse_time(at: usize, text: &str) -> rusqlite::Result<Timestamp> {
    text.parse().map_err(|e: jiff::Error| {
        rusqlite::Error::FromSqlConversionFailure(at, rusqlite::types::Type::Text, e.into())
    })
}

/// What a row gave that every reading of rows shows, from its first six columns: `line,
/// ref, country, service, external_id, name`.
pub(super) fn given(r: &rusqlite::Row<'_>) -> rusqlite::Result<InputRow> {
    Ok(InputRow {
        line: r.get::<_, i64>(0)? as u64,
        reference: r.get(1)?,
        country: r.get(2)?,
        service: r.get(3)?,
        id: r.get(4)?,
        name: r.get(5)?,
        ..InputRow::default()
    })
}

fn result_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ResultRow> {
    // The columns read only to be parsed are borrowed, not copied.
    let text = |i: usize| -> rusqlite::Result<Option<&str>> {
        r.get_ref(i)?.as_str_or_null().map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
        })
    };
    let status = text(6)?.ok_or_else(|| {
        rusqlite::Error::InvalidColumnType(6, "status".into(), rusqlite::types::Type::Null)
    })?;
    // A company or candidates that do not read as written are an error, never left out.
    let company = match text(7)? {
        Some(_) => Some(read_uuid(r, 7)?),
        None => None,
    };
    let color = text(9)?;
    let previous = text(10)?;
    let change = text(11)?;
    let candidates = text(15)?;
    let given = given(r)?;
    Ok(ResultRow {
        line: given.line,
        reference: given.reference,
        country: given.country,
        service: given.service,
        id: given.id,
        name: given.name,
        status: RowStatus::parse(status).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                6,
                rusqlite::types::Type::Text,
                format!("unknown row status {status:?}").into(),
            )
        })?,
        company_id: company,
        company_name: r.get(8)?,
        color: color.map(Color::parse),
        previous_color: previous.map(Color::parse),
        change: change.and_then(Change::parse),
        last_change_date: read_time_or_null(r, 12)?,
        last_refresh_date: read_time_or_null(r, 16)?,
        extra: extra_columns(r.get(17)?),
        // Judged by the reports against their threshold (`model::Staleness`).
        stale: false,
        alert: r.get::<_, i64>(13)? != 0,
        alert_kind: text(18)?.and_then(crate::alerts::AlertKind::parse),
        acknowledged: r.get::<_, Option<i64>>(19)?.unwrap_or(0) != 0,
        alert_listed: r.get::<_, Option<i64>>(20)?.unwrap_or(0) != 0,
        error: r.get(14)?,
        country_defaulted: r.get::<_, Option<i64>>(21)?.unwrap_or(0) != 0,
        extra_unreliable: r.get::<_, Option<i64>>(22)?.unwrap_or(0) != 0,
        named: r.get::<_, Option<i64>>(23)?.unwrap_or(0) != 0,
        found_by: r.get(24)?,
        reused: r.get::<_, Option<i64>>(25)?.unwrap_or(0) != 0,
        rating_age_hours: r
            .get::<_, Option<i64>>(26)?
            .map(|seconds| seconds.max(0) as u64 / 3600),
        candidates: candidates
            .map(|c| {
                serde_json::from_str(c).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        15,
                        rusqlite::types::Type::Text,
                        e.into(),
                    )
                })
            })
            .transpose()?
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests;
