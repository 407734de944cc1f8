//! The one connection that writes a run's results.
//!
//! Records are applied inside a transaction that stays open for a moment and is then
//! committed with everything that arrived meanwhile: a crash loses at most that moment's
//! work and never half a row, and commits stay few. The pipeline's questions (is this search
//! cached? is this company already rated in this run?) are answered by the same connection,
//! so the answers see every record written before them, committed or not.
//!
//! The screening runtime is single-threaded, so the writer is called directly, without a
//! thread or a channel: a handoff between threads costs more than the SQL it carries.
//! Only the commit leaves the thread ([`Writer::commit_job`]): it writes every page the
//! transaction dirtied, tens of milliseconds on a first run, during which answers would
//! pile up unread. While the connection is away, records queue and are written when it
//! returns; questions wait for it ([`Writer::is_home`]).
//!
//! A decision beside the run (`ack`, `review`, a form of the page) asks for its turn
//! (`store::turn`): the open transaction is then committed at once, whatever its age, and
//! the connection stays away until the decision is written ([`CommitJob::run`]).
//!
//! Every search, input row and company is found again through the UNIQUE index on its
//! key (`resolutions.search_key`, `inputs_by_fields`, `companies.company_id`), by the
//! same connection: a killed run leaves nothing to catch up, each commit being whole.
//!
//! Split by what it does: this file holds the transaction and commit protocol;
//! `records` writes companies, resolutions and the rating history (where changes are
//! detected, against the history); `questions` answers the pipeline; `inputs` stores the
//! rows as given; `appends` writes, many to a statement, the rows the run does not read
//! back (each row's outcome among them).

mod appends;
mod inputs;
mod questions;
mod records;

use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OptionalExtension, params};
use uuid::Uuid;

use self::appends::{Appends, RunKey};
use super::checkpoint::Checkpointer;
use super::sql::{StoreError, now_text};
use super::turn::Watch;
use crate::model::{self, Candidate, Change, Color, Company, InputRow, RowStatus, SearchOutcome};

/// A transaction is committed once it is this old: readers see progress, and a crash
/// loses no more than this (the run resumes after it). The indexes on UUIDs, searches and
/// input rows take their keys in random order, so a longer transaction writes each of their
/// pages once for more rows: three seconds rather than one cut a 100k-row first run's
/// database writes from 7.1 to 4.2 times its growth, and fifteen rather than three a
/// million-row first run's from 17 to about 8 times, its CPU by 5 % (benches/RESULTS.md).
const MAX_TRANSACTION: Duration = Duration::from_secs(15);
/// The first transactions of a run last one second, then as long as the run has lasted
/// up to [`MAX_TRANSACTION`]: a short run shows its progress as often as before.
const FIRST_TRANSACTIONS: Duration = Duration::from_secs(1);
/// How often the write-ahead log starts over (the checkpoint thread copies it meanwhile,
/// as often): it stays about ten seconds of writes long, and the writer copies only the
/// last transaction's pages itself. A long run's transactions outlast it: each commit then
/// copies its own pages (away from the screening thread) and the log holds one of them.
const LOG_RESTART: Duration = Duration::from_secs(10);
/// How long the run waits for a decision to which it gave way: one takes milliseconds,
/// once it gets in. A decision that holds its turn longer is not waited for again until
/// it lets go, so that a stuck one (a process stopped midway) cannot stall the run.
const GIVING_WAY: Duration = Duration::from_secs(10);

/// A company the service no longer knows, as ratewatch last saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gone {
    pub color: Color,
    /// When its last rating was last confirmed (ISO 8601 UTC).
    pub last_seen: String,
}

/// One input row as given and what became of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowRecord {
    pub input: InputRow,
    pub status: RowStatus,
    pub company_id: Option<Uuid>,
    pub error: Option<String>,
    pub candidates: Vec<Candidate>,
    /// The search that found the company (`SIRET 55210055400013`, `name`, `company_id`,
    /// `review`); `None` when none did.
    pub found_by: Option<String>,
}

/// What the pipeline hands the writer.
#[derive(Debug, Clone)]
pub enum Record {
    /// A company as the service described it (inserted or refreshed).
    Company(Box<Company>),
    /// A resolution to cache under its normalized input.
    Resolution {
        key: String,
        outcome: SearchOutcome,
        company_id: Option<Uuid>,
        candidates: Vec<Candidate>,
    },
    /// A company a review accepted for a row that searches `search_key` in `country`: if
    /// the database knows it without a name, it is described from the candidate the cached
    /// search listed it as.
    Accepted {
        company: Uuid,
        search_key: String,
        country: String,
    },
    /// A rating fetched in this run.
    Observation(model::Rating),
    /// A company's latest rating (`ratings.id`), used as it is instead of fetched; a run
    /// last saw it at `seen_at`.
    Reused {
        company: Uuid,
        rating: i64,
        seen_at: jiff::Timestamp,
    },
    /// A company the service no longer knows, with its last rating (`ratings.id`).
    Gone { company: Uuid, rating: i64 },
    /// An input row's outcome.
    Row(Box<RowRecord>),
}

/// The writer of one run.
pub struct Writer {
    /// `None` while a commit runs on another thread.
    conn: Option<Connection>,
    /// Records sent while the connection was away, written when it returns.
    queued: Vec<Record>,
    run_id: i64,
    /// The carried column each row's amount is read from (`runs.amount_column`).
    amount_column: Option<String>,
    /// Internal keys of the companies this run has rated (a bit each: keys are dense).
    rated: KeySet,
    /// The internal keys of the companies last looked up or added, by UUID.
    company_keys: CompanyKeys,
    /// When the open transaction began, if one is open.
    open: Option<Instant>,
    /// Whether the run's `service_time` is recorded (by its first dated rating).
    service_time_known: bool,
    /// Counts the answers the service dated off this machine's clock.
    clock: super::clock::ServiceClock,
    /// A batch was rolled back: the writer refuses everything after it.
    failed: bool,
    /// Rows of the open transaction not yet written: the commit writes them first.
    appends: Appends,
    /// The lines whose outcome this run has recorded (a bit each): one given again is
    /// taken back first.
    lines: KeySet,
    written: u64,
    /// Copies the log into the database meanwhile; stops with the writer.
    checkpointer: Option<Checkpointer>,
    /// Where a decision beside the run asks for its turn; `None` if it cannot be watched.
    turns: Option<Arc<Watch>>,
    /// A decision held its turn past [`GIVING_WAY`]: the run goes on without giving way
    /// until the turn is seen free.
    turn_stuck: bool,
    /// When the log last started over, and how often it does.
    log_started: Instant,
    /// When the writer started: how long its transactions may last grows with it.
    writing_since: Instant,
    pub(super) log_restart: Duration,
    /// How long a transaction stays open ([`MAX_TRANSACTION`]).
    pub(super) max_transaction: Duration,
    /// How long the run waits for a decision it gave way to ([`GIVING_WAY`]).
    pub(super) giving_way: Duration,
}

impl Writer {
    pub(super) fn start(
        conn: Connection,
        run_id: i64,
        checkpointer: Option<Checkpointer>,
        turns: Option<Watch>,
        clock: super::clock::ServiceClock,
    ) -> Result<Writer, StoreError> {
        // A resumed run goes on knowing which companies it has rated, and which lines.
        let done = |sql: &str| {
            let mut set = KeySet::default();
            conn.prepare(sql)
                .and_then(|mut s| {
                    s.query_map([run_id], |r| r.get::<_, i64>(0))?
                        .try_for_each(|k| k.map(|k| set.insert(k)))
                })
                .map(|()| set)
                .map_err(StoreError::at("reading what the run has done"))
        };
        let rated = done("SELECT company FROM run_companies WHERE run_id = ?1")?;
        let lines = done("SELECT line FROM run_rows WHERE run_id = ?1")?;
        let (amount_column, portfolio, previous, next) = conn
            .query_row(
                "SELECT amount_column, portfolio,
                        (SELECT max(p.id) FROM runs p WHERE p.portfolio = u.portfolio
                                                        AND p.id < u.id),
                        (SELECT min(n.id) FROM runs n WHERE n.portfolio = u.portfolio
                                                        AND n.id > u.id)
                 FROM runs u WHERE id = ?1",
                [run_id],
                |r| {
                    Ok((
                        r.get::<_, Option<String>>(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                    ))
                },
            )
            .optional()
            .map_err(StoreError::at("reading the run"))?
            .unwrap_or_default();
        Ok(Writer {
            conn: Some(conn),
            queued: Vec::new(),
            run_id,
            amount_column,
            rated,
            company_keys: CompanyKeys::new(),
            open: None,
            service_time_known: false,
            clock,
            failed: false,
            appends: Appends::new(RunKey {
                id: run_id,
                portfolio,
                previous,
                next,
            }),
            lines,
            written: 0,
            checkpointer,
            turns: turns.map(Arc::new),
            turn_stuck: false,
            log_started: Instant::now(),
            writing_since: Instant::now(),
            log_restart: LOG_RESTART,
            max_transaction: MAX_TRANSACTION,
            giving_way: GIVING_WAY,
        })
    }
    /// Writes a record in the open transaction. If it fails, the whole transaction is
    /// rolled back: the run stops, and the next one redoes that moment's work from a
    /// consistent database rather than keeping half of it. While a commit is away, the
    /// record waits for the connection to return.
    pub fn send(&mut self, record: Record) -> Result<(), StoreError> {
        if self.conn.is_none() {
            self.queued.push(record);
            return Ok(());
        }
        self.begin()?;
        if let Err(e) = self.apply(record) {
            self.rollback();
            return Err(e);
        }
        self.written += 1;
        Ok(())
    }
    /// Whether the connection is here to answer questions (not away committing).
    pub fn is_home(&self) -> bool {
        self.conn.is_some()
    }
    /// The connection. Questions are only asked while it is home (the pipeline waits for
    /// [`Writer::is_home`]); records sent meanwhile are queued instead.
    fn conn(&self) -> &Connection {
        self.conn
            .as_ref()
            .expect("the writer's connection is asked for only while it is home")
    }
    /// Once the open transaction is old enough, or a decision beside the run asks for its
    /// turn, takes the connection away and returns the work that commits it (and waits for
    /// the decision), to be run on another thread and handed back to [`Writer::committed`].
    /// Called on a timer, so a quiet moment leaves nothing uncommitted for long, and a
    /// decision waits a tick at most.
    pub fn commit_job(&mut self) -> Option<CommitJob> {
        let started = self.open?;
        if self.turn_asked() {
            let mut job = self.take_commit()?;
            job.give_way = self.turns.clone().map(|turns| (turns, self.giving_way));
            return Some(job);
        }
        // As long as the run had lasted when the transaction began, within the bounds.
        let due = started
            .saturating_duration_since(self.writing_since)
            .clamp(FIRST_TRANSACTIONS, MAX_TRANSACTION)
            .min(self.max_transaction);
        if started.elapsed() >= due {
            self.take_commit()
        } else {
            None
        }
    }
    /// Whether a decision asks for its turn, unless one stuck is not waited for.
    fn turn_asked(&mut self) -> bool {
        let asked = self.turns.as_ref().is_some_and(|t| t.asked());
        self.turn_stuck &= asked;
        asked && !self.turn_stuck
    }
    /// Closes the open transaction, if any, and takes the connection away to commit it.
    fn take_commit(&mut self) -> Option<CommitJob> {
        if self.conn.is_none() || self.open.take().is_none() {
            return None;
        }
        Some(CommitJob {
            appends: self.appends.take(),
            conn: self.conn.take()?,
            restart_log: self.checkpointer.is_some()
                && self.log_started.elapsed() >= self.log_restart,
            give_way: None,
        })
    }
    /// Takes the connection back after its commit, then writes what was queued meanwhile.
    pub fn committed(&mut self, done: Committed) -> Result<(), StoreError> {
        self.conn = Some(done.conn);
        if done.turn_stuck {
            tracing::warn!(
                "a write beside the run held its turn past {} s; the run goes on without waiting for it",
                self.giving_way.as_secs()
            );
            self.turn_stuck = true;
        }
        // A failed commit was rolled back (see `CommitJob::run`): as after any rollback,
        // nothing more is written.
        self.failed |= done.result.is_err();
        if done.result.is_err() {
            // Keys given in the rolled-back batch name no row now.
            self.company_keys.clear();
        }
        if done.result.map_err(StoreError::at("committing a batch"))? {
            self.log_started = Instant::now();
        }
        for record in std::mem::take(&mut self.queued) {
            self.send(record)?;
        }
        Ok(())
    }
    /// [`Writer::commit_job`] and [`Writer::committed`] on this thread, as the pipeline's
    /// ticker does them on two.
    #[cfg(test)]
    pub(super) fn tick(&mut self) -> Result<(), StoreError> {
        match self.commit_job() {
            Some(job) => self.committed(job.run()),
            None => Ok(()),
        }
    }
    /// Commits what is written; returns how many records were written in all.
    pub fn finish(mut self) -> Result<u64, StoreError> {
        if !self.is_home() {
            return Err(StoreError::WriterGone(format!(
                "finished while a commit was away; {} records not written",
                self.queued.len()
            )));
        }
        self.begin()?;
        if let Some(job) = self.take_commit() {
            self.committed(job.run())?;
        }
        Ok(self.written)
    }
    /// Writes the rows waiting in [`Appends`] that fill whole statements.
    fn write_full_appends(&mut self) -> Result<(), StoreError> {
        if !self.appends.full() {
            return Ok(());
        }
        self.write_appends(false)
    }
    /// Writes the rows waiting in [`Appends`], all of them or whole statements only:
    /// before a question reads their tables, all.
    fn write_appends(&mut self, all: bool) -> Result<(), StoreError> {
        self.with_appends(
            "recording the rows' and companies' outcomes".into(),
            |a, c| a.write(c, all),
        )
    }
    /// Takes back what the run recorded of a line it is given again (see
    /// [`Appends::retract`]).
    fn retract_line(&mut self, line: i64) -> Result<(), StoreError> {
        let ctx = format!("taking back the earlier outcome of line {line}");
        self.with_appends(ctx, |a, c| a.retract(c, line))
    }
    /// Runs `f` on the rows waiting and the connection; if it fails, the transaction is
    /// rolled back, as after any failed record.
    fn with_appends(
        &mut self,
        ctx: String,
        f: impl FnOnce(&mut Appends, &Connection) -> rusqlite::Result<()>,
    ) -> Result<(), StoreError> {
        let conn = self
            .conn
            .as_ref()
            .expect("records are applied while the connection is home");
        let done = f(&mut self.appends, conn);
        if done.is_err() {
            self.rollback();
        }
        done.map_err(StoreError::at(ctx))
    }
    /// Writes the rows waiting in [`Appends`] before a question about a company reads
    /// their tables: only a company this run has rated (or found gone) can have some.
    fn write_appends_about(&mut self, company: i64) -> Result<(), StoreError> {
        if self.rated.contains(company) {
            self.write_appends(true)?;
        }
        Ok(())
    }
    fn begin(&mut self) -> Result<(), StoreError> {
        if self.failed {
            return Err(StoreError::WriterGone(
                "an earlier batch failed and was rolled back; nothing more is written".into(),
            ));
        }
        if self.open.is_none() {
            self.conn()
                // IMMEDIATE: the write lock is taken now, waiting for a concurrent
                // writer (see `open_connection`), rather than failed on later.
                .execute_batch("BEGIN IMMEDIATE")
                .map_err(StoreError::at("starting a batch"))?;
            self.open = Some(Instant::now());
        }
        Ok(())
    }
    fn rollback(&mut self) {
        if self.open.take().is_none() {
            return;
        }
        // What this writer remembers of the batch (companies rated, the run's service
        // time) is gone with it: it answers and writes nothing more, rather than record
        // a row as rated whose rating was rolled back.
        self.failed = true;
        self.appends.clear();
        self.company_keys.clear();
        if let Err(e) = self.conn().execute_batch("ROLLBACK") {
            tracing::warn!("rolling back a failed batch: {e}");
        }
    }
    fn apply(&mut self, record: Record) -> Result<(), StoreError> {
        match record {
            Record::Company(c) => self.upsert_company(&c).map(drop),
            Record::Resolution {
                key,
                outcome,
                company_id,
                candidates,
            } => {
                let company = match (outcome, company_id) {
                    (SearchOutcome::Resolved, Some(id)) => Some(self.company_key(id)?),
                    _ => None,
                };
                // An ambiguous search keeps its candidates, `[]` at the least.
                let candidates = (outcome == SearchOutcome::Ambiguous)
                    .then(|| candidates_json(&candidates).unwrap_or_else(|| "[]".into()));
                // A search asked again keeps its one row, with the new answer.
                self.conn()
                    .prepare_cached(
                        "INSERT INTO resolutions (search_key, outcome, company, candidates,
                                                  resolved_at)
                         VALUES (?1, ?2, ?3, ?4, ?5)
                         ON CONFLICT (search_key) DO UPDATE SET outcome = excluded.outcome,
                             company = excluded.company, candidates = excluded.candidates,
                             resolved_at = excluded.resolved_at",
                    )
                    .and_then(|mut s| {
                        s.execute(params![
                            key,
                            outcome.as_str(),
                            company,
                            candidates,
                            now_text()
                        ])
                    })
                    .map(drop)
                    .map_err(StoreError::at("caching a resolution"))
            }
            Record::Accepted {
                company,
                search_key,
                country,
            } => self.describe_accepted(company, &search_key, &country),
            Record::Observation(rating) => self.observe(&rating),
            Record::Reused {
                company,
                rating,
                seen_at,
            } => {
                let company = self.company_key(company)?;
                let run_id = self.run_id;
                self.conn()
                    .prepare_cached(
                        "INSERT INTO run_reused_ratings (run_id, company, seen_at)
                         VALUES (?1, ?2, ?3)",
                    )
                    .and_then(|mut s| {
                        s.execute(params![run_id, company, crate::model::time_text(seen_at)])
                    })
                    .map_err(StoreError::at("recording a reused rating"))?;
                // Reused as a later run (another portfolio's, before this one was resumed)
                // last saw it: its refresh date then is this run's too.
                self.conn()
                    .prepare_cached(
                        "INSERT INTO rating_refreshes (rating, run_id, last_refresh_date)
                         SELECT rating, ?2, last_refresh_date FROM rating_refreshes
                         WHERE rating = ?1 AND run_id > ?2
                         ORDER BY run_id DESC LIMIT 1",
                    )
                    .and_then(|mut s| s.execute(params![rating, run_id]))
                    .map_err(StoreError::at("recording a reused rating"))?;
                self.record_change(company, rating, Some(rating), Change::Unchanged)
            }
            Record::Gone { company, rating } => {
                let company = self.company_key(company)?;
                self.record_change(company, rating, Some(rating), Change::Gone)
            }
            Record::Row(row) => self.record_row(*row),
        }
    }
}

/// A commit to run away from the screening thread: it holds the writer's connection.
pub struct CommitJob {
    conn: Connection,
    /// Also copy what the checkpoint thread has not yet copied (see [`CommitJob::run`]).
    restart_log: bool,
    /// Rows to write in the transaction before it commits ([`Appends`]).
    appends: Appends,
    /// A decision asked for its turn: once committed, wait until it is written, so long
    /// at most.
    give_way: Option<(Arc<Watch>, Duration)>,
}

/// A commit done, to hand back to [`Writer::committed`].
pub struct Committed {
    conn: Connection,
    /// Whether the log now starts over.
    result: Result<bool, rusqlite::Error>,
    /// The decision given way to still held its turn after [`Writer::giving_way`].
    turn_stuck: bool,
}

impl CommitJob {
    /// Commits. When the log is due to start over, also copies what the checkpoint thread
    /// has not yet copied, so that the next transaction writes the log from its start again:
    /// the log only ever restarts for a transaction that begins when it is wholly copied,
    /// which a writer that begins again straight after each commit never sees otherwise,
    /// and the log would grow for the whole run. (Busy when the thread is copying at that
    /// moment: then the next commit tries again.)
    ///
    /// Giving way, it then holds the connection, no transaction open, until the decision
    /// that asked has written and released its turn: begun again at once, the run would
    /// take the write lock back before the decision's next look (SQLite's busy wait polls,
    /// up to 100 ms apart).
    pub fn run(mut self) -> Committed {
        let committed = self
            .appends
            .write(&self.conn, true)
            .and_then(|()| self.conn.execute_batch("COMMIT"));
        if committed.is_err() {
            // The connection goes back with no transaction open: the batch is undone
            // whole, as a failed record undoes it.
            if let Err(e) = self.conn.execute_batch("ROLLBACK") {
                tracing::warn!("rolling back a failed commit: {e}");
            }
        }
        let result = committed.and_then(|()| {
            if !self.restart_log {
                return Ok(false);
            }
            self.conn
                .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(0))
                .map(|busy| busy == 0)
        });
        let turn_stuck = self
            .give_way
            .is_some_and(|(turns, wait)| !turns.wait_done(wait));
        Committed {
            conn: self.conn,
            result,
            turn_stuck,
        }
    }
}

/// A set of internal keys, one bit each. Keys are row ids handed out one after another, so
/// a million companies take 125 KB, and a lookup costs no query.
#[derive(Debug, Default)]
struct KeySet(Vec<u64>);

impl KeySet {
    fn insert(&mut self, key: i64) {
        let Ok(key) = usize::try_from(key) else {
            return;
        };
        let word = key / 64;
        if word >= self.0.len() {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << (key % 64);
    }

    fn contains(&self, key: i64) -> bool {
        usize::try_from(key)
            .ok()
            .and_then(|k| self.0.get(k / 64).map(|w| w & (1 << (k % 64)) != 0))
            .unwrap_or(false)
    }
}

/// The internal keys of the companies the writer last looked up or added, by UUID: a row's
/// records name its company four or five times (its description, the search that found it,
/// its rating, the row), each once a lookup through the UNIQUE index on `company_id`, a
/// random place in a large index. One slot per UUID's hash, the newest kept: a company's
/// records come close together, and memory stays the same whatever the portfolio's size
/// (128 KiB). Keys never change once given; a batch rolled back takes the cache with it.
struct CompanyKeys(Vec<Option<(Uuid, i64)>>);

impl CompanyKeys {
    /// Slots: many more than the companies of the rows in flight (a few hundred).
    const SLOTS: usize = 1 << 12;

    fn new() -> CompanyKeys {
        CompanyKeys(vec![None; Self::SLOTS])
    }
    fn slot(company: Uuid) -> usize {
        // The UUID's halves folded and mixed (Fibonacci hashing), its top bits kept.
        let (high, low) = company.as_u64_pair();
        let mixed = (high ^ low).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (mixed >> (64 - Self::SLOTS.trailing_zeros())) as usize
    }
    fn get(&self, company: Uuid) -> Option<i64> {
        match self.0[Self::slot(company)] {
            Some((id, key)) if id == company => Some(key),
            _ => None,
        }
    }
    fn put(&mut self, company: Uuid, key: i64) {
        self.0[Self::slot(company)] = Some((company, key));
    }
    fn clear(&mut self) {
        self.0.fill(None);
    }
}

fn candidates_json(c: &[Candidate]) -> Option<String> {
    (!c.is_empty()).then(|| serde_json::to_string(c).unwrap_or_else(|_| "[]".into()))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rusqlite::Connection;
    use uuid::Uuid;

    use super::{CompanyKeys, KeySet, MAX_TRANSACTION, Record, RowRecord, SearchOutcome};
    use crate::model::{Address, Candidate, Color, Company, InputRow, Rating, RowStatus};
    use crate::store::database::Store;

    use crate::store::tests::{all, new_run, new_store, plan, run as start, run_of};

    fn company(n: u128, ids: &[(&str, &str)]) -> Record {
        Record::Company(Box::new(Company {
            id: Uuid::from_u128(n),
            name: format!("Company {n}"),
            address: Address {
                country: "fr".into(),
                city: "Lyon".into(),
                ..Address::default()
            },
            phone: None,
            legal_form: "SA".into(),
            external_ids: ids
                .iter()
                .map(|(s, i)| (s.to_string(), i.to_string()))
                .collect(),
        }))
    }

    fn resolution(key: &str, outcome: SearchOutcome, company: Option<u128>) -> Record {
        Record::Resolution {
            key: key.into(),
            outcome,
            company_id: company.map(Uuid::from_u128),
            candidates: match outcome {
                SearchOutcome::Ambiguous => vec![Candidate {
                    id: Uuid::from_u128(9),
                    name: "Nine".into(),
                    city: "Lyon".into(),
                    postcode: "69001".into(),
                    found_without: None,
                }],
                _ => vec![],
            },
        }
    }

    fn observation(n: u128, color: Color) -> Record {
        refreshed(n, color, "2026-01-02T03:04:05Z".parse().unwrap())
    }

    /// Company `n` rated `color`, last recalculated at `refresh`.
    fn refreshed(n: u128, color: Color, refresh: jiff::Timestamp) -> Record {
        Record::Observation(Rating {
            company_id: Uuid::from_u128(n),
            color,
            requested_at: None,
            last_refresh: Some(refresh),
            last_change: Some("2025-12-01T00:00:00Z".parse().unwrap()),
        })
    }

    fn rated_row(line: u64, n: u128) -> Record {
        Record::Row(Box::new(RowRecord {
            input: InputRow {
                line,
                reference: Some(format!("R{line}")),
                country: Some("FR".into()),
                ..InputRow::default()
            },
            status: RowStatus::Rated,
            company_id: Some(Uuid::from_u128(n)),
            ..RowRecord::default()
        }))
    }

    fn rows<T: rusqlite::types::FromSql>(conn: &Connection, sql: &str) -> Vec<T> {
        all(conn, sql, [], |r| r.get(0))
    }

    fn failed_row(line: u64) -> Record {
        let Record::Row(mut row) = rated_row(line, 1) else {
            unreachable!()
        };
        row.status = RowStatus::Failed;
        row.company_id = None;
        row.error = Some("the service did not answer".into());
        Record::Row(row)
    }

    /// Each run's rows as `run_rows` lays them out: `run line status`.
    fn laid_out(conn: &Connection) -> Vec<String> {
        rows(
            conn,
            "SELECT run_id || ' ' || line || ' ' || status FROM run_rows ORDER BY run_id, line",
        )
    }

    fn stretches(conn: &Connection) -> Vec<String> {
        rows(
            conn,
            "SELECT portfolio || ' ' || line || ' ' || first_run_id || '-' || last_run_id
                    || ' ' || status
             FROM run_row_spans ORDER BY portfolio, line, first_run_id",
        )
    }

    /// Run `run_id` gives each line, rated (company 1) or failed.
    fn screen(store: &mut Store, run_id: i64, lines: &[(u64, bool)]) {
        let mut writer = store.writer(run_id).unwrap();
        writer.send(company(1, &[])).unwrap();
        for &(line, rated) in lines {
            let row = if rated {
                rated_row(line, 1)
            } else {
                failed_row(line)
            };
            writer.send(row).unwrap();
        }
        writer.finish().unwrap();
    }

    #[test]
    fn a_run_resumed_after_a_later_one_began_leaves_the_stretches_around_it() {
        let (_dir, path, mut store) = new_store();
        let runs: Vec<i64> = (0..3).map(|_| start(&mut store)).collect();
        // Line 2 failed in the three runs, line 3 in the last two; then the second run
        // gives both again, rated.
        for (n, &run_id) in runs.iter().enumerate() {
            let lines = [(2, false), (3, false)];
            screen(&mut store, run_id, &lines[..1 + usize::from(n > 0)]);
        }
        let conn = Connection::open(&path).unwrap();
        assert_eq!(stretches(&conn), ["p 2 1-3 failed", "p 3 2-3 failed"]);
        crate::store::tests::mark_named(&conn, runs[1], 2);
        screen(&mut store, runs[1], &[(2, true), (3, true)]);
        assert_eq!(
            stretches(&conn),
            [
                "p 2 1-1 failed",
                "p 2 2-2 rated",
                "p 2 3-3 failed",
                "p 3 2-2 rated",
                "p 3 3-3 failed",
            ]
        );
        assert_eq!(
            laid_out(&conn),
            [
                "1 2 failed",
                "2 2 rated",
                "2 3 rated",
                "3 2 failed",
                "3 3 failed",
            ]
        );
        let named: Vec<i64> = rows(&conn, "SELECT count(*) FROM run_named_lines");
        assert_eq!(named, [0], "a line given again is no longer named");
    }

    #[test]
    fn a_row_made_the_same_of_as_by_the_run_before_carries_its_stretch_on() {
        let (_dir, path, mut store) = new_store();
        // Portfolio p four nights, line 3 failing on the third; another portfolio's run
        // between the second and the third.
        let mut runs = Vec::new();
        for night in 1..=4 {
            if night == 3 {
                let other = run_of(&mut store, "q");
                screen(&mut store, other, &[(2, true)]);
            }
            let run_id = start(&mut store);
            screen(&mut store, run_id, &[(2, true), (3, night != 3)]);
            runs.push(run_id);
        }
        assert_eq!(runs, [1, 2, 4, 5]);
        let conn = Connection::open(&path).unwrap();
        assert_eq!(
            stretches(&conn),
            [
                "p 2 1-5 rated",
                "p 3 1-2 rated",
                "p 3 4-4 failed",
                "p 3 5-5 rated",
                "q 2 3-3 rated",
            ]
        );
        let by_run = laid_out(&conn);
        assert_eq!(
            by_run,
            [
                "1 2 rated",
                "1 3 rated",
                "2 2 rated",
                "2 3 rated",
                "3 2 rated",
                "4 2 rated",
                "4 3 failed",
                "5 2 rated",
                "5 3 rated",
            ]
        );
        // The last run resumed gives both lines again, failed: what it made of them before
        // is taken back, one stretch ended at the run before, the other carried on.
        screen(&mut store, 5, &[(2, false), (3, false)]);
        assert_eq!(
            stretches(&conn),
            [
                "p 2 1-4 rated",
                "p 2 5-5 failed",
                "p 3 1-2 rated",
                "p 3 4-5 failed",
                "q 2 3-3 rated",
            ]
        );
        let again = laid_out(&conn);
        assert_eq!(again[..7], by_run[..7]);
        assert_eq!(again[7..], ["5 2 failed", "5 3 failed"]);
    }

    #[test]
    fn a_search_asked_again_keeps_its_one_row_with_the_new_answer() {
        let (_dir, path, store, _, mut writer) = new_run();
        writer.max_transaction = Duration::ZERO;
        writer
            .send(resolution("k1", SearchOutcome::Unresolved, None))
            .unwrap();
        writer
            .send(resolution("k2", SearchOutcome::Ambiguous, None))
            .unwrap();
        writer.tick().unwrap();
        writer
            .send(resolution("k1", SearchOutcome::Resolved, Some(1)))
            .unwrap();
        let hit = writer.cached_resolution("k1", None).unwrap().unwrap();
        assert_eq!(
            (hit.outcome, hit.company_id),
            (SearchOutcome::Resolved, Some(Uuid::from_u128(1)))
        );
        assert_eq!(
            writer
                .cached_resolution("k2", None)
                .unwrap()
                .unwrap()
                .candidates
                .len(),
            1
        );
        assert!(writer.cached_resolution("k3", None).unwrap().is_none());
        writer
            .send(resolution("k2", SearchOutcome::Unresolved, None))
            .unwrap();
        writer.finish().unwrap();
        let conn = Connection::open(&path).unwrap();
        let stored: Vec<String> = rows(
            &conn,
            "SELECT search_key || ' ' || outcome || ' '
                    || coalesce(company, '-') || ' ' || coalesce(candidates, '-')
             FROM resolutions ORDER BY search_key",
        );
        assert_eq!(stored, ["k1 resolved 1 -", "k2 unresolved - -"]);
        let resolved_at: Vec<String> = rows(&conn, "SELECT resolved_at FROM resolutions");
        assert!(
            resolved_at
                .iter()
                .all(|t| t.parse::<jiff::Timestamp>().is_ok() && t.ends_with('Z'))
        );
        assert_eq!(
            store.cached_resolution("k1").unwrap().unwrap().company_id,
            Some(Uuid::from_u128(1)),
            "another connection reads it through the same index"
        );
    }

    #[test]
    fn a_company_given_again_is_stored_once_and_keeps_every_registry_id_it_was_given() {
        let (_dir, path, _store, _, mut writer) = new_run();
        // Known first by its UUID alone (a row's), then described, then described again.
        writer.send(rated_row(2, 0xabc)).unwrap();
        writer
            .send(company(
                0xabc,
                &[("SIREN", "552100554"), ("EU VAT", "FR 1")],
            ))
            .unwrap();
        writer
            .send(company(0xabc, &[("EU VAT", "FR 1"), ("VAT", "FR2")]))
            .unwrap();
        writer.send(company(0xdef, &[])).unwrap();
        writer.finish().unwrap();
        let conn = Connection::open(&path).unwrap();
        let companies: Vec<String> = rows(
            &conn,
            "SELECT id || ' ' || company_id || ' ' || name || ' ' || country FROM companies
             ORDER BY id",
        );
        assert_eq!(
            companies,
            [
                format!("1 {} Company 2748 FR", Uuid::from_u128(0xabc)),
                format!("2 {} Company 3567 FR", Uuid::from_u128(0xdef)),
            ]
        );
        let ids: Vec<String> = rows(
            &conn,
            "SELECT company || ' ' || service || ' ' || external_id FROM company_external_ids
             ORDER BY service",
        );
        assert_eq!(ids, ["1 EU VAT FR 1", "1 SIREN 552100554", "1 VAT FR2"]);
        let input_company: Vec<i64> = rows(&conn, "SELECT company FROM run_rows");
        assert_eq!(input_company, [1]);
    }

    #[test]
    fn the_writer_s_lookups_search_their_unique_indexes() {
        let (_dir, _, store) = new_store();
        for (sql, wanted) in [
            (
                "SELECT id FROM companies WHERE company_id = ?1",
                "SEARCH companies USING COVERING INDEX sqlite_autoindex_companies_1 (company_id=?)",
            ),
            (
                "SELECT outcome FROM resolutions WHERE search_key = ?1",
                "SEARCH resolutions USING PRIMARY KEY (search_key=?)",
            ),
        ] {
            assert_eq!(plan(&store, sql), [wanted]);
        }
    }

    /// Company `n` found by the search `k{n}` (its SIREN `n`), rated `color`, on `line`.
    fn found_and_rated(writer: &mut super::Writer, n: u128, color: Color, line: u64) {
        for record in [
            resolution(&format!("k{n}"), SearchOutcome::Resolved, Some(n)),
            company(n, &[("SIREN", &n.to_string())]),
            observation(n, color),
            rated_row(line, n),
        ] {
            writer.send(record).unwrap();
        }
    }

    #[test]
    fn a_run_killed_between_commits_leaves_what_it_committed_and_is_resumed_from_it() {
        let (_dir, path, store, run_id, mut writer) = new_run();
        writer.max_transaction = Duration::ZERO;
        found_and_rated(&mut writer, 1, Color::Green, 2);
        writer.tick().unwrap();
        // Not committed: gone with the process.
        found_and_rated(&mut writer, 2, Color::Red, 3);
        drop(writer);
        drop(store);
        let mut store = Store::open(&path).unwrap();
        let conn = Connection::open(&path).unwrap();
        let count = |table: &str| -> i64 {
            conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .unwrap()
        };
        for (table, n) in [
            ("resolutions", 1),
            ("companies", 1),
            ("company_external_ids", 1),
            ("ratings", 1),
            ("inputs", 1),
            ("run_rows", 1),
            ("run_companies", 1),
        ] {
            assert_eq!(count(table), n, "{table}");
        }
        let check: Vec<String> = rows(&conn, "PRAGMA integrity_check");
        assert_eq!(check, ["ok"]);
        assert!(rows::<String>(&conn, "PRAGMA foreign_key_check").is_empty());
        // The resumed run finds what was committed and adds the rest once.
        store.resume_run(run_id).unwrap();
        let mut writer = store.writer(run_id).unwrap();
        assert!(writer.cached_resolution("k1", None).unwrap().is_some());
        assert!(writer.cached_resolution("k2", None).unwrap().is_none());
        assert!(writer.rated(Uuid::from_u128(1)).unwrap());
        assert!(!writer.rated(Uuid::from_u128(2)).unwrap());
        found_and_rated(&mut writer, 2, Color::Red, 3);
        writer.send(rated_row(2, 1)).unwrap();
        writer.finish().unwrap();
        for (table, n) in [
            ("resolutions", 2),
            ("companies", 2),
            ("ratings", 2),
            ("inputs", 2),
            ("run_rows", 2),
            ("run_companies", 2),
        ] {
            assert_eq!(count(table), n, "{table}");
        }
        let latest: Vec<String> = rows(
            &conn,
            "SELECT c.company_id || ' ' || r.color || ' ' || r.last_change_date || ' '
                    || r.last_refresh_date
             FROM companies c JOIN ratings r ON r.id = c.latest_rating ORDER BY c.id",
        );
        assert_eq!(
            latest,
            [
                format!(
                    "{} green 2025-12-01T00:00:00Z 2026-01-02T03:04:05Z",
                    Uuid::from_u128(1)
                ),
                format!(
                    "{} red 2025-12-01T00:00:00Z 2026-01-02T03:04:05Z",
                    Uuid::from_u128(2)
                ),
            ]
        );
    }

    #[test]
    fn a_rating_seen_again_unchanged_is_confirmed_and_a_changed_one_added() {
        let (_dir, path, mut store) = new_store();
        let mut runs = Vec::new();
        for colors in [[Color::Green, Color::Green], [Color::Green, Color::Red]] {
            let run_id = start(&mut store);
            let mut writer = store.writer(run_id).unwrap();
            for (n, color) in colors.into_iter().enumerate() {
                writer.send(observation(n as u128, color)).unwrap();
            }
            writer.finish().unwrap();
            runs.push(run_id);
        }
        let conn = Connection::open(&path).unwrap();
        let changes: Vec<String> = rows(
            &conn,
            "SELECT run_id || ' ' || company || ' ' || change FROM run_companies
             ORDER BY run_id, company",
        );
        assert_eq!(
            changes,
            ["1 1 new", "1 2 new", "2 1 unchanged", "2 2 deteriorated"]
        );
        let confirmed: Vec<String> = rows(
            &conn,
            "SELECT rating || ' ' || last_run_id || ' ' || (confirmed_at >= observed_at)
             FROM rating_confirmations JOIN ratings ON ratings.id = rating",
        );
        assert_eq!(confirmed, ["1 2 1"]);
    }

    #[test]
    fn a_rating_only_recalculated_keeps_its_row_and_each_run_shows_its_own_refresh_date() {
        let (_dir, path, mut store) = new_store();
        let ahead = jiff::Timestamp::now() + jiff::SignedDuration::from_hours(24 * 3);
        let first: jiff::Timestamp = "2026-01-02T03:04:05Z".parse().unwrap();
        let second: jiff::Timestamp = "2026-01-09T03:04:05Z".parse().unwrap();
        // Company 1 green all along, recalculated on nights 2 and 4 (the second time dated
        // three days ahead of this machine); company 2 turns red on night 3.
        let nights = [
            (first, Color::Green),
            (second, Color::Green),
            (second, Color::Red),
            (ahead, Color::Red),
        ];
        for (refresh, color) in nights {
            let run_id = start(&mut store);
            let mut writer = store.writer(run_id).unwrap();
            writer.send(company(1, &[])).unwrap();
            writer.send(company(2, &[])).unwrap();
            writer.send(refreshed(1, Color::Green, refresh)).unwrap();
            writer.send(observation(2, color)).unwrap();
            writer.send(rated_row(2, 1)).unwrap();
            writer.finish().unwrap();
        }
        let conn = Connection::open(&path).unwrap();
        let ratings: Vec<String> = rows(
            &conn,
            "SELECT company || ' ' || color || ' ' || first_run_id FROM ratings ORDER BY id",
        );
        assert_eq!(ratings, ["1 green 1", "2 green 1", "2 red 3"]);
        let noted: Vec<String> = rows(
            &conn,
            "SELECT rating || ' ' || run_id || ' ' || last_refresh_date FROM rating_refreshes
             ORDER BY rating, run_id",
        );
        assert_eq!(
            noted,
            [
                "1 2 2026-01-09T03:04:05Z".to_string(),
                format!("1 4 {}", crate::model::time_text(ahead)),
            ]
        );
        let changes: Vec<String> = rows(
            &conn,
            "SELECT run_id || ' ' || rating_id || ' ' || previous_rating_id || ' ' || change
             FROM run_companies WHERE company = 1 AND run_id > 1 ORDER BY run_id",
        );
        assert_eq!(
            changes,
            ["2 1 1 unchanged", "3 1 1 unchanged", "4 1 1 unchanged"]
        );
        // Each run shows the refresh date it saw; the one dated ahead as the end of the run
        // that saw it (now while it runs).
        let shown = |conn: &Connection| -> Vec<String> {
            rows(
                conn,
                "SELECT run_id || ' ' || last_refresh_date FROM run_results ORDER BY run_id",
            )
        };
        let running = shown(&conn);
        assert_eq!(
            running[..3],
            [
                "1 2026-01-02T03:04:05Z",
                "2 2026-01-09T03:04:05Z",
                "3 2026-01-09T03:04:05Z",
            ]
        );
        let now = crate::model::time_text(jiff::Timestamp::now());
        let seen = running[3].strip_prefix("4 ").unwrap();
        assert!(seen <= now.as_str() && seen > "2026-01-09", "{running:?}");
        conn.execute(
            "UPDATE runs SET finished_at = '2026-11-20T02:30:00Z' WHERE id = 4",
            [],
        )
        .unwrap();
        assert_eq!(shown(&conn)[3], "4 2026-11-20T02:30:00Z");
        let latest: Vec<String> = rows(
            &conn,
            "SELECT l.rating_id || ' ' || l.last_refresh_date || ' ' || f.last_run_id
                    || ' ' || (l.confirmed_at = f.confirmed_at)
             FROM latest_ratings l JOIN rating_confirmations f ON f.rating = l.rating_id
             WHERE l.company = 1",
        );
        assert_eq!(
            latest,
            [format!("1 {} 4 1", crate::model::time_text(ahead))]
        );
    }

    #[test]
    fn a_resumed_run_shows_the_refresh_date_it_saw_when_a_later_run_noted_it_first() {
        let (_dir, path, mut store) = new_store();
        let (first, second) = ("2026-01-02T03:04:05Z", "2026-01-09T03:04:05Z");
        let screen = |store: &mut Store, run_id: i64, refresh: &str| {
            let mut writer = store.writer(run_id).unwrap();
            writer.send(company(1, &[])).unwrap();
            writer
                .send(refreshed(1, Color::Green, refresh.parse().unwrap()))
                .unwrap();
            writer.send(rated_row(2, 1)).unwrap();
            writer.finish().unwrap();
        };
        let one = start(&mut store);
        screen(&mut store, one, first);
        // Run two stops before it reaches the company; run three (another file) sees the
        // recalculation; then run two is resumed and sees it too.
        let two = start(&mut store);
        let three = start(&mut store);
        screen(&mut store, three, second);
        screen(&mut store, two, second);
        let conn = Connection::open(&path).unwrap();
        let shown: Vec<String> = rows(
            &conn,
            "SELECT run_id || ' ' || last_refresh_date FROM run_results ORDER BY run_id",
        );
        assert_eq!(
            shown,
            [
                format!("{one} {first}"),
                format!("{two} {second}"),
                format!("{three} {second}"),
            ]
        );
        let latest: Vec<String> = rows(&conn, "SELECT last_refresh_date FROM latest_ratings");
        assert_eq!(latest, [second]);
    }

    #[test]
    fn a_resumed_run_that_reuses_a_rating_shows_the_refresh_date_last_seen() {
        let (_dir, path, mut store) = new_store();
        let (first, second) = ("2026-01-02T03:04:05Z", "2026-01-09T03:04:05Z");
        let one = start(&mut store);
        let two = start(&mut store);
        let three = start(&mut store);
        for (run_id, refresh) in [(one, first), (three, second)] {
            let mut writer = store.writer(run_id).unwrap();
            writer.send(company(1, &[])).unwrap();
            writer
                .send(refreshed(1, Color::Green, refresh.parse().unwrap()))
                .unwrap();
            writer.finish().unwrap();
        }
        // Run two, resumed after run three, reuses what run three saw.
        let mut writer = store.writer(two).unwrap();
        writer.send(company(1, &[])).unwrap();
        writer
            .send(Record::Reused {
                company: Uuid::from_u128(1),
                rating: 1,
                seen_at: jiff::Timestamp::now(),
            })
            .unwrap();
        writer.send(rated_row(2, 1)).unwrap();
        writer.finish().unwrap();
        let conn = Connection::open(&path).unwrap();
        let shown: Vec<String> = rows(&conn, "SELECT last_refresh_date FROM run_results");
        assert_eq!(shown, [second]);
    }

    #[test]
    fn a_company_gone_seen_again_and_gone_again_is_news_again() {
        let (_dir, path, mut store) = new_store();
        let id = Uuid::from_u128(1);
        let mut gone = Vec::new();
        for night in ["seen", "gone", "seen", "gone", "gone"] {
            let run_id = start(&mut store);
            let mut writer = store.writer(run_id).unwrap();
            writer.send(company(1, &[])).unwrap();
            if night == "seen" {
                writer.send(observation(1, Color::Green)).unwrap();
            } else {
                gone.push(writer.gone(id).unwrap().is_some());
            }
            writer.finish().unwrap();
        }
        assert_eq!(gone, [true, true, false], "news once after each sighting");
        let conn = Connection::open(&path).unwrap();
        let reported: Vec<i64> = rows(
            &conn,
            "SELECT run_id FROM run_companies WHERE change = 'gone' ORDER BY run_id",
        );
        assert_eq!(reported, [2, 4]);
    }

    /// A decision on reference `r`, recorded by a store of its own (as `ack` or `review`
    /// beside a run would), on a thread of its own.
    fn decide_beside(path: &std::path::Path, r: &str) -> std::thread::JoinHandle<()> {
        let path = path.to_path_buf();
        let r = r.to_string();
        std::thread::spawn(move || {
            let mut store = Store::open(&path).unwrap();
            store
                .decide(&crate::model::Decision {
                    reference: r,
                    search_key: "k".into(),
                    verdict: crate::model::Verdict::Ignore,
                    decided_at: jiff::Timestamp::now(),
                    source: "test".into(),
                    by: Some("test".into()),
                    note: None,
                })
                .unwrap();
        })
    }

    #[test]
    fn a_decision_beside_a_run_is_given_way_at_the_next_tick_and_the_run_goes_on() {
        let (_dir, path, _store, _, mut writer) = new_run();
        // A run long under way: its transactions last fifteen seconds.
        writer.writing_since -= Duration::from_secs(3600);
        found_and_rated(&mut writer, 1, Color::Green, 2);
        let started = std::time::Instant::now();
        let decision = decide_beside(&path, "R1");
        while !decision.is_finished() {
            writer.tick().unwrap();
            std::thread::sleep(Duration::from_millis(10));
        }
        decision.join().unwrap();
        assert!(
            started.elapsed() < MAX_TRANSACTION,
            "given way before the transaction was due: {:?}",
            started.elapsed()
        );
        found_and_rated(&mut writer, 2, Color::Red, 3);
        writer.finish().unwrap();
        let conn = Connection::open(&path).unwrap();
        let decided: Vec<String> = rows(&conn, "SELECT ref FROM decisions");
        assert_eq!(decided, ["R1"]);
        let rated: Vec<i64> = rows(&conn, "SELECT line FROM run_rows ORDER BY line");
        assert_eq!(rated, [2, 3], "the rows before and after it");
    }

    #[test]
    fn a_decision_stuck_with_its_turn_is_waited_for_once_then_the_run_goes_on() {
        let (_dir, path, _store, _, mut writer) = new_run();
        writer.giving_way = Duration::from_millis(50);
        // A decision that took its turn and never writes (a process stopped midway).
        let stuck = crate::store::turn::Turn::take(&path, Duration::ZERO).unwrap();
        found_and_rated(&mut writer, 1, Color::Green, 2);
        writer.tick().unwrap();
        assert!(writer.open.is_none(), "committed for the decision");
        found_and_rated(&mut writer, 2, Color::Green, 3);
        writer.tick().unwrap();
        assert!(
            writer.open.is_some(),
            "not given way again while the stuck turn is held"
        );
        drop(stuck);
        writer.tick().unwrap();
        let decision = decide_beside(&path, "R2");
        while !decision.is_finished() {
            writer.tick().unwrap();
            std::thread::sleep(Duration::from_millis(10));
        }
        decision.join().unwrap();
        assert!(writer.open.is_none(), "given way to the next decision");
        writer.finish().unwrap();
    }

    #[test]
    fn the_company_keys_answer_only_for_the_uuid_put_in_and_forget_on_clear() {
        let mut keys = CompanyKeys::new();
        let ids: Vec<Uuid> = (0..3 * CompanyKeys::SLOTS as u128)
            .map(|n| Uuid::from_u128(n * 0x1_0000_0001))
            .collect();
        for (key, id) in ids.iter().enumerate() {
            keys.put(*id, key as i64);
        }
        // Three times more UUIDs than slots: each answers its own key, or nothing.
        let mut kept = 0;
        for (key, id) in ids.iter().enumerate() {
            if let Some(k) = keys.get(*id) {
                assert_eq!(k, key as i64, "{id}");
                kept += 1;
            }
        }
        assert!(kept > 0 && kept <= CompanyKeys::SLOTS, "{kept}");
        let last = *ids.last().unwrap();
        assert_eq!(
            keys.get(last),
            Some(ids.len() as i64 - 1),
            "the newest is kept"
        );
        assert_eq!(keys.get(Uuid::from_u128(u128::MAX)), None);
        keys.clear();
        assert_eq!(keys.get(last), None);
    }

    #[test]
    fn a_key_set_holds_exactly_the_keys_put_in() {
        let mut set = KeySet::default();
        for k in [1, 63, 64, 65, 1_000_003] {
            set.insert(k);
        }
        for k in [1, 63, 64, 65, 1_000_003] {
            assert!(set.contains(k), "{k}");
        }
        for k in [0, 2, 62, 66, 127, 1_000_002, 1_000_004, 5_000_000, -1] {
            assert!(!set.contains(k), "{k}");
        }
        set.insert(-5);
        assert!(
            !set.contains(-5),
            "row ids are never negative; such a key is ignored"
        );
    }
}
